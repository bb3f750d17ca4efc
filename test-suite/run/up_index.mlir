// The index dialect: arithmetic, divisions that round down and up, remainders, shifts, bitwise
// ops, minimum and maximum, comparisons, constants and casts, on index values.
// differential
// run: @mix(7, 3) == 28
// run: @rounding(-7, 2) == -4
// run: @rounding(7, 2) == 4
// run: @unsigned_ceil(7, 2) == 4
// run: @bits(12) == 11
// run: @compare(2, 5) == 1
// run: @compare(5, 2) == 0
// run: @narrow(300) == 44
// run: @widen(-1) == -1
// run: @width() == 64

// For (7, 3): (a + b) * 2 + a / b - a % b + max(a, b) - min(a, b) + (a xor b) = 20 + 2 - 1 + 7
// - 3 + 4 = 29; then 29 + 29 / 2 - 29 % 2 - 29 / 2 = 28, through unsigned max/min and and/or.
func.func @mix(%a: index, %b: index) -> index {
  %two = index.constant 2
  %s = index.add %a, %b
  %d = index.mul %s, %two
  %q = index.divs %a, %b
  %r = index.rems %a, %b
  %hi = index.maxs %a, %b
  %lo = index.mins %a, %b
  %x = index.xor %a, %b
  %t1 = index.add %d, %q
  %t2 = index.sub %t1, %r
  %t3 = index.add %t2, %hi
  %t4 = index.sub %t3, %lo
  %t5 = index.add %t4, %x
  %u = index.divu %t5, %two
  %v = index.remu %t5, %two
  %w = index.add %t5, %u
  %y = index.sub %w, %v
  %z = index.sub %y, %u
  %m = index.maxu %z, %two
  %n = index.minu %m, %z
  %o = index.and %n, %n
  %res = index.or %o, %o
  return %res : index
}

// floordiv(a, b) where a < floordiv(a, b) (negative a), else ceildiv(a, b): -4 for (-7, 2)
// (ceildiv is -3), 4 for (7, 2) (floordiv is 3).
func.func @rounding(%a: index, %b: index) -> index {
  %f = index.floordivs %a, %b
  %c = index.ceildivs %a, %b
  %neg = index.cmp slt(%a, %f)
  %r = arith.select %neg, %f, %c : index
  return %r : index
}

func.func @unsigned_ceil(%a: index, %b: index) -> index {
  %r = index.ceildivu %a, %b
  return %r : index
}

// (x << 1) >> 2 (arithmetic) + (x >> 1 logical) - 1: 24 >> 2 = 6, 12 >> 1 = 6, 6 + 6 - 1 = 11.
func.func @bits(%x: index) -> index {
  %one = index.constant 1
  %two = index.constant 2
  %l = index.shl %x, %one
  %s = index.shrs %l, %two
  %u = index.shru %x, %one
  %t = index.add %s, %u
  %r = index.sub %t, %one
  return %r : index
}

func.func @compare(%a: index, %b: index) -> i32 {
  %lt = index.cmp ult(%a, %b)
  %yes = index.bool.constant true
  %both = arith.andi %lt, %yes : i1
  %r = arith.extui %both : i1 to i32
  return %r : i32
}

func.func @narrow(%x: index) -> i8 {
  %r = index.castu %x : index to i8
  return %r : i8
}

func.func @widen(%x: i32) -> i64 {
  %i = index.casts %x : i32 to index
  %r = index.casts %i : index to i64
  return %r : i64
}

func.func @width() -> index {
  %r = index.sizeof
  return %r : index
}
