// A convolution's ReLU6 epilogue (`act_min = 0`, `act_max = 6`) is `minimumf(maximumf(v, 0),
// 6)`: a NaN stays NaN, `-0` becomes `+0`, infinities clamp. On x86 it is computed as selects
// (one vmaxps / vminps each, and an add of +0 for the sign of zero), elsewhere with LLVM's
// intrinsics (this test also runs for aarch64 and riscv64 under qemu); checked bit by bit
// in up_kernel_clamps.c against those definitions, on a depthwise 1x1 convolution (its sums
// start from the bias, so a bias of -0 and products of -0 reach the clamp as -0) over rows of
// 19 columns (a vector and a masked one), and on the vector path with `act_max = -0` (kept a
// `minimumf`: the select would keep +0).
// stdout: relu6 ok
// stdout: below_negative_zero ok
func.func @relu6(%x: memref<1x2x1x19xf32>, %w: memref<2x1x1x1xf32>, %b: memref<2xf32>, %y: memref<1x2x1x19xf32>) attributes {llvm.emit_c_interface} {
  "kernel.conv"(%x, %w, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64, act_min = 0.0 : f32, act_max = 6.0 : f32} : (memref<1x2x1x19xf32>, memref<2x1x1x1xf32>, memref<2xf32>, memref<1x2x1x19xf32>) -> ()
  return
}
func.func @below_negative_zero(%x: memref<1x2x1x19xf32>, %w: memref<2x1x1x1xf32>, %b: memref<2xf32>, %y: memref<1x2x1x19xf32>) attributes {llvm.emit_c_interface} {
  "kernel.conv"(%x, %w, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64, act_max = -0.0 : f32} : (memref<1x2x1x19xf32>, memref<2x1x1x1xf32>, memref<2xf32>, memref<1x2x1x19xf32>) -> ()
  return
}
