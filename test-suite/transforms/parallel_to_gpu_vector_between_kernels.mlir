// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// RUN-ERROR: 'scf.for' gives a vector<4xf32> that later GPU code reads, which GPU code cannot yet
// Only scalars pass from one kernel to a later one (through an 8-byte slot past the workspace).
func.func private @f(%x: !llvm.ptr, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 1 : i64, xcc.workspace_bytes = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0.0> : vector<4xf32>
  %one = arith.constant dense<1.0> : vector<4xf32>
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (vector<4xf32>) {
    %next = arith.addf %acc, %one : vector<4xf32>
    scf.yield %next : vector<4xf32>
  }
  %d0 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
  %d1 = llvm.insertvalue %x, %d0[0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
  %d2 = llvm.insertvalue %x, %d1[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>
  %xm = "builtin.unrealized_conversion_cast"(%d2) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>) -> memref<4xf32>
  scf.parallel (%j) = (%c0) to (%c1) step (%c1) {
    vector.store %sum, %xm[%c0] : memref<4xf32>, vector<4xf32>
    scf.reduce
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}
