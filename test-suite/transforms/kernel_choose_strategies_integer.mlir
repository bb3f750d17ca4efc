// RUN: --passes=kernel-choose-strategies
// An integer matmul on x86-64's default build: no byte dot products every copy has (AVX-512 VNNI
// is not in the baseline), so `kernel-pack-weights` will widen its constant B to i16, and the
// copies for CPUs with AVX2 multiply those as 16-bit pairs (`pair_products`). Its f32 neighbour
// records the GEMM's register tiles instead.

// CHECK-LABEL: func.func @products
// CHECK: kernel.matmul {{.*}}memref<4x16xi32>) {a_unsigned, byte_dots = "none", pair_products}
// CHECK: kernel.matmul {{.*}}memref<4x16xf32>) {register_tiles =
func.func @products(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>, %fa: memref<4x8xf32>, %fb: memref<8x16xf32>, %fc: memref<4x16xf32>) {
  kernel.matmul ins(%a, %b : memref<4x8xi8>, memref<8x16xi8>) outs(%c : memref<4x16xi32>) {a_unsigned}
  kernel.matmul ins(%fa, %fb : memref<4x8xf32>, memref<8x16xf32>) outs(%fc : memref<4x16xf32>)
  return
}
