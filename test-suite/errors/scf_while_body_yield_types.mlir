// error: 10:5: yields (f32) but 'scf.while' carries (i32)
// The body yields the next iteration's values, which must have the initial values' types.
func.func @f(%x: f32) -> i32 {
  %c0 = arith.constant 0 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.constant true
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    scf.yield %x : f32
  }
  return %r : i32
}
