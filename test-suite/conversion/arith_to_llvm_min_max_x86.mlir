// RUN: --target=x86_64 --passes=convert-arith-to-llvm
// On x86, whose maxps / minps return their second operand for a NaN or two zeros, a maximumf or
// minimumf of a constant bound is a compare and a select (one vmaxps / vminps), and a maximum
// with +0 adds +0 after it (a -0 becomes +0); a minimum with -0, a NaN bound and two variables
// stay LLVM's intrinsics (aarch64: arith_to_llvm_min_max_aarch64.mlir).

// CHECK-LABEL: func.func @relu6(%arg0: vector<16xf32>)
// CHECK-NEXT: [[ZERO:%[0-9]+]] = llvm.mlir.constant(dense<0.0> : vector<16xf32>) : vector<16xf32>
// CHECK-NEXT: [[SIX:%[0-9]+]] = llvm.mlir.constant(dense<6.0> : vector<16xf32>) : vector<16xf32>
// CHECK-NEXT: [[BELOW:%[0-9]+]] = llvm.fcmp "olt" %arg0, [[ZERO]] : vector<16xf32>
// CHECK-NEXT: [[MAX:%[0-9]+]] = llvm.select [[BELOW]], [[ZERO]], %arg0 : vector<16xi1>, vector<16xf32>
// CHECK-NEXT: [[RELU:%[0-9]+]] = llvm.fadd [[MAX]], [[ZERO]] : vector<16xf32>
// CHECK-NEXT: [[ABOVE:%[0-9]+]] = llvm.fcmp "ogt" [[RELU]], [[SIX]] : vector<16xf32>
// CHECK-NEXT: [[MIN:%[0-9]+]] = llvm.select [[ABOVE]], [[SIX]], [[RELU]] : vector<16xi1>, vector<16xf32>
// CHECK-NEXT: func.return [[MIN]]
func.func @relu6(%x: vector<16xf32>) -> vector<16xf32> {
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %six = arith.constant dense<6.0> : vector<16xf32>
  %0 = arith.maximumf %x, %zero : vector<16xf32>
  %1 = arith.minimumf %0, %six : vector<16xf32>
  return %1 : vector<16xf32>
}

// The bound first, and a negative one: no add.
// CHECK-LABEL: func.func @bound_first(%arg0: f32)
// CHECK: [[BELOW:%[0-9]+]] = llvm.fcmp "olt" %arg0, [[LOW:%[0-9]+]] : f32
// CHECK-NEXT: [[MAX:%[0-9]+]] = llvm.select [[BELOW]], [[LOW]], %arg0 : i1, f32
// CHECK-NEXT: func.return [[MAX]]
func.func @bound_first(%x: f32) -> f32 {
  %low = arith.constant -1.5 : f32
  %0 = arith.maximumf %low, %x : f32
  return %0 : f32
}

// CHECK-LABEL: func.func @kept
// CHECK: "llvm.intr.minimum"
// CHECK: "llvm.intr.maximum"
// CHECK: "llvm.intr.maximum"
// CHECK-NOT: llvm.select
func.func @kept(%x: f32, %y: f32) -> f32 {
  %negative_zero = arith.constant -0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %0 = arith.minimumf %x, %negative_zero : f32
  %1 = arith.maximumf %0, %nan : f32
  %2 = arith.maximumf %1, %y : f32
  return %2 : f32
}
