// RUN: --passes=lower-affine,convert-scf-to-cf,convert-to-llvm,reconcile-unrealized-casts
// The default pipeline by name: everything ends in the llvm dialect with no cast left.

// CHECK-LABEL: llvm.func @scale(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: f32)
// CHECK: llvm.br ^bb1
// CHECK: llvm.fmul
// CHECK: llvm.store
// CHECK: llvm.return
// CHECK-NOT: arith.
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-NOT: unrealized_conversion_cast
func.func @scale(%m: memref<?xf32>, %k: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %m[%i] : memref<?xf32>
    %w = arith.mulf %v, %k : f32
    memref.store %w, %m[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
