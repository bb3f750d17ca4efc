// math operations lowered to LLVM's newer intrinsics (tan, asin, acos, atan, sinh, cosh,
// atan2), to C library calls (cbrt, expm1, log1p, asinh, acosh, atanh) and to bit-counting
// intrinsics with their immediate flag (absi, ctlz, cttz, ctpop). Expected values are the
// functions' exact results rounded to double (hand-checked with Python's math module).
// run: @my_tan(0.5) == 0.5463024898437905
// run: @my_asin(0.5) == 0.5235987755982989
// run: @my_acos(0.5) == 1.0471975511965979
// run: @my_atan(1.0) == 0.7853981633974483
// run: @my_sinh(1.0) == 1.1752011936438014
// run: @my_cosh(1.0) == 1.5430806348152437
// run: @my_cbrt(-27.0) == -3.0
// run: @my_expm1(1e-10) == 1.00000000005e-10
// run: @my_log1p(1e-10) == 9.9999999995e-11
// run: @my_asinh(1.0) == 0.881373587019543
// run: @my_acosh(2.0) == 1.3169578969248166
// run: @my_atanh(0.5) == 0.5493061443340549
// run: @my_cbrt_f32(8.0) == 2.0
// atan2(1, -1) = 3*pi/4
// run: @my_atan2(1.0, -1.0) == 2.356194490192345
// run: @my_absi(-7) == 7
// run: @my_ctlz(1) == 31
// run: @my_cttz(8) == 3
// run: @my_ctpop(255) == 8
// run: @my_ctlz_zero(0) == 32
// run: @my_cttz_zero(0) == 32
// the absolute value of the minimum wraps to the minimum
// run: @my_absi(-2147483648) == -2147483648

func.func @my_tan(%x: f64) -> f64 {
  %r = math.tan %x : f64
  return %r : f64
}
func.func @my_asin(%x: f64) -> f64 {
  %r = math.asin %x : f64
  return %r : f64
}
func.func @my_acos(%x: f64) -> f64 {
  %r = math.acos %x : f64
  return %r : f64
}
func.func @my_atan(%x: f64) -> f64 {
  %r = math.atan %x : f64
  return %r : f64
}
func.func @my_sinh(%x: f64) -> f64 {
  %r = math.sinh %x : f64
  return %r : f64
}
func.func @my_cosh(%x: f64) -> f64 {
  %r = math.cosh %x : f64
  return %r : f64
}
func.func @my_cbrt(%x: f64) -> f64 {
  %r = math.cbrt %x : f64
  return %r : f64
}
func.func @my_expm1(%x: f64) -> f64 {
  %r = math.expm1 %x : f64
  return %r : f64
}
func.func @my_log1p(%x: f64) -> f64 {
  %r = math.log1p %x : f64
  return %r : f64
}
func.func @my_asinh(%x: f64) -> f64 {
  %r = math.asinh %x : f64
  return %r : f64
}
func.func @my_acosh(%x: f64) -> f64 {
  %r = math.acosh %x : f64
  return %r : f64
}
func.func @my_atanh(%x: f64) -> f64 {
  %r = math.atanh %x : f64
  return %r : f64
}
func.func @my_cbrt_f32(%x: f32) -> f32 {
  %r = math.cbrt %x : f32
  return %r : f32
}
func.func @my_atan2(%y: f64, %x: f64) -> f64 {
  %r = math.atan2 %y, %x : f64
  return %r : f64
}
func.func @my_absi(%x: i32) -> i32 {
  %r = math.absi %x : i32
  return %r : i32
}
func.func @my_ctlz(%x: i32) -> i32 {
  %r = math.ctlz %x : i32
  return %r : i32
}
func.func @my_cttz(%x: i32) -> i32 {
  %r = math.cttz %x : i32
  return %r : i32
}
func.func @my_ctpop(%x: i32) -> i32 {
  %r = math.ctpop %x : i32
  return %r : i32
}
func.func @my_ctlz_zero(%x: i32) -> i32 {
  %r = math.ctlz %x : i32
  return %r : i32
}
func.func @my_cttz_zero(%x: i32) -> i32 {
  %r = math.cttz %x : i32
  return %r : i32
}
