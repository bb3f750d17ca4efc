// RUN: --target=aarch64 --passes=kernel-choose-strategies
// kernel-choose-strategies for AArch64: its one register tile, 6 rows by one vector of 16 lanes
// for every CPU (no branch on the level); the convolutions' strategies as on x86-64.

// CHECK-LABEL: func.func @convs
// CHECK: kernel.conv {{.*}}group = 1, l2_cache_bytes = 1048576, pads = array<i64: 0, 0, 0, 0>, register_tiles = array<i64: 0, 6, 1>, strategy = "im2col",
// CHECK: kernel.conv {{.*}}group = 4, l2_cache_bytes = 1048576, pads = array<i64: 1, 1, 1, 1>, register_tiles = array<i64: 0, 6, 1>, strategy = "depthwise",
// CHECK: kernel.conv {{.*}}xi32>) {dilations = array<i64: 1, 1>, group = 1, pads = array<i64: 0, 0, 0, 0>, strategy = "direct",
// CHECK-LABEL: func.func @gemm
// CHECK: kernel.matmul {{.*}} {register_tiles = array<i64: 0, 6, 1>}{{$}}
func.func @convs(%x: memref<1x4x8x8xf32>, %w: memref<4x4x1x1xf32>, %dw: memref<4x1x3x3xf32>, %y: memref<1x4x8x8xf32>, %xi: memref<1x4x8x8xi32>, %wi: memref<4x4x1x1xi32>, %yi: memref<1x4x8x8xi32>) {
  kernel.conv ins(%x, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%y : memref<1x4x8x8xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
  kernel.conv ins(%x, %dw : memref<1x4x8x8xf32>, memref<4x1x3x3xf32>) outs(%y : memref<1x4x8x8xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 4 : i64}
  kernel.conv ins(%xi, %wi : memref<1x4x8x8xi32>, memref<4x4x1x1xi32>) outs(%yi : memref<1x4x8x8xi32>) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
  return
}
func.func @gemm(%a: memref<4x2xf32>, %b: memref<2x3xf32>, %c: memref<4x3xf32>) {
  kernel.matmul ins(%a, %b : memref<4x2xf32>, memref<2x3xf32>) outs(%c : memref<4x3xf32>)
  return
}
