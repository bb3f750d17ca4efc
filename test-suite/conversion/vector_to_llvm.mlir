// RUN: --passes=convert-vector-to-llvm
// vector to llvm: loads and stores of a vector go through the element's address, a broadcast is
// insertelement into lane 0 and a zero shuffle mask, vector.fma is fmuladd (it may fuse), a
// static extract is extractelement at the row-major position, an add reduction starts from -0.0
// and may reassociate.

// CHECK-LABEL: func.func @axpy
// CHECK: [[ADDR:%[0-9]+]] = "llvm.getelementptr"
// CHECK-NEXT: [[X:%[0-9]+]] = llvm.load [[ADDR]] {alignment = 4} : !llvm.ptr -> vector<4xf32>
// CHECK-NEXT: [[POISON:%[0-9]+]] = llvm.mlir.poison : vector<4xf32>
// CHECK-NEXT: [[LANE0:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: [[ONE:%[0-9]+]] = llvm.insertelement %arg2, [[POISON]][[[LANE0]] : i32] : vector<4xf32>
// CHECK-NEXT: [[SPLAT:%[0-9]+]] = llvm.shufflevector [[ONE]], [[ONE]] [0, 0, 0, 0] : vector<4xf32>
// CHECK-NEXT: [[Y:%[0-9]+]] = "llvm.intr.fmuladd"([[SPLAT]], [[X]], [[X]]) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK: llvm.store [[Y]], {{%[0-9]+}} {alignment = 4} : vector<4xf32>, !llvm.ptr
// CHECK: [[E:%[0-9]+]] = llvm.extractelement [[Y]][{{%[0-9]+}} : i64] : vector<4xf32>
// CHECK-NEXT: [[START:%[0-9]+]] = llvm.mlir.constant(-0.0 : f32) : f32
// CHECK-NEXT: [[T:%[0-9]+]] = "llvm.intr.vector.reduce.fadd"([[START]], [[Y]]) {reassoc} : (f32, vector<4xf32>) -> f32
// The scalar add is arith's, which this pass leaves alone.
// CHECK-NEXT: arith.addf [[E]], [[T]] : f32
func.func @axpy(%m: memref<16xf32>, %i: index, %a: f32) -> f32 {
  %x = vector.load %m[%i] : memref<16xf32>, vector<4xf32>
  %s = vector.broadcast %a : f32 to vector<4xf32>
  %y = vector.fma %s, %x, %x : vector<4xf32>
  vector.store %y, %m[%i] : memref<16xf32>, vector<4xf32>
  %e = vector.extract %y[2] : f32 from vector<4xf32>
  %t = vector.reduction <add>, %y : vector<4xf32> into f32
  %r = arith.addf %e, %t : f32
  return %r : f32
}

// A mask of n lanes compares the lane numbers with n clamped to [0, 8] in i32; the masked load
// and store are LLVM's masked intrinsics at the element's address, with its alignment.
// CHECK-LABEL: func.func @masked_copy
// CHECK: [[N:%[0-9]+]] = "builtin.unrealized_conversion_cast"(%arg3) : (index) -> i64
// CHECK-NEXT: [[LANES:%[0-9]+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: [[ZERO:%[0-9]+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: [[LOW:%[0-9]+]] = "llvm.intr.smin"([[N]], [[LANES]]) : (i64, i64) -> i64
// CHECK-NEXT: [[CLAMPED:%[0-9]+]] = "llvm.intr.smax"([[LOW]], [[ZERO]]) : (i64, i64) -> i64
// CHECK-NEXT: [[N32:%[0-9]+]] = llvm.trunc [[CLAMPED]] : i64 to i32
// CHECK-NEXT: [[NUMBERS:%[0-9]+]] = llvm.mlir.constant(dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xi32>) : vector<8xi32>
// CHECK: [[SPLAT:%[0-9]+]] = llvm.shufflevector
// CHECK-NEXT: [[MASK:%[0-9]+]] = llvm.icmp "sgt" [[SPLAT]], [[NUMBERS]] : vector<8xi32>
// The first lane's address is not inbounds: that lane may be off and outside the buffer.
// CHECK: [[FROM:%[0-9]+]] = "llvm.getelementptr"({{%[0-9]+}}, {{%[0-9]+}}) {elem_type = f32, rawConstantIndices
// CHECK-NEXT: [[V:%[0-9]+]] = "llvm.intr.masked.load"([[FROM]], [[MASK]], {{%[0-9]+}}) {alignment = 4 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
// CHECK: [[TO:%[0-9]+]] = "llvm.getelementptr"({{%[0-9]+}}, {{%[0-9]+}}) {elem_type = f32, rawConstantIndices
// CHECK-NEXT: "llvm.intr.masked.store"([[V]], [[TO]], [[MASK]]) {alignment = 4 : i32} : (vector<8xf32>, !llvm.ptr, vector<8xi1>) -> ()
func.func @masked_copy(%src: memref<16xf32>, %dst: memref<16xf32>, %i: index, %n: index) {
  %mask = vector.create_mask %n : vector<8xi1>
  %zero = arith.constant dense<0.0> : vector<8xf32>
  %v = vector.maskedload %src[%i], %mask, %zero : memref<16xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  vector.maskedstore %dst[%i], %mask, %v : memref<16xf32>, vector<8xi1>, vector<8xf32>
  return
}

// A shuffle is llvm.shufflevector with its mask in i32.
// CHECK-LABEL: func.func @evens
// CHECK: llvm.shufflevector %arg0, %arg1 [0, 2, 4, 6] : vector<4xf32>
func.func @evens(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
  %s = vector.shuffle %a, %b [0, 2, 4, 6] : vector<4xf32>, vector<4xf32>
  return %s : vector<4xf32>
}
