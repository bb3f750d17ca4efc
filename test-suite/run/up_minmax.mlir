// arith.select and the min/max operations, signed and unsigned, integer and float.
// differential
// run: @select3(true, 1, 2) == 1
// run: @select3(false, 1, 2) == 2
// run: @maxsi(-5, 3) == 3
// run: @maxui(-5, 3) == -5
// run: @minsi(-5, 3) == -5
// run: @minui(-5, 3) == 3
// run: @maxf(-2.5, 1.25) == 1.25
// run: @minf(-2.5, 1.25) == -2.5
// select on floats picked by a float compare: relu
// run: @relu(-3.5) == 0.0
// run: @relu(2.75) == 2.75

func.func @select3(%c: i1, %a: i16, %b: i16) -> i16 {
  %r = arith.select %c, %a, %b : i16
  return %r : i16
}
func.func @maxsi(%a: i32, %b: i32) -> i32 {
  %r = arith.maxsi %a, %b : i32
  return %r : i32
}
func.func @maxui(%a: i32, %b: i32) -> i32 {
  %r = arith.maxui %a, %b : i32
  return %r : i32
}
func.func @minsi(%a: i32, %b: i32) -> i32 {
  %r = arith.minsi %a, %b : i32
  return %r : i32
}
func.func @minui(%a: i32, %b: i32) -> i32 {
  %r = arith.minui %a, %b : i32
  return %r : i32
}
func.func @maxf(%a: f64, %b: f64) -> f64 {
  %r = arith.maximumf %a, %b : f64
  return %r : f64
}
func.func @minf(%a: f64, %b: f64) -> f64 {
  %r = arith.minimumf %a, %b : f64
  return %r : f64
}
func.func @relu(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %pos = arith.cmpf ogt, %x, %zero : f32
  %r = arith.select %pos, %x, %zero : f32
  return %r : f32
}
