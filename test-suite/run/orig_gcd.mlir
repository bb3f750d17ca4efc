// Euclid's gcd as a CFG loop (remis keeps the dividend's sign), and lcm calling it.
// gcd(-12, 18): (-12,18) -> (18,-12) -> (-12,6) -> (6,0) = 6
// run: @gcd(48, 18) == 6
// run: @gcd(17, 5) == 1
// run: @gcd(0, 7) == 7
// run: @gcd(7, 0) == 7
// run: @gcd(270, 192) == 6
// run: @gcd(-12, 18) == 6
// lcm(a, b) = a / gcd(a, b) * b
// run: @lcm(4, 6) == 12
// run: @lcm(21, 6) == 42

func @gcd(%a: i32, %b: i32) -> i32 {
  %zero = constant 0 : i32
  br ^head(%a, %b : i32, i32)
^head(%x: i32, %y: i32):
  %z = cmpi "eq", %y, %zero : i32
  cond_br %z, ^done, ^step
^step:
  %r = remis %x, %y : i32
  br ^head(%y, %r : i32, i32)
^done:
  return %x : i32
}

func @lcm(%a: i32, %b: i32) -> i32 {
  %g = call @gcd(%a, %b) : (i32, i32) -> i32
  %q = divis %a, %g : i32
  %l = muli %q, %b : i32
  return %l : i32
}
