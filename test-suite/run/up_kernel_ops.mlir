// The kernel level from MLIR text, through the default pipeline (kernel-to-loops, then the
// conversions), checked against plain C loops in up_kernel_ops.c: an f32 matmul with a bias row
// and ReLU on the micro-kernel (5 x 19, so ragged row and column tiles), an i32 matmul with a
// transposed B on the general path, a row-sum reduction, an f32 3x3 convolution with padding,
// stride 2, bias and residual (im2col), an i32 convolution (the direct path) and a reshape copy.
// stdout: matmul_f32 ok
// stdout: matmul_i32 ok
// stdout: row_sums ok
// stdout: conv_f32 ok
// stdout: conv_i32 ok
// stdout: copy ok
func.func @matmul_f32(%a: memref<5x7xf32>, %b: memref<7x19xf32>, %bias: memref<1x19xf32>, %c: memref<5x19xf32>) attributes {llvm.emit_c_interface} {
  "kernel.matmul"(%a, %b, %bias, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, act_min = 0.0 : f32} : (memref<5x7xf32>, memref<7x19xf32>, memref<1x19xf32>, memref<5x19xf32>) -> ()
  return
}
func.func @matmul_i32(%a: memref<3x4xi32>, %b: memref<2x4xi32>, %c: memref<3x2xi32>) attributes {llvm.emit_c_interface} {
  "kernel.matmul"(%a, %b, %c) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, transpose_b} : (memref<3x4xi32>, memref<2x4xi32>, memref<3x2xi32>) -> ()
  return
}
func.func @row_sums(%x: memref<3x5xf32>, %y: memref<3xf32>) attributes {llvm.emit_c_interface} {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<3x5xf32>) outs(%y : memref<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    kernel.yield %s : f32
  }
  return
}
func.func @conv_f32(%x: memref<1x3x7x7xf32>, %w: memref<4x3x3x3xf32>, %b: memref<4xf32>, %r: memref<1x4x4x4xf32>, %y: memref<1x4x4x4xf32>) attributes {llvm.emit_c_interface} {
  "kernel.conv"(%x, %w, %b, %r, %y) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<1x3x7x7xf32>, memref<4x3x3x3xf32>, memref<4xf32>, memref<1x4x4x4xf32>, memref<1x4x4x4xf32>) -> ()
  return
}
func.func @conv_i32(%x: memref<1x2x5x5xi32>, %w: memref<2x1x3x3xi32>, %y: memref<1x2x3x3xi32>) attributes {llvm.emit_c_interface} {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (memref<1x2x5x5xi32>, memref<2x1x3x3xi32>, memref<1x2x3x3xi32>) -> ()
  return
}
func.func @copy(%x: memref<2x3x4xf32>, %y: memref<6x4xf32>) attributes {llvm.emit_c_interface} {
  "kernel.copy"(%x, %y) : (memref<2x3x4xf32>, memref<6x4xf32>) -> ()
  return
}
