// error: 4:23: float literal 1e39 is out of range for f32
// A decimal literal past the type's largest value (infinities are written as bit patterns).
func.func @f() -> f32 {
  %c = arith.constant 1.0e39 : f32
  return %c : f32
}
