// func.constant and func.call_indirect; function values through block arguments and calls.
// differential
// run: @apply(true, 7) == 49
// run: @apply(false, 7) == -7
// run: @quad(3) == 81
// fold over [1, 2, 3, 4] with add -> 10, with mul -> 24
// run: @fold(true) == 10
// run: @fold(false) == 24

func.func @square(%x: i32) -> i32 {
  %r = arith.muli %x, %x : i32
  return %r : i32
}

func.func @negate(%x: i32) -> i32 {
  %z = arith.constant 0 : i32
  %r = arith.subi %z, %x : i32
  return %r : i32
}

func.func @apply(%sel: i1, %x: i32) -> i32 {
  %f = func.constant @square : (i32) -> i32
  %g = func.constant @negate : (i32) -> i32
  cf.cond_br %sel, ^call(%f : (i32) -> i32), ^call(%g : (i32) -> i32)
^call(%h: (i32) -> i32):
  %r = func.call_indirect %h(%x) : (i32) -> i32
  return %r : i32
}

func.func @twice(%f: (i32) -> i32, %x: i32) -> i32 {
  %a = func.call_indirect %f(%x) : (i32) -> i32
  %b = func.call_indirect %f(%a) : (i32) -> i32
  return %b : i32
}

func.func @quad(%x: i32) -> i32 {
  %sq = func.constant @square : (i32) -> i32
  %r = func.call @twice(%sq, %x) : ((i32) -> i32, i32) -> i32
  return %r : i32
}

func.func private @add(%a: i64, %b: i64) -> i64 {
  %r = arith.addi %a, %b : i64
  return %r : i64
}

func.func private @mul(%a: i64, %b: i64) -> i64 {
  %r = arith.muli %a, %b : i64
  return %r : i64
}

func.func @fold(%use_add: i1) -> i64 {
  %add = func.constant @add : (i64, i64) -> i64
  %mul = func.constant @mul : (i64, i64) -> i64
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %op = arith.select %use_add, %add, %mul : (i64, i64) -> i64
  %init = arith.select %use_add, %zero, %one : i64
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c1 to %c5 step %c1 iter_args(%acc = %init) -> (i64) {
    %v = arith.index_cast %i : index to i64
    %n = func.call_indirect %op(%acc, %v) : (i64, i64) -> i64
    scf.yield %n : i64
  }
  return %r : i64
}
