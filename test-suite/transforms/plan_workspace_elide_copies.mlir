// RUN: --passes=plan-workspace
// plan-workspace elides a memref.copy of a whole buffer into a contiguous run of another when the
// copy is the source's last use and nothing but copies into other runs touches the destination
// before it: the source lives in that run from the start (a Concat computed in place).

// %a and %b, live at the same time, are copied into the two halves of %c: they live there, the
// copies are gone, and the workspace holds %c alone (128 bytes and the 320 of skew after it).
// CHECK-LABEL: func.func @concat({{.*}} attributes {xcc.workspace = 2, xcc.workspace_bytes = 448}
// CHECK: [[OFF_A:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[A:%[0-9]+]] = memref.view {{%[0-9]+}}[[[OFF_A]]][] : memref<448xi8> to memref<16xf32>
// CHECK: [[OFF_B:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: [[B:%[0-9]+]] = memref.view {{%[0-9]+}}[[[OFF_B]]][] : memref<448xi8> to memref<16xf32>
// CHECK: [[OFF_C:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C:%[0-9]+]] = memref.view {{%[0-9]+}}[[[OFF_C]]][] : memref<448xi8> to memref<32xf32>
// CHECK-NOT: memref.copy
// CHECK: kernel.copy ins([[C]] : memref<32xf32>) outs(%arg1 : memref<32xf32>)
func.func @concat(%in: memref<16xf32>, %out: memref<32xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 2} {
  %a = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %a) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %b) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<32xf32>
  %c0 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32>
  "memref.copy"(%a, %c0) : (memref<16xf32>, memref<16xf32>) -> ()
  %c1 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 16>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32, strided<[1], offset: 16>>
  "memref.copy"(%b, %c1) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 16>>) -> ()
  "kernel.copy"(%c, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  return
}

// Nested: %a is copied whole into %b (a reshape), %b into the second half of %c. Both live in
// %c: %b at 64 bytes, %a where %b is.
// CHECK-LABEL: func.func @nested({{.*}} xcc.workspace_bytes = 448}
// CHECK: [[OFF_A:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: memref.view {{%[0-9]+}}[[[OFF_A]]][] : memref<448xi8> to memref<4x4xf32>
// CHECK: [[OFF_B:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: memref.view {{%[0-9]+}}[[[OFF_B]]][] : memref<448xi8> to memref<16xf32>
// CHECK: [[OFF_C:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: memref.view {{%[0-9]+}}[[[OFF_C]]][] : memref<448xi8> to memref<32xf32>
// CHECK-NOT: memref.copy
func.func @nested(%in: memref<4x4xf32>, %out: memref<32xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 2} {
  %a = memref.alloc() : memref<4x4xf32>
  "kernel.copy"(%in, %a) : (memref<4x4xf32>, memref<4x4xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  %a0 = "memref.reinterpret_cast"(%a) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<4x4xf32>) -> memref<16xf32>
  "memref.copy"(%a0, %b) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<32xf32>
  %c1 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 16>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32, strided<[1], offset: 16>>
  "memref.copy"(%b, %c1) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 16>>) -> ()
  "kernel.copy"(%c, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  return
}

// Copies that stay:
// - %a is read after its copy, so its run of %c cannot be its home;
// - %c is written whole before %b's copy: while %b is live, %c's run holds that write;
// - %d's copy meets the run %a's copy wrote.
// CHECK-LABEL: func.func @kept
// CHECK: "memref.copy"({{%[0-9]+}}, {{%[0-9]+}}) : (memref<16xf32>, memref<16xf32>) -> ()
// CHECK: "memref.copy"({{%[0-9]+}}, {{%[0-9]+}}) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 16>>) -> ()
// CHECK: "memref.copy"({{%[0-9]+}}, {{%[0-9]+}}) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 8>>) -> ()
func.func @kept(%in: memref<16xf32>, %out: memref<32xf32>, %out2: memref<16xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 3} {
  %a = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %a) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<32xf32>
  %c0 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 0>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32>
  "memref.copy"(%a, %c0) : (memref<16xf32>, memref<16xf32>) -> ()
  "kernel.copy"(%a, %out2) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %b) : (memref<16xf32>, memref<16xf32>) -> ()
  %e = memref.alloc() : memref<32xf32>
  "kernel.copy"(%out, %e) : (memref<32xf32>, memref<32xf32>) -> ()
  %e1 = "memref.reinterpret_cast"(%e) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 16>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32, strided<[1], offset: 16>>
  "memref.copy"(%b, %e1) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 16>>) -> ()
  %d = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %d) : (memref<16xf32>, memref<16xf32>) -> ()
  %c8 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 8>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32, strided<[1], offset: 8>>
  "memref.copy"(%d, %c8) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 8>>) -> ()
  "kernel.copy"(%c, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  "kernel.copy"(%e, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  return
}

// With a buffer of run-time size the starts are computed at run time: %a starts where %c does
// plus its 64 bytes.
// CHECK-LABEL: func.func @mixed
// CHECK: memref.view {{%[0-9]+}}[{{%[0-9]+}}][%arg0] : memref<?xi8> to memref<?x16xf32>
// CHECK: [[OFF:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: [[AT:%[0-9]+]] = arith.addi [[C:%[0-9]+]], [[OFF]] : index
// CHECK-NEXT: memref.view {{%[0-9]+}}[[[AT]]][] : memref<?xi8> to memref<16xf32>
// CHECK: memref.view {{%[0-9]+}}[[[C]]][] : memref<?xi8> to memref<32xf32>
// CHECK-NOT: memref.copy
func.func @mixed(%n: index, %in: memref<16xf32>, %out: memref<32xf32>, %rows: memref<?x16xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 4} {
  %r = memref.alloc(%n) : memref<?x16xf32>
  "kernel.copy"(%rows, %r) : (memref<?x16xf32>, memref<?x16xf32>) -> ()
  %a = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %a) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<32xf32>
  %c1 = "memref.reinterpret_cast"(%c) {operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets = array<i64: 16>, static_sizes = array<i64: 16>, static_strides = array<i64: 1>} : (memref<32xf32>) -> memref<16xf32, strided<[1], offset: 16>>
  "memref.copy"(%a, %c1) : (memref<16xf32>, memref<16xf32, strided<[1], offset: 16>>) -> ()
  "kernel.copy"(%c, %out) : (memref<32xf32>, memref<32xf32>) -> ()
  "kernel.copy"(%r, %rows) : (memref<?x16xf32>, memref<?x16xf32>) -> ()
  return
}
