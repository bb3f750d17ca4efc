// RUN: --passes=convert-math-to-llvm
// math to llvm: LLVM intrinsics where LLVM has one (sqrt, pow, atan2, tan), C library calls
// otherwise (erf for f64, cbrtf for f32, declared once at the end), rsqrt as 1 / sqrt, and the
// bit operations with their "is poison" immediate set to false.

// CHECK-LABEL: func.func @intrinsics
// CHECK-NEXT: [[S:%[0-9]+]] = "llvm.intr.sqrt"(%arg0) : (f32) -> f32
// CHECK-NEXT: [[P:%[0-9]+]] = "llvm.intr.pow"([[S]], %arg1) : (f32, f32) -> f32
// CHECK-NEXT: [[A:%[0-9]+]] = "llvm.intr.atan2"([[P]], %arg1) : (f32, f32) -> f32
// CHECK-NEXT: "llvm.intr.tan"([[A]]) : (f32) -> f32
func.func @intrinsics(%x: f32, %y: f32) -> f32 {
  %0 = math.sqrt %x : f32
  %1 = math.powf %0, %y : f32
  %2 = math.atan2 %1, %y : f32
  %3 = math.tan %2 : f32
  return %3 : f32
}

// CHECK-LABEL: func.func @libm
// CHECK-NEXT: llvm.call @erf(%arg0) : (f64) -> f64
// CHECK-NEXT: llvm.call @cbrtf(%arg1) : (f32) -> f32
func.func @libm(%x: f64, %y: f32) -> (f64, f32) {
  %0 = math.erf %x : f64
  %1 = math.cbrt %y : f32
  return %0, %1 : f64, f32
}

// CHECK-LABEL: func.func @rsqrt
// CHECK-NEXT: [[S:%[0-9]+]] = "llvm.intr.sqrt"(%arg0) : (vector<4xf32>) -> vector<4xf32>
// CHECK-NEXT: [[ONE:%[0-9]+]] = llvm.mlir.constant(dense<1.0> : vector<4xf32>)
// CHECK-NEXT: llvm.fdiv [[ONE]], [[S]] : vector<4xf32>
func.func @rsqrt(%x: vector<4xf32>) -> vector<4xf32> {
  %0 = math.rsqrt %x : vector<4xf32>
  return %0 : vector<4xf32>
}

// CHECK-LABEL: func.func @bits
// CHECK-NEXT: [[NO:%[0-9]+]] = llvm.mlir.constant(0 : i1) : i1
// CHECK-NEXT: "llvm.intr.abs"(%arg0, [[NO]]) : (i32, i1) -> i32
// CHECK: "llvm.intr.ctlz"(%arg0, {{%[0-9]+}}) : (i32, i1) -> i32
// CHECK-NEXT: "llvm.intr.ctpop"(%arg0) : (i32) -> i32
func.func @bits(%a: i32) -> (i32, i32, i32) {
  %0 = math.absi %a : i32
  %1 = math.ctlz %a : i32
  %2 = math.ctpop %a : i32
  return %0, %1, %2 : i32, i32, i32
}
// CHECK: llvm.func @cbrtf(f32)
// CHECK-NEXT: llvm.func @erf(f64)
