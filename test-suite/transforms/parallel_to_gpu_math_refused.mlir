// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// RUN-ERROR: functions not supported on GPUs yet (no GPU code for them): math.cbrt on f32 (1)
// convert-parallel-to-gpu: math without GPU code (NVPTX has no cbrt without libdevice, and xcc
// has no polynomial for it) is refused, every such function listed with its count, before a
// kernel is outlined: never a call the PTX could not resolve.
func.func private @f(%x: memref<4xf32>, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 1 : i64, xcc.workspace_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %r = math.cbrt %v : f32
    memref.store %r, %x[%i] : memref<4xf32>
    scf.reduce
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}
