// error: 4:3: 'math.isnan': expects a floating-point operand, found i32
// The class tests take floats.
func.func @f(%x: i32) -> i1 {
  %r = math.isnan %x : i32
  return %r : i1
}
