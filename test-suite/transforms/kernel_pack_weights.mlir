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

// An integer convolution's constant byte weights, on a CPU without byte dot products (no
// --mcpu here: the dispatched library), widen to i16 for the 16-bit pair products: signed bytes
// 01 FF 80 7F are 1, -1, -128, 127; unsigned ones (weights_unsigned, dropped: i16 weights are
// their values) FF 80 01 00 are 255, 128, 1, 0.
// CHECK: memref.global"() {constant, initial_value = dense<"0x0100FFFF80FF7F00"> : tensor<8xi8>, sym_name = "q_i16", sym_visibility = "private", type = memref<1x1x4xi16>}
// CHECK: memref.global"() {constant, initial_value = dense<"0xFF00800001000000"> : tensor<8xi8>, sym_name = "u_i16", sym_visibility = "private", type = memref<1x1x4xi16>}
// CHECK-LABEL: func.func @planes
// CHECK-NEXT: [[Q:%[0-9]+]] = memref.get_global @q_i16 : memref<1x1x4xi16>
// CHECK-NEXT: "kernel.conv_planes"(%arg0, [[Q]], %arg1) {input_unsigned, tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>}
// CHECK: [[U:%[0-9]+]] = memref.get_global @u_i16 : memref<1x1x4xi16>
// CHECK-NEXT: "kernel.conv_planes"(%arg0, [[U]], %arg2) {input_unsigned, tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>}
memref.global "private" constant @q : memref<1x1x4xi8> = dense<"0x01FF807F"> : tensor<4xi8>
memref.global "private" constant @u : memref<1x1x4xi8> = dense<"0xFF800100"> : tensor<4xi8>
func.func @planes(%x: memref<1x1x16x4xi8>, %y: memref<1x1x16xi32>, %z: memref<1x1x16xi32>) {
  %q = memref.get_global @q : memref<1x1x4xi8>
  "kernel.conv_planes"(%x, %q, %y) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>, input_unsigned} : (memref<1x1x16x4xi8>, memref<1x1x4xi8>, memref<1x1x16xi32>) -> ()
  %u = memref.get_global @u : memref<1x1x4xi8>
  "kernel.conv_planes"(%x, %u, %z) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>, input_unsigned, weights_unsigned} : (memref<1x1x16x4xi8>, memref<1x1x4xi8>, memref<1x1x16xi32>) -> ()
  return
}

// An integer matmul's constant B (K = 2 by N = 3: 1 -1 2 / 3 4 -128), on the same CPU, is laid
// out in quads of k per column and widened to i16: column 0 is 1 3 0 0, column 1 -1 4 0 0,
// column 2 2 -128 0 0, then 13 columns of zeros to the panel's 16.
// CHECK: memref.global"() {constant, initial_value = dense<"0x0100030000000000FFFF040000000000020080FF00000000{{0+}}"> : tensor<128xi8>, sym_name = "bq_quads_i16", sym_visibility = "private", type = memref<1x1x16x4xi16>}
// CHECK-LABEL: func.func @qmm
// CHECK-NEXT: [[BQ:%[0-9]+]] = memref.get_global @bq_quads_i16 : memref<1x1x16x4xi16>
// CHECK-NEXT: kernel.matmul ins(%arg0, [[BQ]] : memref<4x2xi8>, memref<1x1x16x4xi16>) outs(%arg1 : memref<4x3xi32>) {a_unsigned, b_quads = 16}
memref.global "private" constant @bq : memref<2x3xi8> = dense<"0x01FF02030480"> : tensor<6xi8>
func.func @qmm(%a: memref<4x2xi8>, %c: memref<4x3xi32>) {
  %b = memref.get_global @bq : memref<2x3xi8>
  kernel.matmul ins(%a, %b : memref<4x2xi8>, memref<2x3xi8>) outs(%c : memref<4x3xi32>) {a_unsigned}
  return
}
