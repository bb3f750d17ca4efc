// error: 6:3: the step is 0
// A loop that would never end.
func.func @f(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c0 {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %a[%i] : memref<4xf32>
  }
  return
}
