// arith's extended-precision operations: addui_extended (the sum and its carry), mulsi_extended
// and mului_extended (the low and high halves of the double-width product), on i32 and on a
// vector of i16.
// differential
// run: @carry(4000000000, 500000000) == 205032705
// run: @carry(1, 2) == 3
// run: @mul_signed(-3, 1073741824) == 1073741814
// run: @mul_unsigned(4294967295, 4294967295) == -1
// run: @vector_halves() == 1789

// 4e9 + 5e8 = 4.5e9 wraps to 205032704 with a carry: sum + carry.
func.func @carry(%a: i32, %b: i32) -> i32 {
  %s, %c = arith.addui_extended %a, %b : i32, i1
  %ci = arith.extui %c : i1 to i32
  %r = arith.addi %s, %ci : i32
  return %r : i32
}

// -3 * 2^30 = -3221225472 = 0xFFFFFFFF_40000000: low 2^30, high -1; returns low + 10 * high.
func.func @mul_signed(%a: i32, %b: i32) -> i32 {
  %l, %h = arith.mulsi_extended %a, %b : i32
  %ten = arith.constant 10 : i32
  %h10 = arith.muli %h, %ten : i32
  %r = arith.addi %l, %h10 : i32
  return %r : i32
}

// (2^32 - 1)^2 = 0xFFFFFFFE_00000001: low 1, high 0xFFFFFFFE (-2 as i32): low + high = -1.
func.func @mul_unsigned(%a: i32, %b: i32) -> i32 {
  %l, %h = arith.mului_extended %a, %b : i32
  %r = arith.addi %l, %h : i32
  return %r : i32
}

// i16 lanes: 300 * 300 = 90000 = 0x15F90 (low 0x5F90 = 24464, high 1), -200 * 300 = -60000 =
// 0xFFFF_15A0 (low 0x15A0 = 5536, high -1), 7 * 9 = 63 (high 0), -1 * -1 = 1 (high 0): the
// lows (unsigned) sum to 30064 and the highs (signed) to 0; returns 30064 - 28275 + 0.
func.func @vector_halves() -> i32 {
  %a = arith.constant dense<[300, -200, 7, -1]> : vector<4xi16>
  %b = arith.constant dense<[300, 300, 9, -1]> : vector<4xi16>
  %l, %h = arith.mulsi_extended %a, %b : vector<4xi16>
  %lw = arith.extui %l : vector<4xi16> to vector<4xi32>
  %hw = arith.extsi %h : vector<4xi16> to vector<4xi32>
  %ls = vector.reduction <add>, %lw : vector<4xi32> into i32
  %hs = vector.reduction <add>, %hw : vector<4xi32> into i32
  %k = arith.constant 28275 : i32
  %d = arith.subi %ls, %k : i32
  %r = arith.addi %d, %hs : i32
  return %r : i32
}
