// The kernel level with dims known only at run time (`?`), through the default pipeline,
// checked against plain C loops in up_kernel_dynamic.c at several sizes: an elementwise generic
// and a reduction over dynamic loops, a copy between dynamic shapes, an f32 matmul on the
// micro-kernel with M dynamic (full, ragged and empty row tiles), a batched one whose dynamic
// batch folds into M, an i32 matmul with every dim dynamic and B transposed (the general path),
// and a function whose intermediate buffers have run-time sizes, placed in the caller's
// workspace by plan-workspace, with the workspace size computed from the sizes; and a 3x3
// convolution (im2col and the micro-kernel) over a batch known only at run time, one image
// after another.
// stdout: scale ok
// stdout: row_sums ok
// stdout: copy ok
// stdout: matmul_rows ok
// stdout: matmul_batch ok
// stdout: matmul_general ok
// stdout: workspace ok
// stdout: conv_batch ok
func.func @scale(%x: memref<?x5xf32>, %y: memref<?x5xf32>) attributes {llvm.emit_c_interface} {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x5xf32>) outs(%y : memref<?x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %m = arith.mulf %a, %two : f32
    %s = arith.addf %m, %one : f32
    kernel.yield %s : f32
  }
  return
}
func.func @row_sums(%x: memref<?x?xf32>, %y: memref<?xf32>) attributes {llvm.emit_c_interface} {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    kernel.yield %s : f32
  }
  return
}
func.func @copy(%x: memref<?x3x4xf32>, %y: memref<?x12xf32>) attributes {llvm.emit_c_interface} {
  "kernel.copy"(%x, %y) : (memref<?x3x4xf32>, memref<?x12xf32>) -> ()
  return
}
func.func @matmul_rows(%a: memref<?x7xf32>, %b: memref<7x19xf32>, %bias: memref<1x19xf32>, %c: memref<?x19xf32>) attributes {llvm.emit_c_interface} {
  "kernel.matmul"(%a, %b, %bias, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, act_min = 0.0 : f32} : (memref<?x7xf32>, memref<7x19xf32>, memref<1x19xf32>, memref<?x19xf32>) -> ()
  return
}
func.func @matmul_batch(%a: memref<?x3x7xf32>, %b: memref<7x16xf32>, %c: memref<?x3x16xf32>) attributes {llvm.emit_c_interface} {
  "kernel.matmul"(%a, %b, %c) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>} : (memref<?x3x7xf32>, memref<7x16xf32>, memref<?x3x16xf32>) -> ()
  return
}
func.func @matmul_general(%a: memref<?x?xi32>, %b: memref<?x?xi32>, %c: memref<?x?xi32>) attributes {llvm.emit_c_interface} {
  "kernel.matmul"(%a, %b, %c) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, transpose_b} : (memref<?x?xi32>, memref<?x?xi32>, memref<?x?xi32>) -> ()
  return
}
// y = relu(x * w) + 1, through two intermediate buffers of n rows and one static one.
func.func @two_steps(%n: index, %x: memref<?x7xf32>, %w: memref<7x19xf32>, %y: memref<?x19xf32>, %ws: !llvm.ptr) attributes {llvm.emit_c_interface, xcc.workspace = 4 : i64} {
  %t = memref.alloc(%n) {alignment = 64 : i64} : memref<?x19xf32>
  %u = memref.alloc(%n) {alignment = 64 : i64} : memref<?x19xf32>
  %ones = memref.alloc() {alignment = 64 : i64} : memref<19xf32>
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%ones : memref<19xf32>) {
  ^bb0(%o: f32):
    %one = arith.constant 1.0 : f32
    kernel.yield %one : f32
  }
  "kernel.matmul"(%x, %w, %t) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, act_min = 0.0 : f32} : (memref<?x7xf32>, memref<7x19xf32>, memref<?x19xf32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %ones : memref<?x19xf32>, memref<19xf32>) outs(%u : memref<?x19xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    kernel.yield %s : f32
  }
  "kernel.copy"(%u, %y) : (memref<?x19xf32>, memref<?x19xf32>) -> ()
  memref.dealloc %t : memref<?x19xf32>
  memref.dealloc %u : memref<?x19xf32>
  memref.dealloc %ones : memref<19xf32>
  return
}
func.func @two_steps_workspace(%n: index) -> index attributes {llvm.emit_c_interface} {
  %s = "kernel.workspace_size"(%n) {function = @two_steps} : (index) -> index
  return %s : index
}
func.func @conv_batch(%x: memref<?x2x5x5xf32>, %w: memref<3x2x3x3xf32>, %y: memref<?x3x5x5xf32>) attributes {llvm.emit_c_interface} {
  "kernel.conv"(%x, %w, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<?x2x5x5xf32>, memref<3x2x3x3xf32>, memref<?x3x5x5xf32>) -> ()
  return
}
