// RUN: --target=nvptx64 --passes=kernel-choose-strategies
// kernel-choose-strategies for an NVIDIA GPU: a GEMM with enough tiles to fill the GPU is tiled
// through shared memory (the 8-image 3x3 convolution as an implicit GEMM, the 1024^3 matmul);
// one whose outputs are too few splits its sums over K (the 7x7 convolution over 256 channels
// in 16 runs, the 8x8 matmul over K = 4096 in 256); the others take a thread per output, or per
// 4 output channels where the outputs may be many (a batch known only at run time).

// CHECK-LABEL: func.func @convs
// CHECK: kernel.conv {{.*}}memref<8x64x56x56xf32>) {dilations = array<i64: 1, 1>, gpu_strategy = "tiled_gemm", group = 1,
// CHECK: kernel.conv {{.*}}memref<1x32x7x7xf32>) {dilations = array<i64: 1, 1>, gpu_strategy = "split_k", group = 1, pads = array<i64: 1, 1, 1, 1>, splits = 16,
// CHECK: kernel.conv {{.*}}memref<?x8x8x8xf32>) {{.*}}gpu_strategy = "direct", {{.*}}thread_tile = 4}
// CHECK-LABEL: func.func @gemms
// CHECK: kernel.matmul {{.*}}memref<1024x1024xf32>) {gpu_strategy = "tiled_gemm"}
// CHECK: kernel.matmul {{.*}}memref<4x3xf32>) {gpu_strategy = "direct", thread_tile = 1}
// CHECK: kernel.matmul {{.*}}memref<8x8xf32>) {gpu_strategy = "split_k", splits = 256}
func.func @convs(%x: memref<8x64x56x56xf32>, %w: memref<64x64x3x3xf32>, %y: memref<8x64x56x56xf32>, %xs: memref<1x256x7x7xf32>, %ws: memref<32x256x3x3xf32>, %ys: memref<1x32x7x7xf32>, %xd: memref<?x8x8x8xf32>, %wd: memref<8x8x1x1xf32>, %yd: memref<?x8x8x8xf32>) {
  kernel.conv ins(%x, %w : memref<8x64x56x56xf32>, memref<64x64x3x3xf32>) outs(%y : memref<8x64x56x56xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
  kernel.conv ins(%xs, %ws : memref<1x256x7x7xf32>, memref<32x256x3x3xf32>) outs(%ys : memref<1x32x7x7xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64}
  kernel.conv ins(%xd, %wd : memref<?x8x8x8xf32>, memref<8x8x1x1xf32>) outs(%yd : memref<?x8x8x8xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
  return
}
func.func @gemms(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>, %sa: memref<4x2xf32>, %sb: memref<2x3xf32>, %sc: memref<4x3xf32>, %ka: memref<8x4096xf32>, %kb: memref<4096x8xf32>, %kc: memref<8x8xf32>) {
  kernel.matmul ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>)
  kernel.matmul ins(%sa, %sb : memref<4x2xf32>, memref<2x3xf32>) outs(%sc : memref<4x3xf32>)
  kernel.matmul ins(%ka, %kb : memref<8x4096xf32>, memref<4096x8xf32>) outs(%kc : memref<8x8xf32>)
  return
}
