// RUN: --passes=merge-identical-functions
// merge-identical-functions: internal functions whose bodies are the same operations (values and
// blocks named apart) become the first of them, and calls and addresses of the others name it; a
// body that differs in one constant stays, and so does an exported function, whose name is part
// of the library.

// CHECK-LABEL: llvm.func internal @task(%arg0: !llvm.ptr, %arg1: i64) {
// CHECK-NOT: llvm.func internal @task_again
// CHECK-LABEL: llvm.func internal @task_other(%arg0: !llvm.ptr, %arg1: i64) {
// CHECK: llvm.mlir.constant(2.0 : f32) : f32
// CHECK-LABEL: llvm.func @task_exported(%arg0: !llvm.ptr, %arg1: i64) {
// CHECK-LABEL: llvm.func @run(%arg0: !llvm.ptr, %arg1: i64) {
// CHECK-NEXT: llvm.call @task(%arg0, %arg1) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.call @task(%arg0, %arg1) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.call @task_other(%arg0, %arg1) : (!llvm.ptr, i64) -> ()
// CHECK-NEXT: llvm.mlir.addressof @task : !llvm.ptr
// CHECK-NEXT: llvm.return
llvm.func internal @task(%p: !llvm.ptr, %n: i64) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %c = llvm.mlir.constant(1.0 : f32) : f32
  llvm.br ^loop(%zero : i64)
^loop(%i: i64):
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %a : !llvm.ptr -> f32
  %w = llvm.fadd %v, %c : f32
  llvm.store %w, %a : f32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^loop(%next : i64)
^exit:
  llvm.return
}
llvm.func internal @task_again(%q: !llvm.ptr, %m: i64) {
  %z = llvm.mlir.constant(0 : i64) : i64
  %o = llvm.mlir.constant(1 : i64) : i64
  %k = llvm.mlir.constant(1.0 : f32) : f32
  llvm.br ^head(%z : i64)
^head(%j: i64):
  %stop = llvm.icmp "sge" %j, %m : i64
  llvm.cond_br %stop, ^out, ^step
^step:
  %b = llvm.getelementptr %q[%j] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x = llvm.load %b : !llvm.ptr -> f32
  %y = llvm.fadd %x, %k : f32
  llvm.store %y, %b : f32, !llvm.ptr
  %j1 = llvm.add %j, %o : i64
  llvm.br ^head(%j1 : i64)
^out:
  llvm.return
}
llvm.func internal @task_other(%p: !llvm.ptr, %n: i64) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %c = llvm.mlir.constant(2.0 : f32) : f32
  llvm.br ^loop(%zero : i64)
^loop(%i: i64):
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %a : !llvm.ptr -> f32
  %w = llvm.fadd %v, %c : f32
  llvm.store %w, %a : f32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^loop(%next : i64)
^exit:
  llvm.return
}
llvm.func @task_exported(%p: !llvm.ptr, %n: i64) {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %c = llvm.mlir.constant(1.0 : f32) : f32
  llvm.br ^loop(%zero : i64)
^loop(%i: i64):
  %done = llvm.icmp "sge" %i, %n : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %v = llvm.load %a : !llvm.ptr -> f32
  %w = llvm.fadd %v, %c : f32
  llvm.store %w, %a : f32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^loop(%next : i64)
^exit:
  llvm.return
}
llvm.func @run(%p: !llvm.ptr, %n: i64) {
  llvm.call @task(%p, %n) : (!llvm.ptr, i64) -> ()
  llvm.call @task_again(%p, %n) : (!llvm.ptr, i64) -> ()
  llvm.call @task_other(%p, %n) : (!llvm.ptr, i64) -> ()
  %f = llvm.mlir.addressof @task_again : !llvm.ptr
  llvm.return
}
