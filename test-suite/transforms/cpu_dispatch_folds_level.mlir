// RUN: --passes=cpu-dispatch
// cpu-dispatch folds the calls to xcc_cpu_level() inside the code to the level each copy is
// compiled for (4, 3, and the baseline's 2), so a branch on it (the GEMM's tile width) keeps
// one side per CPU; only the dispatcher still asks at run time.

// CHECK-LABEL: llvm.func @tile_width() -> (i32) {
// CHECK-NEXT: [[L:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK-LABEL: llvm.func internal @tile_width.x86_64_v4() -> (i32) attributes {target_cpu = "x86-64-v4", target_features = "-prefer-256-bit"}
// CHECK-NEXT: [[C4:%[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: llvm.return [[C4]] : i32
// CHECK-LABEL: llvm.func internal @tile_width.x86_64_v3() -> (i32) attributes {target_cpu = "x86-64-v3"}
// CHECK-NEXT: [[C3:%[0-9]+]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT: llvm.return [[C3]] : i32
// CHECK-LABEL: llvm.func internal @tile_width.base() -> (i32) attributes {passthrough = ["optsize"]} {
// CHECK-NEXT: [[C2:%[0-9]+]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.return [[C2]] : i32
llvm.func @xcc_cpu_level() -> i32
llvm.func @tile_width() -> i32 {
  %l = llvm.call @xcc_cpu_level() : () -> i32
  llvm.return %l : i32
}
