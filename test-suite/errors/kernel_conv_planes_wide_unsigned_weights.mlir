// error: 4:3: i16 weights are their values: weights_unsigned is for bytes
// Weights widened to i16 already carry their sign; marking them unsigned would say two things.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x1x8xi16>, %y: memref<1x3x16xi32>) {
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>, weights_unsigned} : (memref<1x2x64x4xi8>, memref<3x1x8xi16>, memref<1x3x16xi32>) -> ()
  return
}
