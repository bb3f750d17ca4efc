// The spec's @select in the upstream spelling: cf.cond_br with both edges to one block.
// differential
// run: @select(3, 7, true) == 3
// run: @select(3, 7, false) == 7
// run: @select_i64(-9, 9, true) == -9
// run: @select_i64(-9, 9, false) == 9

func.func @select(%a: i32, %b: i32, %flag: i1) -> i32 {
  cf.cond_br %flag, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  func.return %x : i32
}

// Both edges pass two values, swapped.
func.func @select_i64(%a: i64, %b: i64, %flag: i1) -> i64 {
  cf.cond_br %flag, ^bb1(%a, %b : i64, i64), ^bb1(%b, %a : i64, i64)
^bb1(%x: i64, %y: i64):
  %t = arith.muli %y, %y : i64
  %u = arith.subi %t, %t : i64
  %r = arith.addi %x, %u : i64
  func.return %r : i64
}
