// error: 5:3: each tap reads 2 quads from its first, within the input's 2
// A tap's weights span K = 8 bytes, two quads of channels; the second tap starts at quad 1, so
// it would read quad 2 of an input that has 2.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x2x8xi8>, %y: memref<1x3x16xi32>) {
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0, 1>, tap_quads = array<i64: 0, 1>} : (memref<1x2x64x4xi8>, memref<3x2x8xi8>, memref<1x3x16xi32>) -> ()
  return
}
