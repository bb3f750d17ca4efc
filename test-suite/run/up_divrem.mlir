// Integer division and remainder, signed vs unsigned, plus ceildiv/floordiv, on i16 and i32.
// The spec's i16 examples: 6 / -2 = -3 signed, 0 unsigned; 6 % -2 = 0 signed, 6 unsigned.
// differential
// run: @divsi16(6, -2) == -3
// run: @divui16(6, -2) == 0
// run: @remsi16(6, -2) == 0
// run: @remui16(6, -2) == 6
// run: @divsi32(-7, 2) == -3
// run: @remsi32(-7, 2) == -1
// run: @divui32(-7, 2) == 2147483644
// run: @remui32(-7, 2) == 1
// floordivsi(-7, 2) = -4, ceildivsi(-7, 2) = -3, ceildivsi(7, 2) = 4, floordivsi(7, -2) = -4
// run: @floordivsi(-7, 2) == -4
// run: @floordivsi(7, -2) == -4
// run: @ceildivsi(-7, 2) == -3
// run: @ceildivsi(7, 2) == 4
// ceildivui(7, 2) = 4; ceildivui(-1, 2) = ceil(4294967295 / 2) = 2147483648
// run: @ceildivui(7, 2) == 4
// run: @ceildivui(-1, 2) == 2147483648

func.func @divsi16(%a: i16, %b: i16) -> i16 {
  %r = arith.divsi %a, %b : i16
  return %r : i16
}
func.func @divui16(%a: i16, %b: i16) -> i16 {
  %r = arith.divui %a, %b : i16
  return %r : i16
}
func.func @remsi16(%a: i16, %b: i16) -> i16 {
  %r = arith.remsi %a, %b : i16
  return %r : i16
}
func.func @remui16(%a: i16, %b: i16) -> i16 {
  %r = arith.remui %a, %b : i16
  return %r : i16
}
func.func @divsi32(%a: i32, %b: i32) -> i32 {
  %r = arith.divsi %a, %b : i32
  return %r : i32
}
func.func @remsi32(%a: i32, %b: i32) -> i32 {
  %r = arith.remsi %a, %b : i32
  return %r : i32
}
func.func @divui32(%a: i32, %b: i32) -> i32 {
  %r = arith.divui %a, %b : i32
  return %r : i32
}
func.func @remui32(%a: i32, %b: i32) -> i32 {
  %r = arith.remui %a, %b : i32
  return %r : i32
}
func.func @floordivsi(%a: i32, %b: i32) -> i32 {
  %r = arith.floordivsi %a, %b : i32
  return %r : i32
}
func.func @ceildivsi(%a: i32, %b: i32) -> i32 {
  %r = arith.ceildivsi %a, %b : i32
  return %r : i32
}
func.func @ceildivui(%a: i32, %b: i32) -> i32 {
  %r = arith.ceildivui %a, %b : i32
  return %r : i32
}
