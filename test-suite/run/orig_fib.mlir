// Recursion and mutual recursion, in the original spelling.
// run: @fib(0) == 0
// run: @fib(1) == 1
// run: @fib(10) == 55
// run: @fib(20) == 6765
// run: @fib(25) == 75025
// run: @is_even(10) == true
// run: @is_even(7) == false
// run: @is_odd(7) == true
// run: @is_odd(0) == false

func @fib(%n: i32) -> i32 {
  %two = constant 2 : i32
  %lt = cmpi "slt", %n, %two : i32
  cond_br %lt, ^base, ^rec
^base:
  return %n : i32
^rec:
  %one = constant 1 : i32
  %n1 = subi %n, %one : i32
  %n2 = subi %n, %two : i32
  %f1 = call @fib(%n1) : (i32) -> i32
  %f2 = call @fib(%n2) : (i32) -> i32
  %s = addi %f1, %f2 : i32
  return %s : i32
}

func @is_even(%n: i32) -> i1 {
  %zero = constant 0 : i32
  %z = cmpi "eq", %n, %zero : i32
  cond_br %z, ^yes, ^no
^yes:
  %t = constant 1 : i1
  return %t : i1
^no:
  %one = constant 1 : i32
  %m = subi %n, %one : i32
  %r = call @is_odd(%m) : (i32) -> i1
  return %r : i1
}

func @is_odd(%n: i32) -> i1 {
  %zero = constant 0 : i32
  %z = cmpi "eq", %n, %zero : i32
  cond_br %z, ^yes, ^no
^yes:
  %f = constant 0 : i1
  return %f : i1
^no:
  %one = constant 1 : i32
  %m = subi %n, %one : i32
  %r = call @is_even(%m) : (i32) -> i1
  return %r : i1
}
