// RUN: --passes=kernel-pack-weights
// kernel-pack-weights: B is a constant global read transposed (Gemm's transB): its 3x2 data
// (1 2 / 3 4 / 5 6) is stored as the 2x3 matrix (1 3 5 / 2 4 6) in a new global, read without
// transpose_b; the original global, read by nothing else, goes.

// CHECK: memref.global"() {constant, initial_value = dense<"0x0000803F000040400000A04000000040000080400000C040"> : tensor<24xi8>, sym_name = "w_packed", sym_visibility = "private", type = memref<2x3xf32>}
// CHECK-LABEL: func.func @gemm_transb
// CHECK-NEXT: [[B:%[0-9]+]] = memref.get_global @w_packed : memref<2x3xf32>
// CHECK-NEXT: kernel.matmul ins(%arg0, [[B]] : memref<4x2xf32>, memref<2x3xf32>) outs(%arg1 : memref<4x3xf32>){{$}}
// CHECK-NOT: transpose_b
// CHECK-NOT: sym_name = "w",
memref.global "private" constant @w : memref<3x2xf32> = dense<"0x0000803F0000004000004040000080400000A0400000C040"> : tensor<24xi8>
func.func @gemm_transb(%a: memref<4x2xf32>, %c: memref<4x3xf32>) {
  %b = memref.get_global @w : memref<3x2xf32>
  kernel.matmul ins(%a, %b : memref<4x2xf32>, memref<3x2xf32>) outs(%c : memref<4x3xf32>) {transpose_b}
  return
}
