// error: 4:3: kernel.conv_planes multiplies an i8 input by i8 or i16 weights into i32
// Bytes are stored only through an epilogue_map that makes them from the sums.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x1x8xi8>, %y: memref<1x3x16xi8>) {
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x2x64x4xi8>, memref<3x1x8xi8>, memref<1x3x16xi8>) -> ()
  return
}
