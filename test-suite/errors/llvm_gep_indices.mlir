// error: 4:3: 'llvm.getelementptr': its indices name 2 dynamic index(es), but 1 are given
// rawConstantIndices marks two dynamic indices, but only one operand follows the base.
llvm.func @f(%p: !llvm.ptr, %i: i64) -> !llvm.ptr {
  %q = "llvm.getelementptr"(%p, %i) <{elem_type = f32, rawConstantIndices = array<i32: -2147483648, -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr
  llvm.return %q : !llvm.ptr
}
