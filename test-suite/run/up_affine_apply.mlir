// affine.apply: floordiv / mod / ceildiv round toward minus infinity; symbols; composition.
// differential
// run: @floor2(-7) == -4
// run: @floor2(7) == 3
// run: @mod4(-7) == 1
// run: @mod4(-8) == 0
// run: @ceil4(-7) == -1
// run: @ceil4(7) == 2
// (d0, d1)[s0] -> (3 d0 - d1 + 2 s0 + 1): (4, 5)[6] = 20
// run: @linear(4, 5, 6) == 20
// tiled index: (d0) -> (d0 floordiv 16 * 100 + d0 mod 16): 37 -> 2*100 + 5 = 205; -1 -> -100 + 15 = -85
// run: @tile(37) == 205
// run: @tile(-1) == -85

func.func @floor2(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%a)
  return %r : index
}

func.func @mod4(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 mod 4)>(%a)
  return %r : index
}

func.func @ceil4(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> (d0 ceildiv 4)>(%a)
  return %r : index
}

func.func @linear(%a: index, %b: index, %s: index) -> index {
  %r = affine.apply affine_map<(d0, d1)[s0] -> (d0 * 3 - d1 + s0 * 2 + 1)>(%a, %b)[%s]
  return %r : index
}

func.func @tile(%a: index) -> index {
  %r = affine.apply affine_map<(d0) -> ((d0 floordiv 16) * 100 + d0 mod 16)>(%a)
  return %r : index
}
