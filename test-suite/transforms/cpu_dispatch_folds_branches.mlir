// RUN: --passes=cpu-dispatch
// Once the level is a constant in each copy, cpu-dispatch also folds the comparisons of it and
// the branches on them: each copy jumps straight to its CPU's side, and the other side has no
// predecessor, so LLVM drops it before instruction selection even at -O0 (an AVX2 intrinsic
// there would not select for the baseline CPU).

// CHECK-LABEL: llvm.func @pick() -> (i32) {
// CHECK: llvm.cond_br
// CHECK-LABEL: llvm.func internal @pick.x86_64_v4()
// CHECK-NOT: llvm.icmp
// CHECK: llvm.br ^bb1
// CHECK-LABEL: llvm.func internal @pick.x86_64_v3()
// CHECK-NOT: llvm.icmp
// CHECK: llvm.br ^bb1
// CHECK-LABEL: llvm.func internal @pick.base()
// CHECK-NOT: llvm.icmp
// CHECK: llvm.br ^bb2
llvm.func @xcc_cpu_level() -> i32
llvm.func @pick() -> i32 {
  %l = llvm.call @xcc_cpu_level() : () -> i32
  %three = llvm.mlir.constant(3 : i32) : i32
  %avx2 = llvm.icmp "sge" %l, %three : i32
  llvm.cond_br %avx2, ^bb1, ^bb2
^bb1:
  %wide = llvm.mlir.constant(16 : i32) : i32
  llvm.return %wide : i32
^bb2:
  %narrow = llvm.mlir.constant(4 : i32) : i32
  llvm.return %narrow : i32
}
