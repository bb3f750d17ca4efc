// error: 3:23: float literal out of range
func.func @f() -> f32 {
  %c = arith.constant 1.0e99999 : f32
  return %c : f32
}
