// RUN: --passes=convert-arith-to-llvm
// arith to llvm alone: one-to-one operations keep their operands, comparisons their predicate,
// floordivsi expands into a truncating division and a correction; the index argument stays an
// index and is cast where a converted operation takes it.

// CHECK-LABEL: func.func @int_ops(%arg0: i32, %arg1: i32)
// CHECK-NEXT: [[SUM:%[0-9]+]] = llvm.add %arg0, %arg1 : i32
// CHECK-NEXT: [[PRODUCT:%[0-9]+]] = llvm.mul [[SUM]], %arg1 : i32
// CHECK-NEXT: [[MAX:%[0-9]+]] = "llvm.intr.smax"([[PRODUCT]], %arg0) : (i32, i32) -> i32
// CHECK-NEXT: [[Q:%[0-9]+]] = llvm.sdiv [[MAX]], %arg1 : i32
// CHECK-NEXT: [[R:%[0-9]+]] = llvm.srem [[MAX]], %arg1 : i32
// CHECK: llvm.icmp "ne" [[R]]
// CHECK: llvm.icmp "slt" [[R]]
// CHECK: llvm.sub [[Q]]
// CHECK: [[FLOOR:%[0-9]+]] = llvm.select
// CHECK-NEXT: func.return [[FLOOR]] : i32
// CHECK-NOT: arith.
func.func @int_ops(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.muli %0, %b : i32
  %2 = arith.maxsi %1, %a : i32
  %3 = arith.floordivsi %2, %b : i32
  return %3 : i32
}

// CHECK-LABEL: func.func @float_ops
// CHECK-NEXT: llvm.fmul %arg0, %arg1 : f32
// CHECK-NEXT: "llvm.intr.maximum"
// CHECK-NEXT: llvm.fneg
func.func @float_ops(%x: f32, %y: f32) -> f32 {
  %0 = arith.mulf %x, %y : f32
  %1 = arith.maximumf %0, %y : f32
  %2 = arith.negf %1 : f32
  return %2 : f32
}

// CHECK-LABEL: func.func @compare_select
// CHECK-NEXT: [[C:%[0-9]+]] = llvm.icmp "slt" %arg0, %arg1 : i64
// CHECK-NEXT: llvm.select [[C]], %arg0, %arg1 : i1, i64
func.func @compare_select(%a: i64, %b: i64) -> i64 {
  %c = arith.cmpi slt, %a, %b : i64
  %r = arith.select %c, %a, %b : i64
  return %r : i64
}

// CHECK-LABEL: func.func @casts(%arg0: i32, %arg1: index, %arg2: f64)
// CHECK-NEXT: llvm.sext %arg0 : i32 to i64
// The index is already 64 bits wide: the cast is the value itself, seen through a cast.
// CHECK-NEXT: "builtin.unrealized_conversion_cast"(%arg1) : (index) -> i64
// CHECK-NEXT: llvm.fptrunc %arg2 : f64 to f32
func.func @casts(%a: i32, %i: index, %f: f64) -> (i64, i64, f32) {
  %0 = arith.extsi %a : i32 to i64
  %1 = arith.index_cast %i : index to i64
  %2 = arith.truncf %f : f64 to f32
  return %0, %1, %2 : i64, i64, f32
}

// CHECK-LABEL: func.func @constants
// CHECK-NEXT: llvm.mlir.constant(42 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(dense<1.5> : vector<4xf32>) : vector<4xf32>
func.func @constants() -> (i32, vector<4xf32>) {
  %0 = arith.constant 42 : i32
  %1 = arith.constant dense<1.5> : vector<4xf32>
  return %0, %1 : i32, vector<4xf32>
}
