// A splat global is materialized only when its value is not zero: 1 GiB of zeroes is storage the
// loader zeroes (nothing written out, whatever the size), and a small non-zero splat is written
// element by element (errors/llvm_global_splat_over_budget.mlir: a large one is refused).
// run: @last_zero() == 0
// run: @last_three() == 3

llvm.mlir.global internal @zeros(dense<0> : tensor<1073741824xi8>) : !llvm.array<1073741824 x i8>
llvm.mlir.global internal constant @threes(dense<3> : tensor<1000xi16>) : !llvm.array<1000 x i16>

llvm.func @last_zero() -> i8 {
  %p = llvm.mlir.addressof @zeros : !llvm.ptr
  %q = llvm.getelementptr %p[0, 1073741823] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<1073741824 x i8>
  %v = llvm.load volatile %q : !llvm.ptr -> i8
  llvm.return %v : i8
}

llvm.func @last_three() -> i16 {
  %p = llvm.mlir.addressof @threes : !llvm.ptr
  %q = llvm.getelementptr %p[0, 999] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<1000 x i16>
  %v = llvm.load %q : !llvm.ptr -> i16
  llvm.return %v : i16
}
