// RUN: --passes=kernel-to-loops
// kernel.matmul to loops: f32 with B's rows contiguous runs the register-tiled micro-kernel: one
// parallel loop over (column tile of 16, row tile of 6), here 2 x 1 (vector<16xf32> accumulators,
// one per row, carried through the k loop: one vector load of B, six broadcasts of A, six FMAs),
// then the epilogue (bias row, ReLU) on the accumulators before one vector store per row; the 2
// rows left over are one 2-row tile per column tile. Integers take the general path: a parallel
// loop over the output with a dot product inside.

// CHECK-LABEL: func.func @mm_f32
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) = ({{%[0-9]+}}, {{%[0-9]+}}) to ({{%[0-9]+}}, {{%[0-9]+}})
// CHECK: {{%[0-9]+}}:6 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: [[B:%[0-9]+]] = vector.load {{%[0-9]+}}[{{%[0-9]+}}] : memref<512xf32>, vector<16xf32>
// CHECK: [[A:%[0-9]+]] = vector.broadcast {{%[0-9]+}} : f32 to vector<16xf32>
// CHECK-NEXT: vector.fma [[A]], [[B]], {{%[0-9]+}} : vector<16xf32>
// CHECK: scf.yield
// CHECK: [[BIAS:%[0-9]+]] = vector.load {{%[0-9]+}}[{{%[0-9]+}}] : memref<32xf32>, vector<16xf32>
// CHECK-NEXT: [[WITH_BIAS:%[0-9]+]] = arith.addf {{%[0-9]+}}#0, [[BIAS]] : vector<16xf32>
// CHECK-NEXT: [[Z:%[0-9]+]] = arith.constant dense<0.0> : vector<16xf32>
// CHECK-NEXT: [[RELU:%[0-9]+]] = arith.maximumf [[WITH_BIAS]], [[Z]] : vector<16xf32>
// CHECK: vector.store [[RELU]], {{%[0-9]+}}[{{%[0-9]+}}] : memref<256xf32>, vector<16xf32>
// CHECK: scf.parallel ({{%[0-9]+}}) =
// CHECK: {{%[0-9]+}}:2 = scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: kernel.matmul
func.func @mm_f32(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %bias: memref<1x32xf32>, %c: memref<8x32xf32>) {
  "kernel.matmul"(%a, %b, %bias, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, act_min = 0.0 : f32} : (memref<8x16xf32>, memref<16x32xf32>, memref<1x32xf32>, memref<8x32xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @mm_i32
// CHECK: scf.parallel ([[I:%[0-9]+]], [[J:%[0-9]+]])
// CHECK: scf.for {{.*}} iter_args([[ACC:%[0-9]+]] = {{%[0-9]+}}) -> (i32) {
// CHECK: [[P:%[0-9]+]] = arith.muli {{%[0-9]+}}, {{%[0-9]+}} : i32
// CHECK-NEXT: [[S:%[0-9]+]] = arith.addi [[P]], [[ACC]] : i32
// CHECK-NEXT: scf.yield [[S]] : i32
// CHECK-NOT: vector.
func.func @mm_i32(%a: memref<2x3xi32>, %b: memref<3x2xi32>, %c: memref<2x2xi32>) {
  "kernel.matmul"(%a, %b, %c) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>} : (memref<2x3xi32>, memref<3x2xi32>, memref<2x2xi32>) -> ()
  return
}
