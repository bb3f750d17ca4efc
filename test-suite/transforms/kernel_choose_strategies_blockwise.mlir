// RUN: --passes=kernel-choose-strategies
// Block-quantized matmuls on x86-64's default build: with int8 activations (MatMulNBits'
// accuracy_level 4) the integer products are VNNI's, the best copy's (the kernel tests the level
// for them, the weights being the same bytes either way), with 16-bit pair sums in the copies
// below it for CPUs with AVX2; in float arithmetic nothing is chosen.

// CHECK-LABEL: func.func @blockwise
// CHECK: "kernel.matmul_blockwise"{{.*}}byte_dots = "vnni", int8_activations, pair_products}
// CHECK: "kernel.matmul_blockwise"{{.*}}{block_size = 32} :
func.func @blockwise(%a: memref<1x64xf32>, %q: memref<1x256xi8>, %s: memref<1x16xf32>, %z: memref<1x16xi8>, %y: memref<1x8xf32>) {
  "kernel.matmul_blockwise"(%a, %q, %s, %z, %y) {block_size = 32 : i64, int8_activations} : (memref<1x64xf32>, memref<1x256xi8>, memref<1x16xf32>, memref<1x16xi8>, memref<1x8xf32>) -> ()
  "kernel.matmul_blockwise"(%a, %q, %s, %z, %y) {block_size = 32 : i64} : (memref<1x64xf32>, memref<1x256xi8>, memref<1x16xf32>, memref<1x16xi8>, memref<1x8xf32>) -> ()
  return
}
