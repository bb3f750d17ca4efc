// Recursion with func.call and scf.if yielding values; an iterative version with two iter_args.
// differential
// run: @fib(0) == 0
// run: @fib(1) == 1
// run: @fib(10) == 55
// run: @fib(24) == 46368
// run: @fib_iter(50) == 12586269025
// run: @fib_iter(90) == 2880067194370816120
// Ackermann A(2, 3) = 9, A(3, 3) = 61
// run: @ackermann(2, 3) == 9
// run: @ackermann(3, 3) == 61

func.func @fib(%n: i32) -> i32 {
  %two = arith.constant 2 : i32
  %lt = arith.cmpi slt, %n, %two : i32
  %r = scf.if %lt -> (i32) {
    scf.yield %n : i32
  } else {
    %one = arith.constant 1 : i32
    %n1 = arith.subi %n, %one : i32
    %n2 = arith.subi %n, %two : i32
    %f1 = func.call @fib(%n1) : (i32) -> i32
    %f2 = func.call @fib(%n2) : (i32) -> i32
    %s = arith.addi %f1, %f2 : i32
    scf.yield %s : i32
  }
  return %r : i32
}

func.func @fib_iter(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a0 = arith.constant 0 : i64
  %b0 = arith.constant 1 : i64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0) -> (i64, i64) {
    %s = arith.addi %a, %b : i64
    scf.yield %b, %s : i64, i64
  }
  return %r#0 : i64
}

func.func @ackermann(%m: i64, %n: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %mz = arith.cmpi eq, %m, %zero : i64
  cf.cond_br %mz, ^m_zero, ^m_pos
^m_zero:
  %r0 = arith.addi %n, %one : i64
  return %r0 : i64
^m_pos:
  %m1 = arith.subi %m, %one : i64
  %nz = arith.cmpi eq, %n, %zero : i64
  cf.cond_br %nz, ^n_zero, ^n_pos
^n_zero:
  %r1 = func.call @ackermann(%m1, %one) : (i64, i64) -> i64
  return %r1 : i64
^n_pos:
  %n1 = arith.subi %n, %one : i64
  %inner = func.call @ackermann(%m, %n1) : (i64, i64) -> i64
  %r2 = func.call @ackermann(%m1, %inner) : (i64, i64) -> i64
  return %r2 : i64
}
