// scf.while: the test region runs first and passes values on (scf.condition) to the body or
// out of the loop; the body yields the next iteration's values. Results may differ in type and
// number from the carried values' (here they match), a loop may run zero times, and loops nest
// with scf.if and scf.for.
// differential
// run: @collatz_steps(27) == 111
// run: @collatz_steps(1) == 0
// run: @first_square_above(50) == 8
// run: @first_square_above(-1) == 0
// run: @halvings(10.0) == 4
// run: @triangle_rows(10) == 4

// Steps of the Collatz map from n down to 1.
func.func @collatz_steps(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %steps = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi ne, %x, %c1 : i64
    scf.condition(%more) %x, %steps : i64, i64
  } do {
  ^bb0(%x: i64, %steps: i64):
    %rem = arith.remui %x, %c2 : i64
    %odd = arith.cmpi eq, %rem, %c1 : i64
    %next = scf.if %odd -> (i64) {
      %t = arith.muli %x, %c3 : i64
      %u = arith.addi %t, %c1 : i64
      scf.yield %u : i64
    } else {
      %h = arith.divui %x, %c2 : i64
      scf.yield %h : i64
    }
    %s = arith.addi %steps, %c1 : i64
    scf.yield %next, %s : i64, i64
  }
  return %r#1 : i64
}

// The first i >= 0 with i * i > limit (the loop runs zero times when limit < 0).
func.func @first_square_above(%limit: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %sq = arith.muli %i, %i : i32
    %in = arith.cmpi sle, %sq, %limit : i32
    scf.condition(%in) %i : i32
  } do {
  ^bb0(%j: i32):
    %n = arith.addi %j, %c1 : i32
    scf.yield %n : i32
  }
  return %r : i32
}

// How many times x halves before it is at most 1: a float and an integer carried together.
func.func @halvings(%x: f32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %r:2 = scf.while (%v = %x, %k = %c0) : (f32, i32) -> (f32, i32) {
    %big = arith.cmpf ogt, %v, %one : f32
    scf.condition(%big) %v, %k : f32, i32
  } do {
  ^bb0(%v: f32, %k: i32):
    %h = arith.mulf %v, %half : f32
    %k1 = arith.addi %k, %c1 : i32
    scf.yield %h, %k1 : f32, i32
  }
  return %r#1 : i32
}

// Rows of a triangle (1, 2, 3, ... items) that n items fill completely: a while around a for.
func.func @triangle_rows(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%rows = %c0, %left = %n) : (index, index) -> (index, index) {
    %need = arith.addi %rows, %c1 : index
    %fits = arith.cmpi ule, %need, %left : index
    scf.condition(%fits) %rows, %left : index, index
  } do {
  ^bb0(%rows: index, %left: index):
    %need = arith.addi %rows, %c1 : index
    %used = scf.for %i = %c0 to %need step %c1 iter_args(%acc = %c0) -> (index) {
      %a = arith.addi %acc, %c1 : index
      scf.yield %a : index
    }
    %rest = arith.subi %left, %used : index
    scf.yield %need, %rest : index, index
  }
  return %r#0 : index
}
