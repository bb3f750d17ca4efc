// error: 7:5: the values passed on must have the scf.while's result types
// scf.condition passes an i64 out of a loop whose result is i32.
func.func @f(%n: i64) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.constant true
    scf.condition(%more) %n : i64
  } do {
  ^bb0(%j: i32):
    scf.yield %j : i32
  }
  return %r : i32
}
