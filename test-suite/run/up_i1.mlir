// i1 values crossing the C boundary: results from trunci, xori, cmp, and i1 arithmetic. The
// harness reads an i1 result as uint8_t & 1 (LLVM defines only the low bit).
// differential
// run: @parity(7) == true
// run: @parity(6) == false
// run: @not(true) == false
// run: @not(false) == true
// run: @and3(true, true, true) == true
// run: @and3(true, false, true) == false
// xor of the low bits of 5 numbers 1..5: 1^0^1^0^1 = 1
// run: @odd_count_parity(5) == true
// run: @odd_count_parity(4) == false
// i1 as integers: true + true wraps to false; extsi true to i8 = -1, extui = 1
// run: @add_bits(true, true) == false
// run: @ext_bits(true) == -1
// run: @extu_bits(true) == 1

func.func @parity(%x: i32) -> i1 {
  %r = arith.trunci %x : i32 to i1
  return %r : i1
}
func.func @not(%b: i1) -> i1 {
  %t = arith.constant true
  %r = arith.xori %b, %t : i1
  return %r : i1
}
func.func @and3(%a: i1, %b: i1, %c: i1) -> i1 {
  %ab = arith.andi %a, %b : i1
  %r = arith.andi %ab, %c : i1
  return %r : i1
}
func.func @odd_count_parity(%n: index) -> i1 {
  %c1 = arith.constant 1 : index
  %f = arith.constant false
  %ub = arith.addi %n, %c1 : index
  %r = scf.for %i = %c1 to %ub step %c1 iter_args(%p = %f) -> (i1) {
    %iv = arith.index_cast %i : index to i32
    %b = arith.trunci %iv : i32 to i1
    %q = arith.xori %p, %b : i1
    scf.yield %q : i1
  }
  return %r : i1
}
func.func @add_bits(%a: i1, %b: i1) -> i1 {
  %r = arith.addi %a, %b : i1
  return %r : i1
}
func.func @ext_bits(%a: i1) -> i8 {
  %r = arith.extsi %a : i1 to i8
  return %r : i8
}
func.func @extu_bits(%a: i1) -> i8 {
  %r = arith.extui %a : i1 to i8
  return %r : i8
}
