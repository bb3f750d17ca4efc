// error: 4:3: operands after the output are epilogue_map's arguments
// Without a map the sums are stored as they are, and nothing reads a fourth operand.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x1x8xi8>, %y: memref<1x3x16xi32>, %s: memref<f32>) {
  "kernel.conv_planes"(%x, %w, %y, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x2x64x4xi8>, memref<3x1x8xi8>, memref<1x3x16xi32>, memref<f32>) -> ()
  return
}
