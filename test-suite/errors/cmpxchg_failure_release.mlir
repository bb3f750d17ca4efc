// error: 4:3: 'llvm.cmpxchg': failure_ordering release is not one of monotonic, acquire, seq_cst
// A failed compare-and-exchange only reads, so its ordering cannot release.
llvm.func @f(%p: !llvm.ptr, %c: i32, %n: i32) -> i32 {
  %r = llvm.cmpxchg %p, %c, %n acq_rel release : !llvm.ptr, i32
  %v = llvm.extractvalue %r[0] : !llvm.struct<(i32, i1)>
  llvm.return %v : i32
}
