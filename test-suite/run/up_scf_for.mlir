// scf.for: iter_args sums, an i32 induction variable, steps, nested loops, an empty range.
// differential
// sum_{i<n} i = n (n-1) / 2
// run: @sum(10) == 45
// run: @sum(0) == 0
// run: @sum(100000) == 4999950000
// i32 iv from -10 to 11 step 3: -10, -7, -4, -1, 2, 5, 8 = -7
// run: @sum_i32_step() == -7
// nested: sum_{i<n} sum_{j<=i} (i*j) ; n = 4: i=1: 1; i=2: 2+4=6; i=3: 3+6+9=18 -> 25
// run: @nested(4) == 25
// run: @nested(1) == 0
// float accumulation: sum_{i<8} 0.5 = 4.0
// run: @halves(8) == 4.0

func.func @sum(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %v = arith.index_cast %i : index to i64
    %s = arith.addi %acc, %v : i64
    scf.yield %s : i64
  }
  return %r : i64
}

func.func @sum_i32_step() -> i32 {
  %lb = arith.constant -10 : i32
  %ub = arith.constant 11 : i32
  %st = arith.constant 3 : i32
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %zero) -> (i32) : i32 {
    %s = arith.addi %acc, %i : i32
    scf.yield %s : i32
  }
  return %r : i32
}

func.func @nested(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %ip1 = arith.addi %i, %c1 : index
    %inner = scf.for %j = %c0 to %ip1 step %c1 iter_args(%a2 = %acc) -> (i64) {
      %p = arith.muli %i, %j : index
      %pv = arith.index_cast %p : index to i64
      %s = arith.addi %a2, %pv : i64
      scf.yield %s : i64
    }
    scf.yield %inner : i64
  }
  return %r : i64
}

func.func @halves(%n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %s = arith.addf %acc, %half : f64
    scf.yield %s : f64
  }
  return %r : f64
}
