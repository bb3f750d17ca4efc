// error: 4:26: vector.splat gives a vector, not f32
// vector.splat fills a vector.
func.func @f(%x: f32) -> f32 {
  %v = vector.splat %x : f32
  return %v : f32
}
