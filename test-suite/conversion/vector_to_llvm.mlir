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
// CHECK-NEXT: [[ONE:%[0-9]+]] = "llvm.insertelement"([[POISON]], %arg2, [[LANE0]])
// CHECK-NEXT: [[SPLAT:%[0-9]+]] = "llvm.shufflevector"([[ONE]], [[ONE]]) {mask = array<i32: 0, 0, 0, 0>}
// CHECK-NEXT: [[Y:%[0-9]+]] = "llvm.intr.fmuladd"([[SPLAT]], [[X]], [[X]]) : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
// CHECK: llvm.store [[Y]], {{%[0-9]+}} {alignment = 4} : vector<4xf32>, !llvm.ptr
// CHECK: [[E:%[0-9]+]] = "llvm.extractelement"([[Y]], {{%[0-9]+}}) : (vector<4xf32>, i64) -> f32
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
