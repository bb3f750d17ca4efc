// upstream
// affine: maps (named and inline, symbols, floordiv/ceildiv/mod), loops with map bounds,
// min/max, steps and iter_args, if on integer sets with else, apply.
#map0 = affine_map<(d0) -> (d0 floordiv 4)>
#map1 = affine_map<(d0, d1)[s0] -> (d0 * 2 + d1 - s0, d0 mod 3)>
#lb = affine_map<(d0) -> (d0, 1)>
#ub = affine_map<(d0)[s0] -> (s0, d0 + 3)>
#set = affine_set<(d0)[s0] : (d0 - 2 >= 0, s0 - d0 - 3 >= 0)>
#eq = affine_set<(d0) : (d0 == 0)>

func.func @affine(%A: memref<?x?xf32>, %N: index) -> index {
  %c0 = arith.constant 0 : index
  %r = affine.for %i = 0 to %N step 2 iter_args(%acc = %c0) -> (index) {
    %a = affine.apply #map0(%i)
    %b = affine.apply affine_map<(d0)[s0] -> (d0 ceildiv 2 + s0)>(%a)[%N]
    %s = arith.addi %acc, %b : index
    affine.yield %s : index
  }
  affine.for %i = 0 to %N {
    affine.for %j = max #lb(%i) to min #ub(%i)[%N] {
      affine.if #set(%i)[%N] {
        %v = memref.load %A[%i, %j] : memref<?x?xf32>
        memref.store %v, %A[%j, %i] : memref<?x?xf32>
      } else {
        affine.if #eq(%j) {
          %w = memref.load %A[%j, %j] : memref<?x?xf32>
          memref.store %w, %A[%i, %i] : memref<?x?xf32>
        }
      }
    }
  }
  affine.for %k = -5 to 5 {
  }
  return %r : index
}
