// error: 6:3: kernel.conv with a batch known only at run time is not lowered yet
// stage: driver
// The verifier accepts a convolution whose batch is dynamic (its other dims are static); its
// lowering does not take one yet and says so instead of reading a wrong size.
func.func @f(%x: memref<?x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<?x3x3x3xf32>) {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<?x2x5x5xf32>, memref<3x2x3x3xf32>, memref<?x3x3x3xf32>) -> ()
  return
}
