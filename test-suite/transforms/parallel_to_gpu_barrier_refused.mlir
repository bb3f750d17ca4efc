// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// RUN-ERROR: 'scf.parallel' uses shared memory or barriers outside a loop mapped to a block
// convert-parallel-to-gpu: a barrier (or shared memory) in a parallel loop that is not mapped to
// blocks and threads would have no block to meet in (the grid-stride loop's threads are not a
// tile's): refused, never a kernel that deadlocks or reads another block's memory.
func.func private @f(%x: memref<64xf32>, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 1 : i64, xcc.workspace_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%i] : memref<64xf32>
    gpu.barrier
    memref.store %v, %x[%i] : memref<64xf32>
    scf.reduce
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}
