// RUN: --passes=plan-workspace
// plan-workspace: in a function marked xcc.workspace = 2, each buffer becomes a view of the
// workspace (argument 2) at an offset planned by liveness: %a (64 bytes, and the 320 bytes of
// skew after every buffer) lives until the second copy, %b overlaps it and goes after it (offset
// 384), %c starts after %a's last use and takes its place (offset 0). The workspace is 768
// bytes: the function's xcc.workspace_bytes and the value of kernel.workspace_size.

// CHECK-LABEL: func.func @run(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: !llvm.ptr) -> (index) attributes {xcc.workspace = 2, xcc.workspace_bytes = 768}
// CHECK: [[WS:%[0-9]+]] = "builtin.unrealized_conversion_cast"({{%[0-9]+}}) : ({{.*}}) -> memref<768xi8>
// CHECK: [[OFF_A:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[A:%[0-9]+]] = memref.view [[WS]][[[OFF_A]]][] : memref<768xi8> to memref<16xf32>
// CHECK: [[OFF_B:%[0-9]+]] = arith.constant 384 : index
// CHECK-NEXT: [[B:%[0-9]+]] = memref.view [[WS]][[[OFF_B]]][] : memref<768xi8> to memref<16xf32>
// CHECK: [[OFF_C:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C:%[0-9]+]] = memref.view [[WS]][[[OFF_C]]][] : memref<768xi8> to memref<16xf32>
// CHECK: arith.constant 768 : index
// CHECK-NOT: memref.alloc
// CHECK-NOT: kernel.workspace_size
func.func @run(%in: memref<16xf32>, %out: memref<16xf32>, %ws: !llvm.ptr) -> index attributes {xcc.workspace = 2} {
  %a = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %a) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  "kernel.copy"(%a, %b) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<16xf32>
  "kernel.copy"(%b, %c) : (memref<16xf32>, memref<16xf32>) -> ()
  "kernel.copy"(%c, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %n = "kernel.workspace_size"() {function = @run} : () -> index
  return %n : index
}

// Buffers of run-time size: the size (%n rows of 16 floats, rounded up to 64 bytes, and the
// skew) is computed
// at the top of the body from the argument; %a starts at 0, %b, live with %a, where %a ends,
// and the total is the largest end. kernel.workspace_size computes the same from its operand.
// CHECK-LABEL: func.func @rows(%arg0: index, %arg1: memref<?x16xf32>, %arg2: !llvm.ptr) attributes {xcc.workspace = 2, xcc.workspace_bytes = 33408}
// CHECK: [[ROW:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: [[BYTES:%[0-9]+]] = arith.muli [[ROW]], %arg0 : index
// CHECK: [[ALIGNED:%[0-9]+]] = arith.andi
// CHECK: [[SIZE:%[0-9]+]] = arith.addi [[ALIGNED]], {{%[0-9]+}} : index
// CHECK: [[ZERO:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[END_A:%[0-9]+]] = arith.addi [[ZERO]], [[SIZE]] : index
// CHECK-NEXT: arith.maxui [[ZERO]], [[END_A]] : index
// CHECK-NEXT: [[START_B:%[0-9]+]] = arith.maxui [[ZERO]], [[END_A]] : index
// CHECK: [[WS:%[0-9]+]] = "builtin.unrealized_conversion_cast"({{%[0-9]+}}) : ({{.*}}) -> memref<?xi8>
// CHECK: memref.view [[WS]][[[ZERO]]][%arg0] : memref<?xi8> to memref<?x16xf32>
// CHECK: memref.view [[WS]][[[START_B]]][%arg0] : memref<?xi8> to memref<?x16xf32>
// CHECK-NOT: memref.alloc
// CHECK-LABEL: func.func @rows_workspace(%arg0: index) -> (index)
// CHECK: arith.muli {{%[0-9]+}}, %arg0 : index
// CHECK: arith.maxui
// CHECK-NOT: kernel.workspace_size
func.func @rows(%n: index, %in: memref<?x16xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 2} {
  %a = memref.alloc(%n) : memref<?x16xf32>
  "kernel.copy"(%in, %a) : (memref<?x16xf32>, memref<?x16xf32>) -> ()
  %b = memref.alloc(%n) : memref<?x16xf32>
  "kernel.copy"(%a, %b) : (memref<?x16xf32>, memref<?x16xf32>) -> ()
  "kernel.copy"(%b, %in) : (memref<?x16xf32>, memref<?x16xf32>) -> ()
  return
}
func.func @rows_workspace(%n: index) -> index {
  %s = "kernel.workspace_size"(%n) {function = @rows} : (index) -> index
  return %s : index
}
