// A cf loop with several exits and a loop nested through blocks: Collatz step counts.
// differential
// steps(1) = 0, steps(6) = 8 (6 3 10 5 16 8 4 2 1), steps(27) = 111
// run: @steps(1) == 0
// run: @steps(6) == 8
// run: @steps(27) == 111
// the start below n with the most steps: n = 10 -> 9 (19 steps); n = 30 -> 27
// run: @longest_below(10) == 9
// run: @longest_below(30) == 27

func.func @steps(%n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  cf.br ^head(%n, %zero : i64, i64)
^head(%x: i64, %k: i64):
  %done = arith.cmpi sle, %x, %one : i64
  cf.cond_br %done, ^exit(%k : i64), ^step
^step:
  %k1 = arith.addi %k, %one : i64
  %r = arith.remui %x, %two : i64
  %even = arith.cmpi eq, %r, %zero : i64
  cf.cond_br %even, ^half, ^triple
^half:
  %h = arith.divui %x, %two : i64
  cf.br ^head(%h, %k1 : i64, i64)
^triple:
  %t = arith.muli %x, %three : i64
  %t1 = arith.addi %t, %one : i64
  cf.br ^head(%t1, %k1 : i64, i64)
^exit(%res: i64):
  return %res : i64
}

func.func @longest_below(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  cf.br ^loop(%one, %one, %m1 : i64, i64, i64)
^loop(%i: i64, %best: i64, %best_steps: i64):
  %more = arith.cmpi slt, %i, %n : i64
  cf.cond_br %more, ^body, ^exit
^body:
  %s = func.call @steps(%i) : (i64) -> i64
  %better = arith.cmpi sgt, %s, %best_steps : i64
  %nb = arith.select %better, %i, %best : i64
  %ns = arith.select %better, %s, %best_steps : i64
  %i1 = arith.addi %i, %one : i64
  cf.br ^loop(%i1, %nb, %ns : i64, i64, i64)
^exit:
  return %best : i64
}
