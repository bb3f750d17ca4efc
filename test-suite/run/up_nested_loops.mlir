// Nested scf.for with iter_args threaded through, scf.if yielding values inside.
// pairs(n) counts (i, j) in [1, n]^2 with 3 | i*j.
// differential
// n = 6: i or j in {3, 6}: 36 - 4*4 = 20; n = 2: 0; n = 9: 81 - 6*6 = 45
// run: @pairs(6) == 20
// run: @pairs(2) == 0
// run: @pairs(9) == 45
// sum over i < n, j < n of max(i, j): n = 3 -> 0 1 2 / 1 1 2 / 2 2 2 = 13
// run: @sum_max(3) == 13
// run: @sum_max(1) == 0

func.func @pairs(%n: index) -> i32 {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ub = arith.addi %n, %c1 : index
  %r = scf.for %i = %c1 to %ub step %c1 iter_args(%acc = %zero) -> (i32) {
    %inner = scf.for %j = %c1 to %ub step %c1 iter_args(%a = %acc) -> (i32) {
      %p = arith.muli %i, %j : index
      %m = arith.remui %p, %c3 : index
      %div = arith.cmpi eq, %m, %c0 : index
      %next = scf.if %div -> (i32) {
        %x = arith.addi %a, %one : i32
        scf.yield %x : i32
      } else {
        scf.yield %a : i32
      }
      scf.yield %next : i32
    }
    scf.yield %inner : i32
  }
  return %r : i32
}

func.func @sum_max(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %inner = scf.for %j = %c0 to %n step %c1 iter_args(%a = %acc) -> (i64) {
      %m = arith.maxui %i, %j : index
      %v = arith.index_cast %m : index to i64
      %s = arith.addi %a, %v : i64
      scf.yield %s : i64
    }
    scf.yield %inner : i64
  }
  return %r : i64
}
