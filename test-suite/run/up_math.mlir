// math dialect operations with direct LLVM intrinsic lowerings.
// differential
// run: @my_sqrt(2.0) == 1.4142135623730951
// run: @my_absf(-3.25) == 3.25
// fma(2, 3, 0.5) = 6.5
// run: @my_fma(2.0, 3.0, 0.5) == 6.5
// run: @my_floor(-2.5) == -3.0
// run: @my_ceil(-2.5) == -2.0
// run: @my_floor(2.5) == 2.0
// f32 hypot(3, 4) = 5
// run: @my_hypot(3.0, 4.0) == 5.0
// run: @my_copysign(3.0, -0.5) == -3.0

func.func @my_sqrt(%x: f64) -> f64 {
  %r = math.sqrt %x : f64
  return %r : f64
}
func.func @my_absf(%x: f64) -> f64 {
  %r = math.absf %x : f64
  return %r : f64
}
func.func @my_fma(%a: f64, %b: f64, %c: f64) -> f64 {
  %r = math.fma %a, %b, %c : f64
  return %r : f64
}
func.func @my_floor(%x: f64) -> f64 {
  %r = math.floor %x : f64
  return %r : f64
}
func.func @my_ceil(%x: f64) -> f64 {
  %r = math.ceil %x : f64
  return %r : f64
}
func.func @my_hypot(%a: f32, %b: f32) -> f32 {
  %a2 = arith.mulf %a, %a : f32
  %b2 = arith.mulf %b, %b : f32
  %s = arith.addf %a2, %b2 : f32
  %r = math.sqrt %s : f32
  return %r : f32
}
func.func @my_copysign(%a: f64, %b: f64) -> f64 {
  %r = math.copysign %a, %b : f64
  return %r : f64
}
