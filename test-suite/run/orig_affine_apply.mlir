// affine_apply with the spec's maps: the call form floordiv(d0, 8), an inline map with a symbol,
// and mod / ceildiv, which round toward minus infinity (unlike divis/remis) for negative inputs.
// map10(100, 1000) = 100 floordiv 8 + 1000 floordiv 128 = 12 + 7 = 19
// run: @map10(100, 1000) == 19
// run: @map10(-1, 0) == -1
// run: @inline_sym(3, 4) == 7
// floordiv(-7, 2) = -4, -7 mod 4 = 1, -7 ceildiv 4 = -1, 7 ceildiv 4 = 2, 8 ceildiv 4 = 2
// run: @floor2(-7) == -4
// run: @floor2(7) == 3
// run: @mod4(-7) == 1
// run: @mod4(13) == 1
// run: @ceil4(-7) == -1
// run: @ceil4(7) == 2
// run: @ceil4(8) == 2
// 2-d map with coefficients: (d0, d1)[s0] -> (3 * d0 - d1 + 2 * s0 + 1): (4, 5)[6] = 12 - 5 + 12 + 1 = 20
// run: @linear(4, 5, 6) == 20

#map10 = (d0, d1) -> (floordiv(d0,8) + floordiv(d1,128))

func @map10(%s: index, %t: index) -> index {
  %1 = affine_apply #map10 (%s, %t)
  return %1 : index
}

func @inline_sym(%a: index, %n: index) -> index {
  %2 = affine_apply (i)[s0] -> (i+s0) (%a)[%n]
  return %2 : index
}

func @floor2(%a: index) -> index {
  %r = affine_apply (d0) -> (d0 floordiv 2) (%a)
  return %r : index
}

func @mod4(%a: index) -> index {
  %r = affine_apply (d0) -> (d0 mod 4) (%a)
  return %r : index
}

func @ceil4(%a: index) -> index {
  %r = affine_apply (d0) -> (d0 ceildiv 4) (%a)
  return %r : index
}

func @linear(%a: index, %b: index, %s: index) -> index {
  %r = affine_apply (d0, d1)[s0] -> (3 * d0 - d1 + 2 * s0 + 1) (%a, %b)[%s]
  return %r : index
}
