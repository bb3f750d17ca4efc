// RUN: --passes=cpu-dispatch
// cpu-dispatch (x86-64 without --mcpu): every function gets a copy per extra CPU, internal and
// with its target_cpu (x86-64-v4's vectorizing loops in 512 bits); calls inside a copy go to the
// same copy; the exported function becomes a dispatcher on xcc_cpu_level(), best level first,
// then the baseline copy (.base, optimized for size). Internal originals stay the baseline's.

// CHECK-LABEL: llvm.func @scale(%arg0: f32) -> (f32) {
// CHECK-NEXT: [[L:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK-NEXT: [[C4:%[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: [[P4:%[0-9]+]] = llvm.icmp "sge" [[L]], [[C4]] : i32
// CHECK-NEXT: llvm.cond_br [[P4]], ^bb1, ^bb2
// CHECK: llvm.call @scale.x86_64_v4(%arg0) : (f32) -> f32
// CHECK: llvm.mlir.constant(3 : i32) : i32
// CHECK: llvm.call @scale.x86_64_v3(%arg0) : (f32) -> f32
// CHECK: llvm.call @scale.base(%arg0) : (f32) -> f32
// CHECK-LABEL: llvm.func internal @twice_x(%arg0: f32) -> (f32) attributes {passthrough = ["optsize"]} {
// CHECK-LABEL: llvm.func internal @scale.x86_64_v4(%arg0: f32) -> (f32) attributes {target_cpu = "x86-64-v4", target_features = "-prefer-256-bit"}
// CHECK: llvm.call @twice_x.x86_64_v4(%arg0)
// CHECK-LABEL: llvm.func internal @twice_x.x86_64_v4
// CHECK-LABEL: llvm.func internal @scale.x86_64_v3(%arg0: f32) -> (f32) attributes {target_cpu = "x86-64-v3"}
// CHECK: llvm.call @twice_x.x86_64_v3(%arg0)
// CHECK-LABEL: llvm.func internal @scale.base(%arg0: f32) -> (f32) attributes {passthrough = ["optsize"]} {
// CHECK: llvm.call @twice_x(%arg0)
// CHECK: llvm.func @xcc_cpu_level() -> (i32)
llvm.func @scale(%x: f32) -> f32 {
  %y = llvm.call @twice_x(%x) : (f32) -> f32
  llvm.return %y : f32
}
llvm.func @twice_x(%x: f32) -> f32 attributes {linkage = "internal"} {
  %y = llvm.fadd %x, %x : f32
  llvm.return %y : f32
}
