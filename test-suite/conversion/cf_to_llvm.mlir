// RUN: --passes=convert-cf-to-llvm
// cf to llvm: branches keep their targets and block arguments; the arith operations between
// them are left alone by this pass.

// CHECK-LABEL: func.func @loop(%arg0: i32)
// CHECK: [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// CHECK: llvm.br ^bb1([[ZERO]] : i32)
// CHECK-NEXT: ^bb1([[I:%[0-9]+]]: i32):
// CHECK-NEXT: [[LT:%[0-9]+]] = arith.cmpi slt, [[I]], %arg0 : i32
// CHECK-NEXT: llvm.cond_br [[LT]], ^bb2, ^bb3([[I]] : i32)
// CHECK: llvm.br ^bb1
// CHECK-NOT: cf.
func.func @loop(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^head(%c0 : i32)
^head(%i: i32):
  %lt = arith.cmpi slt, %i, %n : i32
  cf.cond_br %lt, ^body, ^exit(%i : i32)
^body:
  %next = arith.addi %i, %c1 : i32
  cf.br ^head(%next : i32)
^exit(%r: i32):
  return %r : i32
}
