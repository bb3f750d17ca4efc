// RUN: --passes=kernel-pack-weights
// kernel-pack-weights: B is a constant global read transposed (Gemm's transB): its 3x2 data
// (1 2 / 3 4 / 5 6) is the 2x3 matrix (1 3 5 / 2 4 6); the micro-kernel runs this matmul, so it
// is stored as one column panel of 16 ([1, K = 2, 16]: 1 3 5 then zeros, 2 4 6 then zeros) in a
// new global, read without transpose_b and with b_panels = 16; the original global, read by
// nothing else, goes.

// CHECK: memref.global"() {constant, initial_value = dense<"0x0000803F000040400000A0400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040000080400000C04000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<128xi8>, sym_name = "w_packed_panels", sym_visibility = "private", type = memref<1x2x16xf32>}
// CHECK-LABEL: func.func @gemm_transb
// CHECK-NEXT: [[B:%[0-9]+]] = memref.get_global @w_packed_panels : memref<1x2x16xf32>
// CHECK-NEXT: kernel.matmul ins(%arg0, [[B]] : memref<4x2xf32>, memref<1x2x16xf32>) outs(%arg1 : memref<4x3xf32>) {b_panels = 16}{{$}}
// CHECK-NOT: transpose_b
// CHECK-NOT: sym_name = "w",
memref.global "private" constant @w : memref<3x2xf32> = dense<"0x0000803F0000004000004040000080400000A0400000C040"> : tensor<24xi8>
func.func @gemm_transb(%a: memref<4x2xf32>, %c: memref<4x3xf32>) {
  %b = memref.get_global @w : memref<3x2xf32>
  kernel.matmul ins(%a, %b : memref<4x2xf32>, memref<3x2xf32>) outs(%c : memref<4x3xf32>) {transpose_b}
  return
}

// With alpha = 2 the matmul is a loop over dot products, not the micro-kernel: B is only
// stored untransposed.
// CHECK: memref.global"() {constant, initial_value = dense<"0x0000803F000040400000A04000000040000080400000C040"> : tensor<24xi8>, sym_name = "v_packed", sym_visibility = "private", type = memref<2x3xf32>}
// CHECK-LABEL: func.func @scaled
// CHECK-NEXT: [[V:%[0-9]+]] = memref.get_global @v_packed : memref<2x3xf32>
// CHECK-NEXT: kernel.matmul ins(%arg0, [[V]] : memref<4x2xf32>, memref<2x3xf32>) outs(%arg1 : memref<4x3xf32>) {alpha = 2.0 : f32}
memref.global "private" constant @v : memref<3x2xf32> = dense<"0x0000803F0000004000004040000080400000A0400000C040"> : tensor<24xi8>
func.func @scaled(%a: memref<4x2xf32>, %c: memref<4x3xf32>) {
  %b = memref.get_global @v : memref<3x2xf32>
  kernel.matmul ins(%a, %b : memref<4x2xf32>, memref<3x2xf32>) outs(%c : memref<4x3xf32>) {transpose_b, alpha = 2.0 : f32}
  return
}
