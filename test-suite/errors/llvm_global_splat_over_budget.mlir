// error: 6:1: a global of !llvm.array<1099511627776 x i8> filled with one non-zero value would be materialized as 1099511627776 bytes, over the constant budget
// stage: driver
// A 300-byte file must not make the compiler write out a terabyte: a non-zero splat is materialized
// only up to the constant budget (`--fold-budget`). The same global filled with zeroes is storage
// the loader zeroes, and compiles (run/llvm_global_zero_splat_huge.mlir).
llvm.mlir.global internal constant @g(dense<1> : tensor<1099511627776xi8>) : !llvm.array<1099511627776 x i8>
func.func @f() {
  return
}
