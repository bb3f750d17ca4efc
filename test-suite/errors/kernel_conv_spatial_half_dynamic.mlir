// error: 5:3: spatial dim 1 is known only at run time in one of input [1x2x5x?] and output [1x3x3x3]
// A spatial dim known only at run time in the input gives one known only at run time in the
// output: a static output size could not be checked against it.
func.func @f(%x: memref<1x2x5x?xf32>, %w: memref<3x2x3x3xf32>, %y: memref<1x3x3x3xf32>) {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<1x2x5x?xf32>, memref<3x2x3x3xf32>, memref<1x3x3x3xf32>) -> ()
  return
}
