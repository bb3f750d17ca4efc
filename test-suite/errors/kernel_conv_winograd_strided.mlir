// error: 4:3: winograd needs a 2-d convolution with unit strides and dilations and one group
// F(2x2, 3x3) computes 2x2 tiles of neighbouring outputs: a strided convolution has none.
func.func @f(%x: memref<1x4x8x8xf32>, %u: memref<4x4x6x4xf32>, %y: memref<1x6x4x4xf32>) {
  "kernel.conv"(%x, %u, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, winograd = 2 : i64} : (memref<1x4x8x8xf32>, memref<4x4x6x4xf32>, memref<1x6x4x4xf32>) -> ()
  return
}
