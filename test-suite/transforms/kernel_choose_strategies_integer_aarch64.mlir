// RUN: --target=aarch64 --mattr=+dotprod,+i8mm --passes=kernel-choose-strategies
// An integer matmul on AArch64 with FEAT_DotProd and FEAT_I8MM: its quads multiply with `udot`,
// `sdot` and `usdot` (`byte_dots = "neon_i8mm"`), whatever the signs; no pair products (x86's).

// CHECK: kernel.matmul {{.*}}memref<4x16xi32>) {a_unsigned, byte_dots = "neon_i8mm"}{{$}}
func.func @products(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>) {
  kernel.matmul ins(%a, %b : memref<4x8xi8>, memref<8x16xi8>) outs(%c : memref<4x16xi32>) {a_unsigned}
  return
}
