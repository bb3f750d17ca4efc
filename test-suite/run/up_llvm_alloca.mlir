// llvm.alloca in its custom form, with llvm.getelementptr / llvm.store / llvm.load on the stack
// array it returns.
// differential
// a[2] = 2 * 2 = 4, a[3] = 3 * 3 = 9: a[3] + a[2] = 13
// run: @stack_array() == 13

llvm.func @stack_array() -> i32 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %a = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %p2 = llvm.getelementptr %a[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
  %p3 = llvm.getelementptr %a[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
  %v4 = llvm.mul %c2, %c2 : i32
  %v9 = llvm.mul %c3, %c3 : i32
  llvm.store %v4, %p2 : i32, !llvm.ptr
  llvm.store %v9, %p3 : i32, !llvm.ptr
  %x = llvm.load %p2 : !llvm.ptr -> i32
  %y = llvm.load %p3 : !llvm.ptr -> i32
  %r = llvm.add %x, %y : i32
  llvm.return %r : i32
}
