// affine.min and affine.max: a loop over 0..n in tiles of 4 whose last tile ends at
// min(t + 4, n), summing 1..n; and the max of three expressions of two operands.
// differential
// run: @tiled_sum(10) == 55
// run: @tiled_sum(3) == 6
// run: @tiled_sum(0) == 0
// run: @max3(5, 2) == 16
// run: @max3(-9, 20) == 20

#tile_end = affine_map<(t)[n] -> (t + 4, n)>

func.func @tiled_sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %t = %c0 to %n step %c4 iter_args(%acc = %c0) -> (index) {
    %end = affine.min #tile_end(%t)[%n]
    %inner = scf.for %i = %t to %end step %c1 iter_args(%a = %acc) -> (index) {
      %v = affine.apply affine_map<(i) -> (i + 1)>(%i)
      %s = arith.addi %a, %v : index
      scf.yield %s : index
    }
    scf.yield %inner : index
  }
  return %r : index
}

// max(3a + 1, b, a - b + 1): for (5, 2) of 16, 2 and 4: 16; for (-9, 20) of -26, 20 and -28: 20.
func.func @max3(%a: index, %b: index) -> index {
  %m = affine.max affine_map<(d0, d1) -> (d0 * 3 + 1, d1, d0 - d1 + 1)>(%a, %b)
  return %m : index
}
