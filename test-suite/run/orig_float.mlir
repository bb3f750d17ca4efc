// Floating-point arithmetic in the original spelling (addf, subf, mulf, divf) on f64 and f32.
// poly(x) = 3x^2 - 2x + 0.5: poly(2) = 12 - 4 + 0.5 = 8.5; poly(-1.5) = 6.75 + 3 + 0.5 = 10.25
// run: @poly(2.0) == 8.5
// run: @poly(-1.5) == 10.25
// run: @poly(0.0) == 0.5
// harmonic(a, b) = 2ab / (a + b): (1, 3) = 6 / 4 = 1.5; (2, 2) = 2
// run: @harmonic(1.0, 3.0) == 1.5
// run: @harmonic(2.0, 2.0) == 2.0
// f32: (a - b) * (a + b) = a^2 - b^2: (3, 2) = 5; (0.5, 0.25) = 0.1875
// run: @diff_squares(3.0, 2.0) == 5.0
// run: @diff_squares(0.5, 0.25) == 0.1875
// 1 / 3 in f64
// run: @third() == 0.3333333333333333

func @poly(%x: f64) -> f64 {
  %c3 = constant 3.0 : f64
  %c2 = constant 2.0 : f64
  %half = constant 0.5 : f64
  %x2 = mulf %x, %x : f64
  %t1 = mulf %c3, %x2 : f64
  %t2 = mulf %c2, %x : f64
  %d = subf %t1, %t2 : f64
  %r = addf %d, %half : f64
  return %r : f64
}

func @harmonic(%a: f64, %b: f64) -> f64 {
  %two = constant 2.0 : f64
  %ab = mulf %a, %b : f64
  %n = mulf %two, %ab : f64
  %d = addf %a, %b : f64
  %r = divf %n, %d : f64
  return %r : f64
}

func @diff_squares(%a: f32, %b: f32) -> f32 {
  %d = subf %a, %b : f32
  %s = addf %a, %b : f32
  %r = mulf %d, %s : f32
  return %r : f32
}

func @third() -> f64 {
  %one = constant 1.0 : f64
  %three = constant 3.0 : f64
  %r = divf %one, %three : f64
  return %r : f64
}
