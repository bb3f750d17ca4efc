// error: 4:3: epilogue_map @m must be (i32, f32) -> i8
// The map takes the sum (i32) and an element of each operand after the output, and returns the output's element.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x1x8xi8>, %y: memref<1x3x16xi8>, %s: memref<f32>) {
  "kernel.conv_planes"(%x, %w, %y, %s) {epilogue_map = @m, tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x2x64x4xi8>, memref<3x1x8xi8>, memref<1x3x16xi8>, memref<f32>) -> ()
  return
}
func.func private @m(%sum: i32) -> i8 {
  %b = arith.trunci %sum : i32 to i8
  return %b : i8
}
