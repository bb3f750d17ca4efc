// The spec's @simple in the upstream spelling.
// differential
// run: @simple(5, true) == 10
// run: @simple(5, false) == 20
// run: @simple(-7, false) == -28

func.func @simple(%a: i64, %cond: i1) -> i64 {
  cf.cond_br %cond, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : i64)
^bb2:
  %b = arith.addi %a, %a : i64
  cf.br ^bb3(%b : i64)
^bb3(%c: i64):
  cf.br ^bb4(%c, %c : i64, i64)
^bb4(%d: i64, %e: i64):
  %0 = arith.addi %d, %e : i64
  return %0 : i64
}
