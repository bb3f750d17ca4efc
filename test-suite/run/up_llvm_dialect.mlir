// Functions written directly in the llvm dialect: llvm.func, llvm.mlir.constant, integer and
// float ops, llvm.icmp/fcmp, llvm.br/llvm.cond_br with block arguments, llvm.select, llvm.call
// (llvm.alloca/getelementptr/load/store are in up_llvm_alloca.mlir).
// differential
// triangle(n) = n (n + 1) / 2 by a loop: 10 -> 55
// run: @triangle(10) == 55
// run: @triangle(0) == 0
// run: @twice_triangle(4) == 20
// run: @fabs_diff(1.5, 4.0) == 2.5

llvm.func @triangle(%n: i64) -> i64 {
  %zero = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^loop(%zero, %zero : i64, i64)
^loop(%i: i64, %acc: i64):
  %done = llvm.icmp "sgt" %i, %n : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %acc2 = llvm.add %acc, %i : i64
  %i2 = llvm.add %i, %one : i64
  llvm.br ^loop(%i2, %acc2 : i64, i64)
^exit:
  llvm.return %acc : i64
}

llvm.func @twice_triangle(%n: i64) -> i64 {
  %t = llvm.call @triangle(%n) : (i64) -> i64
  %two = llvm.mlir.constant(2 : i64) : i64
  %r = llvm.mul %t, %two : i64
  llvm.return %r : i64
}

llvm.func @fabs_diff(%a: f64, %b: f64) -> f64 {
  %d = llvm.fsub %a, %b : f64
  %n = llvm.fsub %b, %a : f64
  %neg = llvm.fcmp "olt" %d, %n : f64
  %r = llvm.select %neg, %n, %d : i1, f64
  llvm.return %r : f64
}
