// f32 arithmetic: negf, divf, remf, subf, mulf, float constants in several notations; a Newton
// iteration for 1/sqrt.
// differential
// run: @neg(2.5) == -2.5
// run: @div(1.0, 8.0) == 0.125
// remf(7.5, 2) = 1.5 (fmod); remf(-7.5, 2) = -1.5
// run: @rem(7.5, 2.0) == 1.5
// run: @rem(-7.5, 2.0) == -1.5
// constants 1.5e2 + 2.5E-1 + 0x40490FDB (pi as f32 bits) = 150 + 0.25 + 3.14159274 = 153.391592741
// run: @constants() == 153.39159274
// Newton for 1/sqrt(x): y <- y (1.5 - 0.5 x y^2), 20 steps from 0.5 (it converges for y0^2 x < 3)
// run: @rsqrt(4.0) == 0.5
// run: @rsqrt(0.25) == 2.0

func.func @neg(%x: f32) -> f32 {
  %r = arith.negf %x : f32
  return %r : f32
}
func.func @div(%a: f32, %b: f32) -> f32 {
  %r = arith.divf %a, %b : f32
  return %r : f32
}
func.func @rem(%a: f32, %b: f32) -> f32 {
  %r = arith.remf %a, %b : f32
  return %r : f32
}
func.func @constants() -> f32 {
  %a = arith.constant 1.5e2 : f32
  %b = arith.constant 2.5E-1 : f32
  %c = arith.constant 0x40490FDB : f32
  %s = arith.addf %a, %b : f32
  %r = arith.addf %s, %c : f32
  return %r : f32
}
func.func @rsqrt(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %three_halves = arith.constant 1.5 : f32
  %hx = arith.mulf %half, %x : f32
  %r = scf.for %i = %c0 to %c20 step %c1 iter_args(%y = %half) -> (f32) {
    %y2 = arith.mulf %y, %y : f32
    %t = arith.mulf %hx, %y2 : f32
    %u = arith.subf %three_halves, %t : f32
    %n = arith.mulf %y, %u : f32
    scf.yield %n : f32
  }
  return %r : f32
}
