// error: 4:3: 'llvm.load': ordering release is not one of unordered, monotonic, acquire, seq_cst
// An atomic load cannot release; a store cannot acquire.
llvm.func @f(%p: !llvm.ptr) -> i32 {
  %r = llvm.load %p atomic release {alignment = 4 : i64} : !llvm.ptr -> i32
  llvm.return %r : i32
}
