// affine.for with iter_args, steps, constant/symbol/map bounds, min/max bounds, affine.apply.
// differential
// sum of squares below n: n = 10 -> 285
// run: @sumsq(10) == 285
// run: @sumsq(0) == 0
// 0, 5, 10, ..., 95: 5 * (0 + ... + 19) = 950
// run: @stepped() == 950
// triangular window count (see orig_for_sum.mlir): N = 5 -> 11, N = 1 -> 0 (i=0: j in [1, 1))
// run: @window(5) == 11
// run: @window(1) == 0
// sum over i in [0, N) of 2 i + 1 = N^2 (via affine.apply)
// run: @odd_sum(12) == 144

#lb = affine_map<(d0) -> (d0, 1)>
#ub = affine_map<(d0)[s0] -> (s0, d0 + 3)>
#odd = affine_map<(d0) -> (d0 * 2 + 1)>

func.func @sumsq(%n: index) -> i64 {
  %zero = arith.constant 0 : i64
  %r = affine.for %i = 0 to %n iter_args(%acc = %zero) -> (i64) {
    %v = arith.index_cast %i : index to i64
    %sq = arith.muli %v, %v : i64
    %s = arith.addi %acc, %sq : i64
    affine.yield %s : i64
  }
  return %r : i64
}

func.func @stepped() -> i64 {
  %zero = arith.constant 0 : i64
  %r = affine.for %i = 0 to 100 step 5 iter_args(%acc = %zero) -> (i64) {
    %v = arith.index_cast %i : index to i64
    %s = arith.addi %acc, %v : i64
    affine.yield %s : i64
  }
  return %r : i64
}

func.func @window(%N: index) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = affine.for %i = 0 to %N iter_args(%acc = %zero) -> (i64) {
    %inner = affine.for %j = max #lb(%i) to min #ub(%i)[%N] iter_args(%a = %acc) -> (i64) {
      %s = arith.addi %a, %one : i64
      affine.yield %s : i64
    }
    affine.yield %inner : i64
  }
  return %r : i64
}

func.func @odd_sum(%N: index) -> i64 {
  %zero = arith.constant 0 : i64
  %r = affine.for %i = 0 to %N iter_args(%acc = %zero) -> (i64) {
    %o = affine.apply #odd(%i)
    %v = arith.index_cast %o : index to i64
    %s = arith.addi %acc, %v : i64
    affine.yield %s : i64
  }
  return %r : i64
}
