// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// RUN-ERROR: 'scf.parallel' reads a value computed on the host ('memref.alloca'), which GPU code cannot yet
// A buffer on the host's stack (other than the run's status word) cannot be read by a kernel.
func.func private @f(%x: !llvm.ptr, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 1 : i64, xcc.workspace_bytes = 0 : i64} {
  %tmp = memref.alloca() : memref<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    memref.store %one, %tmp[%i] : memref<2xf32>
    scf.reduce
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}
