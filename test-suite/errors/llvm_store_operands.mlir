// error: 4:3: 'llvm.store': stores through a pointer (the second operand), not i32
// The operands of a store are the value, then the pointer.
llvm.func @f(%p: !llvm.ptr, %v: i32) {
  "llvm.store"(%p, %v) : (!llvm.ptr, i32) -> ()
  llvm.return
}
