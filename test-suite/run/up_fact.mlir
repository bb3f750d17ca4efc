// Factorial as a cf loop with block arguments, upstream spelling; and a scf.for version.
// differential
// run: @fact(0) == 1
// run: @fact(5) == 120
// run: @fact(20) == 2432902008176640000
// 13! = 6227020800 overflows i32: 6227020800 mod 2^32 = 1932053504
// run: @fact32(13) == 1932053504
// run: @fact_scf(6) == 720

func.func @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  cf.br ^loop(%n, %one : i64, i64)
^loop(%i: i64, %acc: i64):
  %done = arith.cmpi sle, %i, %one : i64
  cf.cond_br %done, ^exit(%acc : i64), ^body
^body:
  %acc2 = arith.muli %acc, %i : i64
  %i2 = arith.subi %i, %one : i64
  cf.br ^loop(%i2, %acc2 : i64, i64)
^exit(%r: i64):
  return %r : i64
}

func.func @fact32(%n: i32) -> i32 {
  %one = arith.constant 1 : i32
  cf.br ^loop(%n, %one : i32, i32)
^loop(%i: i32, %acc: i32):
  %done = arith.cmpi sle, %i, %one : i32
  cf.cond_br %done, ^exit(%acc : i32), ^body
^body:
  %acc2 = arith.muli %acc, %i : i32
  %i2 = arith.subi %i, %one : i32
  cf.br ^loop(%i2, %acc2 : i32, i32)
^exit(%r: i32):
  return %r : i32
}

func.func @fact_scf(%n: index) -> i64 {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i64
  %ub = arith.addi %n, %c1 : index
  %r = scf.for %i = %c1 to %ub step %c1 iter_args(%acc = %one) -> (i64) {
    %iv = arith.index_cast %i : index to i64
    %m = arith.muli %acc, %iv : i64
    scf.yield %m : i64
  }
  return %r : i64
}
