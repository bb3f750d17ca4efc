// arith.index_cast (sign-extending) vs arith.index_castui (zero-extending), and index arithmetic.
// differential
// run: @widen(-1) == -1
// run: @widen_ui(-1) == 4294967295
// run: @narrow(4294967297) == 1
// run: @narrow(-2) == -2
// (a + b) * c - a / 2 on index: (3 + 4) * 5 - 3 / 2 = 35 - 1 = 34
// run: @index_math(3, 4, 5) == 34
// -9 / 2 = -4 (truncating), -9 rem 2 = -1 on index: -4 * 10 + -1 = -41
// run: @index_signed(-9) == -41

func.func @widen(%x: i32) -> i64 {
  %i = arith.index_cast %x : i32 to index
  %r = arith.index_cast %i : index to i64
  return %r : i64
}

func.func @widen_ui(%x: i32) -> i64 {
  %i = arith.index_castui %x : i32 to index
  %r = arith.index_cast %i : index to i64
  return %r : i64
}

func.func @narrow(%x: i64) -> i32 {
  %i = arith.index_cast %x : i64 to index
  %r = arith.index_cast %i : index to i32
  return %r : i32
}

func.func @index_math(%a: index, %b: index, %c: index) -> index {
  %s = arith.addi %a, %b : index
  %p = arith.muli %s, %c : index
  %two = arith.constant 2 : index
  %h = arith.divui %a, %two : index
  %r = arith.subi %p, %h : index
  return %r : index
}

func.func @index_signed(%a: index) -> index {
  %two = arith.constant 2 : index
  %ten = arith.constant 10 : index
  %q = arith.divsi %a, %two : index
  %m = arith.remsi %a, %two : index
  %t = arith.muli %q, %ten : index
  %r = arith.addi %t, %m : index
  return %r : index
}
