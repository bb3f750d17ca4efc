// RUN: --target=aarch64 --passes=convert-arith-to-llvm
// On AArch64, whose fmax / fmin compute maximumf / minimumf as defined (NaN, and +0 over -0), a
// ReLU6 stays LLVM's intrinsics, one instruction each (x86: arith_to_llvm_min_max_x86.mlir).

// CHECK-LABEL: func.func @relu6(%arg0: vector<16xf32>)
// CHECK: [[MAX:%[0-9]+]] = "llvm.intr.maximum"(%arg0, {{%[0-9]+}})
// CHECK-NEXT: "llvm.intr.minimum"([[MAX]], {{%[0-9]+}})
// CHECK-NOT: llvm.select
func.func @relu6(%x: vector<16xf32>) -> vector<16xf32> {
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %six = arith.constant dense<6.0> : vector<16xf32>
  %0 = arith.maximumf %x, %zero : vector<16xf32>
  %1 = arith.minimumf %0, %six : vector<16xf32>
  return %1 : vector<16xf32>
}
