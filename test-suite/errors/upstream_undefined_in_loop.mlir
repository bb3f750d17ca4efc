// error: 7:25: use of undefined value '%k'
func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %a = arith.addi %acc, %i : index
    %b = arith.addi %a, %k : index
    scf.yield %b : index
  }
  return %r : index
}
