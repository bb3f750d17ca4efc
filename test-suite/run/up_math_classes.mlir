// The math ops beyond the elementary functions: erfc, fpowi (LLVM's powi), ipowi (by squaring,
// negative powers included) and sincos; the class tests are in up_math_class_tests.mlir.
// differential
// run: @erfc_and_powers(1.5) == 7.8
// run: @ipow(3, 5) == 243
// run: @ipow(-2, 7) == -128
// run: @ipow(-1, -3) == -1
// run: @ipow(1, -7) == 1
// run: @ipow(5, -1) == 0
// run: @ipow(7, 0) == 1
// run: @ipow(2, 62) == 4611686018427387904
// run: @sincos(0.5) == 1.3570081

// erfc(1.5) * 100 + 1.5^3 (fpowi, f32 and i32) + 2^-2 * 4 (fpowi, f64 and i64)
// = 3.3894854 + 3.375 + 1 = 7.7644854, rounded to one decimal: 7.8.
func.func @erfc_and_powers(%x: f32) -> f32 {
  %e = math.erfc %x : f32
  %three = arith.constant 3 : i32
  %c = math.fpowi %x, %three : f32, i32
  %two = arith.constant 2.0 : f32
  %m2 = arith.constant -2 : i64
  %two64 = arith.extf %two : f32 to f64
  %q = math.fpowi %two64, %m2 : f64, i64
  %q32 = arith.truncf %q : f64 to f32
  %hundred = arith.constant 100.0 : f32
  %four = arith.constant 4.0 : f32
  %e100 = arith.mulf %e, %hundred : f32
  %q4 = arith.mulf %q32, %four : f32
  %s1 = arith.addf %e100, %c : f32
  %s2 = arith.addf %s1, %q4 : f32
  %ten = arith.constant 10.0 : f32
  %r10 = arith.mulf %s2, %ten : f32
  %rr = math.roundeven %r10 : f32
  %out = arith.divf %rr, %ten : f32
  return %out : f32
}

func.func @ipow(%x: i64, %n: i64) -> i64 {
  %r = math.ipowi %x, %n : i64
  return %r : i64
}

// sin(0.5) + cos(0.5) = 0.4794255 + 0.8775826.
func.func @sincos(%x: f32) -> f32 {
  %s, %c = math.sincos %x : f32
  %r = arith.addf %s, %c : f32
  return %r : f32
}
