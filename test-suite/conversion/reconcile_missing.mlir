// RUN: --passes=convert-func-to-llvm,reconcile-unrealized-casts
// Without convert-arith-to-llvm the index argument is still used as an index: a cast remains,
// and reconciling reports the missing conversion.
// RUN-ERROR: a value of type i64 is used as index (a conversion between them is missing)
func.func @f(%i: index) -> index {
  %j = arith.addi %i, %i : index
  return %j : index
}
