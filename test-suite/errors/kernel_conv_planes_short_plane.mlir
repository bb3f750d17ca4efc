// error: 8:3: planes of 40 positions, fewer than the 48 the last panel of the last tap reads
// kernel.conv_planes reads whole panels of 16 positions: with 20 output positions the last panel
// of a tap ends at position 32, and the tap at offset 16 reads up to 48, past a 40-position plane.
func.func @f(%x: memref<1x2x40x4xi8>, %w: memref<3x2x4xi8>, %y: memref<1x3x20xi32>) {
  // two taps, each one quad of channels: the first at offset 0 of quad 0, the second at
  // offset 16 of quad 1
  // (the plane is 8 positions short)
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0, 16>, tap_quads = array<i64: 0, 1>} : (memref<1x2x40x4xi8>, memref<3x2x4xi8>, memref<1x3x20xi32>) -> ()
  return
}
