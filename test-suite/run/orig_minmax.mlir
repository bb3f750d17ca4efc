// min/max with cmpi + select, signed and unsigned ("The select operation combined with cmpi can
// be used to implement min and max with signed or unsigned comparison semantics").
// -5 unsigned is 0xFFFFFFFB, larger than 3.
// run: @smax(-5, 3) == 3
// run: @umax(-5, 3) == -5
// run: @smin(-5, 3) == -5
// run: @umin(-5, 3) == 3
// clamp(x, lo, hi) = smin(smax(x, lo), hi)
// run: @clamp(-20, -10, 10) == -10
// run: @clamp(20, -10, 10) == 10
// run: @clamp(4, -10, 10) == 4
// The generic form of select.
// run: @generic_select(true, 1, 2) == 1
// run: @generic_select(false, 1, 2) == 2

func @smax(%a: i32, %b: i32) -> i32 {
  %c = cmpi "sgt", %a, %b : i32
  %r = select %c, %a, %b : i32
  return %r : i32
}
func @umax(%a: i32, %b: i32) -> i32 {
  %c = cmpi "ugt", %a, %b : i32
  %r = select %c, %a, %b : i32
  return %r : i32
}
func @smin(%a: i32, %b: i32) -> i32 {
  %c = cmpi "slt", %a, %b : i32
  %r = select %c, %a, %b : i32
  return %r : i32
}
func @umin(%a: i32, %b: i32) -> i32 {
  %c = cmpi "ult", %a, %b : i32
  %r = select %c, %a, %b : i32
  return %r : i32
}
func @clamp(%x: i32, %lo: i32, %hi: i32) -> i32 {
  %a = call @smax(%x, %lo) : (i32, i32) -> i32
  %b = call @smin(%a, %hi) : (i32, i32) -> i32
  return %b : i32
}
func @generic_select(%c: i1, %a: i64, %b: i64) -> i64 {
  %x = "select"(%c, %a, %b) : (i1, i64, i64) -> i64
  return %x : i64
}
