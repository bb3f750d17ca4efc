// Function values: `constant @f`, passed through block arguments and function arguments, and
// called with call_indirect.
// run: @apply(true, 7) == 49
// run: @apply(false, 7) == -7
// quad(x) = twice(square, x) = (x^2)^2
// run: @quad(3) == 81
// run: @quad(-2) == 16

func @square(%x: i32) -> i32 {
  %r = muli %x, %x : i32
  return %r : i32
}

func @negate(%x: i32) -> i32 {
  %z = constant 0 : i32
  %r = subi %z, %x : i32
  return %r : i32
}

func @apply(%sel: i1, %x: i32) -> i32 {
  %f = constant @square : (i32) -> i32
  %g = constant @negate : (i32) -> i32
  cond_br %sel, ^call(%f : (i32) -> i32), ^call(%g : (i32) -> i32)
^call(%h: (i32) -> i32):
  %r = call_indirect %h(%x) : (i32) -> i32
  return %r : i32
}

func @twice(%f: (i32) -> i32, %x: i32) -> i32 {
  %a = call_indirect %f(%x) : (i32) -> i32
  %b = call_indirect %f(%a) : (i32) -> i32
  return %b : i32
}

func @quad(%x: i32) -> i32 {
  %sq = constant @square : (i32) -> i32
  %r = call @twice(%sq, %x) : ((i32) -> i32, i32) -> i32
  return %r : i32
}
