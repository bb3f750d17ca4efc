// error: 8:5: yields (i32, i32) but 'scf.for' has results (i32)
func.func @f(%n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i32) {
    %s = arith.addi %acc, %acc : i32
    scf.yield %s, %s : i32, i32
  }
  return %r : i32
}
