// error: 5:3: winograd weights are [4, 4, K, C]: input [1, 4, 8, 8], weight [6, 4, 3, 3], output [1, 6, 8, 8]
// `winograd = 2` says the weights were transformed for F(2x2, 3x3) at compile time: weights
// still [K, C, 3, 3] would be read as the wrong layout.
func.func @f(%x: memref<1x4x8x8xf32>, %w: memref<6x4x3x3xf32>, %y: memref<1x6x8x8xf32>) {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64, winograd = 2 : i64} : (memref<1x4x8x8xf32>, memref<6x4x3x3xf32>, memref<1x6x8x8xf32>) -> ()
  return
}
