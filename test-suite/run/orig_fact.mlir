// Factorial as a CFG loop with block arguments, in the original spelling.
// run: @fact(0) == 1
// run: @fact(1) == 1
// run: @fact(5) == 120
// run: @fact(10) == 3628800
// run: @fact(20) == 2432902008176640000

func @fact(%n: i64) -> i64 {
  %one = constant 1 : i64
  br ^loop(%n, %one : i64, i64)

^loop(%i: i64, %acc: i64):
  %done = cmpi "sle", %i, %one : i64
  cond_br %done, ^exit(%acc : i64), ^body

^body:
  %acc2 = muli %acc, %i : i64
  %i2 = subi %i, %one : i64
  br ^loop(%i2, %acc2 : i64, i64)

^exit(%r: i64):
  return %r : i64
}
