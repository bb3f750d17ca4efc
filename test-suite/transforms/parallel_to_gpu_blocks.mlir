// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// convert-parallel-to-gpu: a parallel loop over tiles (xcc.gpu_blocks) holding a parallel loop
// over a tile's threads (xcc.gpu_threads) is a kernel of one block a tile and one thread an
// inner iteration: launched with 2 blocks of 64 threads and the 256 bytes of shared memory its
// gpu.dynamic_shared_memory asks for; the blocks take the tiles from their block index by the
// grid's size, and the threads' loop is gone, its index the thread's. Each block reverses its
// row through shared memory, between two barriers.

// CHECK-LABEL: func.func @f(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) -> (i32)
// CHECK: [[K:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[BLOCKS:%[0-9]+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: [[THREADS:%[0-9]+]] = llvm.mlir.constant(64 : i32) : i32
// CHECK-NEXT: [[SHARED:%[0-9]+]] = llvm.mlir.constant(256 : i32) : i32
// CHECK: llvm.call @xcc_gpu_launch(%arg3, [[K]], [[BLOCKS]], [[THREADS]], [[SHARED]],
// CHECK-LABEL: func.func @f_kernel0(%arg0: !llvm.ptr, %arg1: !llvm.ptr) attributes {gpu.kernel}
// CHECK: [[FIRST:%[0-9]+]] = gpu.block_id x
// CHECK: [[GRID:%[0-9]+]] = gpu.grid_dim x
// CHECK: scf.for [[TILE:%[0-9]+]] = [[FIRST]] to {{%[0-9]+}} step [[GRID]] {
// CHECK: gpu.dynamic_shared_memory : memref<256xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view
// CHECK: [[T:%[0-9]+]] = gpu.thread_id x
// CHECK-NOT: scf.parallel
// CHECK: memref.load {{%[0-9]+}}{{\[}}[[TILE]], [[T]]{{\]}}
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
func.func private @f(%x: !llvm.ptr, %y: !llvm.ptr, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 2 : i64, xcc.workspace_bytes = 0 : i64} {
  %0 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %1 = llvm.insertvalue %x, %0[0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %2 = llvm.insertvalue %x, %1[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %c0i = llvm.mlir.constant(0 : i64) : i64
  %c1i = llvm.mlir.constant(1 : i64) : i64
  %c2i = llvm.mlir.constant(2 : i64) : i64
  %c64i = llvm.mlir.constant(64 : i64) : i64
  %3 = llvm.insertvalue %c0i, %2[2] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %4 = llvm.insertvalue %c2i, %3[3, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %5 = llvm.insertvalue %c64i, %4[4, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %6 = llvm.insertvalue %c64i, %5[3, 1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %7 = llvm.insertvalue %c1i, %6[4, 1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %xm = "builtin.unrealized_conversion_cast"(%7) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>) -> memref<2x64xf32>
  %8 = llvm.insertvalue %y, %7[0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %9 = llvm.insertvalue %y, %8[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %ym = "builtin.unrealized_conversion_cast"(%9) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>) -> memref<2x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%row) = (%c0) to (%c2) step (%c1) {
    %shared = gpu.dynamic_shared_memory : memref<256xi8, #gpu.address_space<workgroup>>
    %stage = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      %v = memref.load %xm[%row, %t] : memref<2x64xf32>
      memref.store %v, %stage[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %back = arith.subi %c63, %t : index
      %w = memref.load %stage[%back] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %ym[%row, %t] : memref<2x64xf32>
      gpu.barrier
      scf.reduce
    } {xcc.gpu_threads}
    scf.reduce
  } {xcc.gpu_blocks}
  %ok = arith.constant 0 : i32
  return %ok : i32
}
