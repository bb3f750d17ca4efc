// upstream
// The llvm dialect and its types: pointers (address spaces), structs (packed), arrays, function
// types, constants, GEP, load/store, insert/extractvalue, compares, branches, calls, intrinsics.
llvm.func @callee(i32, !llvm.ptr) -> !llvm.struct<(i32, f64)>
llvm.func @variadic(i32, ...) -> i32

llvm.func @body(%a: i32, %p: !llvm.ptr, %q: !llvm.ptr<1>, %arr: !llvm.array<4 x i32>) -> i32 {
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %f = llvm.mlir.constant(2.5 : f64) : f64
  %u = llvm.mlir.undef : !llvm.struct<(i32, f64)>
  %z = llvm.mlir.zero : !llvm.ptr
  %s0 = llvm.insertvalue %a, %u[0] : !llvm.struct<(i32, f64)>
  %s1 = llvm.insertvalue %f, %s0[1] : !llvm.struct<(i32, f64)>
  %e = llvm.extractvalue %s1[0] : !llvm.struct<(i32, f64)>
  %g = llvm.getelementptr %p[1, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
  %v = llvm.load %g : !llvm.ptr -> i32
  llvm.store %e, %g : i32, !llvm.ptr
  %pk = llvm.load %p : !llvm.ptr -> !llvm.struct<packed (i8, i32)>
  %sum = llvm.add %v, %c1 : i32
  %x = llvm.sext %sum : i32 to i64
  %t = llvm.trunc %x : i64 to i16
  %cmp = llvm.icmp "slt" %sum, %a : i32
  %r = llvm.call @callee(%sum, %p) : (i32, !llvm.ptr) -> !llvm.struct<(i32, f64)>
  %ov = "llvm.intr.sadd.with.overflow"(%a, %c1) : (i32, i32) -> !llvm.struct<(i32, i1)>
  %a0 = llvm.extractvalue %arr[3] : !llvm.array<4 x i32>
  llvm.cond_br %cmp, ^yes(%sum : i32), ^no
^yes(%y: i32):
  llvm.return %y : i32
^no:
  %fl = llvm.fadd %f, %f : f64
  %fc = llvm.fcmp "olt" %fl, %f : f64
  %sel = llvm.select %fc, %a, %a0 : i1, i32
  llvm.br ^yes(%sel : i32)
}
