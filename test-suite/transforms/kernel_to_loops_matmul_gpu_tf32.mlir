// RUN: --target=nvptx64 --gpu-gemm=tiled --tf32 --passes=kernel-to-loops
// kernel.matmul to loops on GPUs, tiled through shared memory, the products on tensor cores
// (--tf32): the slices' rows are 68 floats (wmma reads rows 16 bytes apart), and a 64 x 68 C
// tile lies over them (17408 bytes in all). Each thread starts a warp's two 16 x 16 sums at 0
// and carries them through the K loop; per 16-deep slice: copy, barrier, then for each 8-deep
// half an A fragment read transposed (the slice is a[k][i]) and two B fragments, multiplied into
// the two sums, and a barrier. The sums are stored to the C tile, a barrier, and each thread
// reads its 4 x 4 outputs back, then a barrier (a block with a next tile copies its slices over
// the C tile), then the bias, ReLU and store inside the matrix.

// CHECK-LABEL: func.func @mm_f32
// CHECK: [[SHARED:%[0-9]+]] = gpu.dynamic_shared_memory : memref<17408xi8, #gpu.address_space<workgroup>>
// CHECK: [[A:%[0-9]+]] = memref.view [[SHARED]][{{%[0-9]+}}][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<16x68xf32, #gpu.address_space<workgroup>>
// CHECK: [[B:%[0-9]+]] = memref.view [[SHARED]][{{%[0-9]+}}][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<16x68xf32, #gpu.address_space<workgroup>>
// CHECK: [[C:%[0-9]+]] = memref.view [[SHARED]][{{%[0-9]+}}][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<64x68xf32, #gpu.address_space<workgroup>>
// CHECK: scf.parallel
// CHECK: [[ZERO:%[0-9]+]] = gpu.subgroup_mma_constant_matrix {{%[0-9]+}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: [[SUMS:%[0-9]+]]:2 = scf.for {{.*}} iter_args([[S0:%[0-9]+]] = [[ZERO]], [[S1:%[0-9]+]] = [[ZERO]])
// CHECK: gpu.barrier
// CHECK: [[A0:%[0-9]+]] = gpu.subgroup_mma_load_matrix [[A]][{{%[0-9]+}}, {{%[0-9]+}}] {leadDimension = 68 : index, transpose} : memref<16x68xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x8xf32, "AOp">
// CHECK-NEXT: [[B0:%[0-9]+]] = gpu.subgroup_mma_load_matrix [[B]][{{%[0-9]+}}, {{%[0-9]+}}] {leadDimension = 68 : index} : memref<16x68xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<8x16xf32, "BOp">
// CHECK-NEXT: [[P0:%[0-9]+]] = gpu.subgroup_mma_compute [[A0]], [[B0]], [[S0]] {a_transpose}
// CHECK-NEXT: [[B1:%[0-9]+]] = gpu.subgroup_mma_load_matrix [[B]]
// CHECK-NEXT: [[P1:%[0-9]+]] = gpu.subgroup_mma_compute [[A0]], [[B1]], [[S1]] {a_transpose}
// CHECK: [[A1:%[0-9]+]] = gpu.subgroup_mma_load_matrix [[A]]
// CHECK: [[Q0:%[0-9]+]] = gpu.subgroup_mma_compute [[A1]], {{%[0-9]+}}, [[P0]] {a_transpose}
// CHECK: [[Q1:%[0-9]+]] = gpu.subgroup_mma_compute [[A1]], {{%[0-9]+}}, [[P1]] {a_transpose}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.yield [[Q0]], [[Q1]]
// CHECK: gpu.subgroup_mma_store_matrix [[SUMS]]#0, [[C]][{{%[0-9]+}}, {{%[0-9]+}}] {leadDimension = 68 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x68xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.subgroup_mma_store_matrix [[SUMS]]#1, [[C]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-16: memref.load [[C]]
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK: arith.maximumf
// CHECK: memref.store
// CHECK: } {xcc.gpu_threads}
// CHECK: } {xcc.gpu_blocks}
// CHECK-NOT: kernel.matmul
func.func @mm_f32(%a: memref<70x40xf32>, %b: memref<40x33xf32>, %bias: memref<1x33xf32>, %c: memref<70x33xf32>) {
  "kernel.matmul"(%a, %b, %bias, %c) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, act_min = 0.0 : f32} : (memref<70x40xf32>, memref<40x33xf32>, memref<1x33xf32>, memref<70x33xf32>) -> ()
  return
}
