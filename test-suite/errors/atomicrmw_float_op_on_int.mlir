// error: 4:3: 'llvm.atomicrmw': atomicrmw fadd cannot operate on i32
// The floating-point atomicrmw operations take floats.
llvm.func @f(%p: !llvm.ptr, %v: i32) -> i32 {
  %r = llvm.atomicrmw fadd %p, %v monotonic : !llvm.ptr, i32
  llvm.return %r : i32
}
