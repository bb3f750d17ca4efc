// RUN: --passes=cpu-dispatch
// The x86-64 default build's VNNI copy (level 5) is partial: it holds only the functions whose
// level tests fold otherwise than in the AVX-512 copy (level 4), and what they name only on
// VNNI's side. @task tests the level against 5 (an int8 kernel's parallel task choosing VNNI),
// so it has a VNNI copy, and so does @vnni_helper, which it calls only on that side (its code
// needs the feature); the AVX-512 copy of @step calls @task through a dispatcher that asks the
// level at run time, so @step itself (which does not test for VNNI) has no VNNI copy, and
// neither has @tiles (a test against 4 only); no exported dispatcher asks for level 5.

// CHECK-LABEL: llvm.func @step(%arg0: i32) -> (i32) {
// CHECK-NEXT: [[L:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK-NEXT: [[C4:%[0-9]+]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT: [[P4:%[0-9]+]] = llvm.icmp "sge" [[L]], [[C4]] : i32
// CHECK: llvm.call @step.x86_64_v4(%arg0) : (i32) -> i32
// CHECK-NOT: @step.x86_64_v4_vnni
// CHECK-LABEL: llvm.func internal @task.x86_64_v4_vnni(%arg0: i32) -> (i32) attributes {target_cpu = "x86-64-v4", target_features = "-prefer-256-bit,+avx512vnni"}
// CHECK-NOT: llvm.icmp
// CHECK: llvm.br ^bb1
// CHECK: llvm.call @vnni_helper.x86_64_v4_vnni(%arg0)
// CHECK-LABEL: llvm.func internal @vnni_helper.x86_64_v4_vnni(%arg0: i32) -> (i32) attributes {target_cpu = "x86-64-v4", target_features = "-prefer-256-bit,+avx512vnni"}
// CHECK-LABEL: llvm.func internal @step.x86_64_v4(%arg0: i32) -> (i32) attributes {target_cpu = "x86-64-v4", target_features = "-prefer-256-bit"}
// CHECK: llvm.call @task.x86_64_v4_vnni.dispatch(%arg0)
// CHECK: llvm.call @tiles.x86_64_v4(%0)
// CHECK-LABEL: llvm.func internal @task.x86_64_v4(%arg0: i32) -> (i32)
// CHECK-NOT: llvm.icmp
// CHECK: llvm.br ^bb2
// CHECK-NOT: @vnni_helper.x86_64_v4
// CHECK-LABEL: llvm.func internal @step.x86_64_v3(%arg0: i32)
// CHECK: llvm.call @task.x86_64_v3(%arg0)
// CHECK-LABEL: llvm.func internal @task.x86_64_v4_vnni.dispatch(%arg0: i32) -> (i32) {
// CHECK-NEXT: [[L:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK-NEXT: [[C5:%[0-9]+]] = llvm.mlir.constant(5 : i32) : i32
// CHECK-NEXT: [[P5:%[0-9]+]] = llvm.icmp "sge" [[L]], [[C5]] : i32
// CHECK-NEXT: llvm.cond_br [[P5]], ^bb1, ^bb2
// CHECK: llvm.call @task.x86_64_v4_vnni(%arg0) : (i32) -> i32
// CHECK: llvm.call @task.x86_64_v4(%arg0) : (i32) -> i32
// CHECK-NOT: _vnni
llvm.func @xcc_cpu_level() -> i32
llvm.func @step(%x: i32) -> i32 {
  %a = llvm.call @task(%x) : (i32) -> i32
  %b = llvm.call @tiles(%a) : (i32) -> i32
  llvm.return %b : i32
}
llvm.func @task(%x: i32) -> i32 attributes {linkage = "internal"} {
  %l = llvm.call @xcc_cpu_level() : () -> i32
  %five = llvm.mlir.constant(5 : i32) : i32
  %vnni = llvm.icmp "sge" %l, %five : i32
  llvm.cond_br %vnni, ^bb1, ^bb2
^bb1:
  %y = llvm.call @vnni_helper(%x) : (i32) -> i32
  llvm.return %y : i32
^bb2:
  llvm.return %x : i32
}
llvm.func @vnni_helper(%x: i32) -> i32 attributes {linkage = "internal"} {
  %y = llvm.mul %x, %x : i32
  llvm.return %y : i32
}
llvm.func @tiles(%x: i32) -> i32 attributes {linkage = "internal"} {
  %l = llvm.call @xcc_cpu_level() : () -> i32
  %four = llvm.mlir.constant(4 : i32) : i32
  %wide = llvm.icmp "sge" %l, %four : i32
  %y = llvm.select %wide, %x, %four : i1, i32
  llvm.return %y : i32
}
