// error: 3:21: use of value '%c' expects type i1, but it has type i32
func.func @f(%c: i32, %a: f32, %b: f32) -> f32 {
  %r = arith.select %c, %a, %b : f32
  return %r : f32
}
