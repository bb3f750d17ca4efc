// error: 3:3: 'arith.extf': extends a float to a wider float, not f64 to f32
func.func @f(%a: f64) -> f32 {
  %r = arith.extf %a : f64 to f32
  return %r : f32
}
