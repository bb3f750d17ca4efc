// error: 4:3: an epilogue operand holds 1 element or 3 (one per channel), not memref<1x3x16xf32>
// The kernel reads each operand after the output at a channel (or its one element), never per position.
func.func @f(%x: memref<1x2x64x4xi8>, %w: memref<3x1x8xi8>, %y: memref<1x3x16xf32>, %s: memref<1x3x16xf32>) {
  "kernel.conv_planes"(%x, %w, %y, %s) {epilogue_map = @m, tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x2x64x4xi8>, memref<3x1x8xi8>, memref<1x3x16xf32>, memref<1x3x16xf32>) -> ()
  return
}
func.func private @m(%sum: i32, %s: f32) -> f32 {
  %f = arith.sitofp %sum : i32 to f32
  %r = arith.mulf %f, %s : f32
  return %r : f32
}
