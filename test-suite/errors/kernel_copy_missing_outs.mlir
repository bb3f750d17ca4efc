// error: 6:39: expected 'outs('
// The custom form of kernel.copy is `ins(%a : A) outs(%b : B)`; without the outs group the
// error points where it should start.
func.func @f(%a: memref<4xf32>, %b: memref<2x2xf32>) {
  // The output is missing:
  kernel.copy ins(%a : memref<4xf32>) %b : memref<2x2xf32>
  return
}
