// error: 5:3: the input [1x?x5x5]: the channels (dim 1) must be static
// A convolution's channels decide its weights' layout and its GEMMs' rows: the batch and the
// spatial dims may be known only at run time, the channels may not.
func.func @f(%x: memref<1x?x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<1x?x5x5xf32>, memref<3x2x3x3xf32>, memref<1x3x3x3xf32>) -> ()
  return
}
