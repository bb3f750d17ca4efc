// Bitwise and shift operations: andi, ori, xori, shli, shrsi, shrui.
// differential
// 0b1100 & 0b1010 = 8, | = 14, ^ = 6
// run: @and(12, 10) == 8
// run: @or(12, 10) == 14
// run: @xor(12, 10) == 6
// shifts on i32: 1 << 31 = -2147483648; -16 >> 2 (arithmetic) = -4; -16 >>> 28 (logical) = 15
// run: @shl(1, 31) == -2147483648
// run: @shrsi(-16, 2) == -4
// run: @shrui(-16, 28) == 15
// popcount by loop: 0xF0F0 has 8 bits; -1 (i32) has 32
// run: @popcount(61680) == 8
// run: @popcount(-1) == 32
// i8 rotate left by 3 via shifts: 0b1001_0110 (150) -> 0b1011_0100 (180) = -76 as i8
// run: @rotl8(-106, 3) == -76

func.func @and(%a: i32, %b: i32) -> i32 {
  %r = arith.andi %a, %b : i32
  return %r : i32
}
func.func @or(%a: i32, %b: i32) -> i32 {
  %r = arith.ori %a, %b : i32
  return %r : i32
}
func.func @xor(%a: i32, %b: i32) -> i32 {
  %r = arith.xori %a, %b : i32
  return %r : i32
}
func.func @shl(%a: i32, %b: i32) -> i32 {
  %r = arith.shli %a, %b : i32
  return %r : i32
}
func.func @shrsi(%a: i32, %b: i32) -> i32 {
  %r = arith.shrsi %a, %b : i32
  return %r : i32
}
func.func @shrui(%a: i32, %b: i32) -> i32 {
  %r = arith.shrui %a, %b : i32
  return %r : i32
}
func.func @popcount(%x: i32) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.for %i = %c0 to %c32 step %c1 iter_args(%v = %x, %n = %zero) -> (i32, i32) {
    %bit = arith.andi %v, %one : i32
    %n2 = arith.addi %n, %bit : i32
    %v2 = arith.shrui %v, %one : i32
    scf.yield %v2, %n2 : i32, i32
  }
  return %r#1 : i32
}
func.func @rotl8(%x: i8, %k: i8) -> i8 {
  %eight = arith.constant 8 : i8
  %l = arith.shli %x, %k : i8
  %rk = arith.subi %eight, %k : i8
  %r = arith.shrui %x, %rk : i8
  %o = arith.ori %l, %r : i8
  return %o : i8
}
