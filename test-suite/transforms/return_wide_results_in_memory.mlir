// RUN: --passes=return-wide-results-in-memory
// return-wide-results-in-memory: an internal function returning a struct of more than 16 fields
// takes the address of its callers' stack slot and stores each field there, the value inserted
// last (a whole nested struct as one store); each caller allocates the slot in its entry block
// and loads a field, nested ones through one address, where it took it out of the result. A
// struct of 16 fields, or an exported function's, stays a result.

// CHECK-LABEL: llvm.func internal @parts(%arg0: i64, %arg1: i64, %arg2: !llvm.ptr, %arg3: !llvm.ptr) {
// CHECK-NEXT: [[D:%[0-9]+]] = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, i64)>
// CHECK-NEXT: [[D0:%[0-9]+]] = llvm.insertvalue %arg2, [[D]][0]
// CHECK-NEXT: [[D1:%[0-9]+]] = llvm.insertvalue %arg0, [[D0]][1]
// CHECK-NEXT: [[F0:%[0-9]+]] = "llvm.getelementptr"(%arg3) {{.*}}rawConstantIndices = array<i32: 0, 0>}
// CHECK-NEXT: llvm.store %arg0, [[F0]] : i64, !llvm.ptr
// CHECK: [[F3:%[0-9]+]] = "llvm.getelementptr"(%arg3) {{.*}}rawConstantIndices = array<i32: 0, 3>}
// CHECK-NEXT: llvm.store %arg1, [[F3]] : i64, !llvm.ptr
// CHECK: [[F16:%[0-9]+]] = "llvm.getelementptr"(%arg3) {{.*}}rawConstantIndices = array<i32: 0, 16>}
// CHECK-NEXT: llvm.store [[D1]], [[F16]] : !llvm.struct<(!llvm.ptr, i64)>, !llvm.ptr
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func internal @narrow(%arg0: i64) -> (!llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>) {
// CHECK-LABEL: llvm.func @exported(%arg0: i64) -> (!llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>) {
// CHECK-LABEL: llvm.func @caller(%arg0: i64, %arg1: i64, %arg2: !llvm.ptr) -> (i64) {
// CHECK-NEXT: [[ONE:%[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: [[SLOT:%[0-9]+]] = "llvm.alloca"([[ONE]]) {elem_type = !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(!llvm.ptr, i64)>)>} : (i64) -> !llvm.ptr
// CHECK-NEXT: llvm.call @parts(%arg0, %arg1, %arg2, [[SLOT]]) : (i64, i64, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT: [[A3:%[0-9]+]] = "llvm.getelementptr"([[SLOT]]) {{.*}}rawConstantIndices = array<i32: 0, 3>}
// CHECK-NEXT: [[A:%[0-9]+]] = llvm.load [[A3]] : !llvm.ptr -> i64
// CHECK-NEXT: [[B16:%[0-9]+]] = "llvm.getelementptr"([[SLOT]]) {{.*}}rawConstantIndices = array<i32: 0, 16, 1>}
// CHECK-NEXT: [[B:%[0-9]+]] = llvm.load [[B16]] : !llvm.ptr -> i64
// CHECK-NEXT: [[S:%[0-9]+]] = llvm.add [[A]], [[B]] : i64
// CHECK-NEXT: llvm.return [[S]] : i64
llvm.func internal @parts(%x: i64, %y: i64, %p: !llvm.ptr) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)> {
  %u = llvm.mlir.undef : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s0 = llvm.insertvalue %x, %u[0] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s1 = llvm.insertvalue %x, %s0[1] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s2 = llvm.insertvalue %x, %s1[2] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s3 = llvm.insertvalue %x, %s2[3] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s4 = llvm.insertvalue %x, %s3[4] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s5 = llvm.insertvalue %x, %s4[5] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s6 = llvm.insertvalue %x, %s5[6] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s7 = llvm.insertvalue %x, %s6[7] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s8 = llvm.insertvalue %x, %s7[8] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s9 = llvm.insertvalue %x, %s8[9] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s10 = llvm.insertvalue %x, %s9[10] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s11 = llvm.insertvalue %x, %s10[11] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s12 = llvm.insertvalue %x, %s11[12] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s13 = llvm.insertvalue %x, %s12[13] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s14 = llvm.insertvalue %x, %s13[14] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s15 = llvm.insertvalue %x, %s14[15] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %d = llvm.mlir.undef : !llvm.struct<(ptr, i64)>
  %d0 = llvm.insertvalue %p, %d[0] : !llvm.struct<(ptr, i64)>
  %d1 = llvm.insertvalue %x, %d0[1] : !llvm.struct<(ptr, i64)>
  %last = llvm.insertvalue %d1, %s15[16] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %again = llvm.insertvalue %y, %last[3] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  llvm.return %again : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
}
llvm.func internal @narrow(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)> {
  %u = llvm.mlir.undef : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %s = llvm.insertvalue %x, %u[0] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %s : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
}
llvm.func @exported(%x: i64) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)> {
  %u = llvm.mlir.undef : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  %s = llvm.insertvalue %x, %u[0] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
  llvm.return %s : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)>
}
llvm.func @caller(%x: i64, %y: i64, %p: !llvm.ptr) -> i64 {
  %r = llvm.call @parts(%x, %y, %p) : (i64, i64, !llvm.ptr) -> !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %a = llvm.extractvalue %r[3] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %b = llvm.extractvalue %r[16, 1] : !llvm.struct<(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.struct<(ptr, i64)>)>
  %s = llvm.add %a, %b : i64
  llvm.return %s : i64
}
