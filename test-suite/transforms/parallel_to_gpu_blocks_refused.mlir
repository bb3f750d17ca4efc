// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// RUN-ERROR: a loop mapped to blocks may hold only views and constants beside its threads' loop
// convert-parallel-to-gpu: a block-mapped loop's body runs once per thread of the block, so a
// store beside its threads' loop would run 64 times: refused.
func.func private @f(%x: memref<2x64xf32>, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 1 : i64, xcc.workspace_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%row) = (%c0) to (%c2) step (%c1) {
    %shared = gpu.dynamic_shared_memory : memref<256xi8, #gpu.address_space<workgroup>>
    memref.store %zero, %x[%row, %c0] : memref<2x64xf32>
    scf.parallel (%t) = (%c0) to (%c64) step (%c1) {
      gpu.barrier
      scf.reduce
    } {xcc.gpu_threads}
    scf.reduce
  } {xcc.gpu_blocks}
  %ok = arith.constant 0 : i32
  return %ok : i32
}
