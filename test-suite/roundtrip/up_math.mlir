// upstream
// math dialect operations.
func.func @math(%x: f32, %y: f32, %z: f64, %i: i32) -> f32 {
  %0 = math.sqrt %x : f32
  %1 = math.rsqrt %0 : f32
  %2 = math.exp %1 : f32
  %3 = math.log %2 : f32
  %4 = math.tanh %3 : f32
  %5 = math.absf %4 : f32
  %6 = math.fma %5, %x, %y : f32
  %7 = math.powf %6, %y : f32
  %8 = math.floor %7 : f32
  %9 = math.ceil %8 : f32
  %10 = math.sin %9 : f32
  %11 = math.cos %10 : f32
  %12 = math.erf %11 : f32
  %13 = math.copysign %12, %y : f32
  %14 = math.round %z : f64
  %15 = math.absi %i : i32
  %16 = math.ctpop %15 : i32
  return %13 : f32
}
