// RUN: --target=nvptx64 --tf32 --passes=kernel-choose-strategies
// With --tf32 the tiled GEMMs multiply on tensor cores, which the choice records; the others are
// chosen as without it.

// CHECK: kernel.matmul {{.*}}memref<1024x1024xf32>) {gpu_strategy = "tiled_gemm", tensor_cores}
// CHECK: kernel.matmul {{.*}}memref<8x8xf32>) {gpu_strategy = "split_k", splits = 256}
func.func @gemms(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>, %c: memref<1024x1024xf32>, %ka: memref<8x4096xf32>, %kb: memref<4096x8xf32>, %kc: memref<8x8xf32>) {
  kernel.matmul ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>) outs(%c : memref<1024x1024xf32>)
  kernel.matmul ins(%ka, %kb : memref<8x4096xf32>, memref<4096x8xf32>) outs(%kc : memref<8x8xf32>)
  return
}
