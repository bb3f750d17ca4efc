// RUN: --passes=convert-func-to-llvm,convert-arith-to-llvm,reconcile-unrealized-casts
// Each partial conversion leaves a cast where converted and unconverted operations meet (index
// argument -> i64 for the add); once both sides are converted the pair cancels and
// reconcile-unrealized-casts removes it.

// CHECK-LABEL: llvm.func @f(%arg0: i32, %arg1: i32, %arg2: i64) -> (i64)
// CHECK-NEXT: [[SUM:%[0-9]+]] = llvm.add %arg0, %arg1 : i32
// CHECK-NEXT: [[WIDE:%[0-9]+]] = llvm.sext [[SUM]] : i32 to i64
// CHECK-NEXT: [[R:%[0-9]+]] = llvm.add [[WIDE]], %arg2 : i64
// CHECK-NEXT: llvm.return [[R]] : i64
// CHECK-NOT: unrealized_conversion_cast
func.func @f(%a: i32, %b: i32, %i: index) -> i64 {
  %c = arith.addi %a, %b : i32
  %x = arith.extsi %c : i32 to i64
  %j = arith.index_cast %i : index to i64
  %s = arith.addi %x, %j : i64
  return %s : i64
}
