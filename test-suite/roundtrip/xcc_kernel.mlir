// The kernel dialect's custom forms: kernel.generic with a reduction loop and kernel.index,
// kernel.matmul with every epilogue operand and attribute, kernel.conv (also with Winograd-transformed
// weights and a batch known at run time), kernel.copy, kernel.conv_planes and
// kernel.matmul_blockwise and kernel.attention (generic forms) and kernel.workspace_size. xcc-only (no `// upstream` line): mlir-opt does not know the dialect.
func.func @kernels(%a: memref<2x4x8xf32>, %b: memref<8x16xf32>, %bias: memref<1x16xf32>, %r: memref<2x4x16xf32>, %y: memref<2x4x16xf32>, %x: memref<1x4x8x8xf32>, %w: memref<6x2x3x3xf32>, %cb: memref<6xf32>, %z: memref<1x6x4x4xf32>, %s: memref<2x4xf32>, %u: memref<4x4x6x4xf32>, %zw: memref<?x6x8x8xf32>, %xw: memref<?x4x8x8xf32>) {
  kernel.matmul ins(%a, %b : memref<2x4x8xf32>, memref<8x16xf32>) bias(%bias : memref<1x16xf32>) residual(%r : memref<2x4x16xf32>) outs(%y : memref<2x4x16xf32>) {act_max = 6.0 : f32, act_min = 0.0 : f32, alpha = 0.5 : f32, beta = 2.0 : f32}
  kernel.conv ins(%x, %w : memref<1x4x8x8xf32>, memref<6x2x3x3xf32>) bias(%cb : memref<6xf32>) outs(%z : memref<1x6x4x4xf32>) {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}
  kernel.conv ins(%xw, %u : memref<?x4x8x8xf32>, memref<4x4x6x4xf32>) bias(%cb : memref<6xf32>) outs(%zw : memref<?x6x8x8xf32>) {act_min = 0.0 : f32, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, winograd = 2 : i64}
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a : memref<2x4x8xf32>) outs(%s : memref<2x4xf32>) {
  ^bb0(%e: f32, %acc: f32):
    %k = kernel.index 2 : index
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f32
    %p = arith.mulf %e, %kf : f32
    %n = arith.addf %acc, %p : f32
    kernel.yield %n : f32
  }
  %flat = memref.alloc() : memref<64xf32>
  kernel.copy ins(%a : memref<2x4x8xf32>) outs(%flat : memref<64xf32>)
  memref.dealloc %flat : memref<64xf32>
  return
}
func.func @size() -> index {
  %n = "kernel.workspace_size"() {function = @kernels} : () -> index
  return %n : index
}

func.func @planes(%x: memref<1x4x136x4xi8>, %w: memref<8x2x8xi8>, %y: memref<1x8x100xi32>) {
  "kernel.conv_planes"(%x, %w, %y) {input_unsigned, tap_offsets = array<i64: 0, 9>, tap_quads = array<i64: 0, 2>} : (memref<1x4x136x4xi8>, memref<8x2x8xi8>, memref<1x8x100xi32>) -> ()
  return
}

func.func @blockwise(%a: memref<?x100xf32>, %q: memref<2x512xi8>, %s: memref<2x32xf32>, %z: memref<2x32xi8>, %y: memref<?x13xf32>) {
  "kernel.matmul_blockwise"(%a, %q, %s, %z, %y) {block_size = 32 : i64, byte_dots = "none", int8_activations, pair_products} : (memref<?x100xf32>, memref<2x512xi8>, memref<2x32xf32>, memref<2x32xi8>, memref<?x13xf32>) -> ()
  return
}

func.func @attention(%q: memref<?x8x1x64xf32>, %k: memref<?x2x?x64xf32>, %v: memref<?x2x?x64xf32>, %bias: memref<?x1x1x?xf32>, %y: memref<?x8x1x64xf32>) {
  "kernel.attention"(%q, %k, %v, %bias, %y) {scale = 1.250000e-01 : f32} : (memref<?x8x1x64xf32>, memref<?x2x?x64xf32>, memref<?x2x?x64xf32>, memref<?x1x1x?xf32>, memref<?x8x1x64xf32>) -> ()
  return
}
