// Signed vs unsigned division and remainder, with the spec's own examples on i16:
// divis 6 / -2 = -3; diviu 6 / (2^16 - 2) = 0; remis 6 % -2 = 0; remiu 6 % (2^16 - 2) = 6.
// run: @divis16(6, -2) == -3
// run: @diviu16(6, -2) == 0
// run: @remis16(6, -2) == 0
// run: @remiu16(6, -2) == 6
// -2 as unsigned i16 is 65534: 65534 / 6 = 10922 rem 2
// run: @diviu16(-2, 6) == 10922
// run: @remiu16(-2, 6) == 2
// Signed division truncates toward zero: -7 / 2 = -3 rem -1, 7 / -2 = -3 rem 1.
// run: @divis32(-7, 2) == -3
// run: @remis32(-7, 2) == -1
// run: @divis32(7, -2) == -3
// run: @remis32(7, -2) == 1
// -7 as unsigned i32 is 4294967289: / 2 = 2147483644 rem 1
// run: @diviu32(-7, 2) == 2147483644
// run: @remiu32(-7, 2) == 1

func @divis16(%a: i16, %b: i16) -> i16 {
  %r = divis %a, %b : i16
  return %r : i16
}
func @diviu16(%a: i16, %b: i16) -> i16 {
  %r = diviu %a, %b : i16
  return %r : i16
}
func @remis16(%a: i16, %b: i16) -> i16 {
  %r = remis %a, %b : i16
  return %r : i16
}
func @remiu16(%a: i16, %b: i16) -> i16 {
  %r = remiu %a, %b : i16
  return %r : i16
}
func @divis32(%a: i32, %b: i32) -> i32 {
  %r = divis %a, %b : i32
  return %r : i32
}
func @remis32(%a: i32, %b: i32) -> i32 {
  %r = remis %a, %b : i32
  return %r : i32
}
func @diviu32(%a: i32, %b: i32) -> i32 {
  %r = diviu %a, %b : i32
  return %r : i32
}
func @remiu32(%a: i32, %b: i32) -> i32 {
  %r = remiu %a, %b : i32
  return %r : i32
}
