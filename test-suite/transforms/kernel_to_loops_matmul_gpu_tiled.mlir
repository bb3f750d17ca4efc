// RUN: --target=nvptx64 --gpu-gemm=tiled --passes=kernel-to-loops
// kernel.matmul to loops on GPUs, tiled through shared memory: a parallel loop over the 2 x 1
// tiles of 64 x 64 outputs (xcc.gpu_blocks) stages 16-deep slices of A and B in the block's
// 8320 bytes of shared memory (rows padded by a word) and holds a parallel loop over its 256
// threads (xcc.gpu_threads), each carrying 4 x 4 sums through the K loop: copy the slices
// (clamped loads, zeros past the edges), barrier, 16 x 16 fused multiply-adds from shared
// memory, barrier. Then the bias and ReLU of each output inside the matrix, and its store.

// CHECK-LABEL: func.func @mm_f32
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) = ({{%[0-9]+}}, {{%[0-9]+}}) to ([[TM:%[0-9]+]], [[TN:%[0-9]+]])
// CHECK: [[SHARED:%[0-9]+]] = gpu.dynamic_shared_memory : memref<8320xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view [[SHARED]][{{%[0-9]+}}][] : memref<8320xi8, #gpu.address_space<workgroup>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK: memref.view [[SHARED]][{{%[0-9]+}}][] : memref<8320xi8, #gpu.address_space<workgroup>> to memref<16x65xf32, #gpu.address_space<workgroup>>
// CHECK: scf.parallel ([[T:%[0-9]+]]) = ({{%[0-9]+}}) to ({{%[0-9]+}})
// CHECK: {{%[0-9]+}}:16 = scf.for
// CHECK: arith.minui
// CHECK: arith.select
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK-COUNT-256: "llvm.intr.fmuladd"
// CHECK: gpu.barrier
// CHECK: scf.yield
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
