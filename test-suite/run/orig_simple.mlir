// The spec's "Blocks" example (its `br_cond` typo spelled `cond_br`): unnamed function arguments
// named by the entry block's label, block arguments, and a block receiving one value twice.
// true:  c = a     -> d + e = 2a
// false: c = a + a -> d + e = 4a
// run: @simple(5, true) == 10
// run: @simple(5, false) == 20
// run: @simple(-3, true) == -6
// run: @simple(-3, false) == -12
// run: @simple(1000000000000, false) == 4000000000000

func @simple(i64, i1) -> i64 {
^bb0(%a: i64, %cond: i1): // Code dominated by ^bb0 may refer to %a
  cond_br %cond, ^bb1, ^bb2

^bb1:
  br ^bb3(%a: i64)    // Branch passes %a as the argument

^bb2:
  %b = addi %a, %a : i64
  br ^bb3(%b: i64)    // Branch passes %b as the argument

// ^bb3 receives an argument, named %c, from predecessors
// and passes it on to bb4 twice.
^bb3(%c: i64):
  br ^bb4(%c, %c : i64, i64)

^bb4(%d : i64, %e : i64):
  %0 = addi %d, %e : i64
  return %0 : i64
}
