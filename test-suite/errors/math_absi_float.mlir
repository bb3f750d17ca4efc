// error: 3:3: 'math.absi': expects integer operands, found f32
func.func @f(%b: f32) -> f32 {
  %r = math.absi %b : f32
  return %r : f32
}
