// The polyhedral constructs of the original spelling: for (constant, symbol, map, min/max bounds,
// step), if / else if / else on integer sets, affine_apply with named and inline maps, the
// floordiv(a, b) call form and the size clause.
#map10 = (d0, d1) -> (floordiv(d0,8) + floordiv(d1,128))
#map57 = (d0)[s0] -> (s0 - d0 - 1)
#affine_map42 = (d0, d1)[s0] -> (d0, d0 + d1 + floordiv(s0,2)) size (10, s0)
#lb = (d0) -> (d0, 1)
#ub = (d0)[s0] -> (s0, d0 + 3)
#set42 = (d0, d1)[s0, s1] : (d0 >= 0, -d0 + s0 - 1 >= 0, d1 >= 0, -d1 + s1 - 1 >= 0)
#first = (d0) : (d0 == 0)

func @loops(%A: memref<?x?xf32>, %N: index, %M: index) {
  for %i = 0 to %N step 2 {
    for %j = max #lb(%i) to min #ub(%i)[%N] {
      %0 = affine_apply #map57(%j)[%N]
      %1 = affine_apply #map10 (%i, %j)
      %2 = affine_apply (i)[s0] -> (i+s0) (%0)[%N]
      %3 = affine_apply (d0) -> (d0 mod 4 + d0 ceildiv 3 - 2 * d0) (%2)
      if #set42(%i, %j)[%N, %M] {
        %v = load %A[%i, %j] : memref<?x?xf32>
        store %v, %A[%j, %i] : memref<?x?xf32>
      } else if #first(%i) {
        %w = load %A[%1, %3] : memref<?x?xf32>
        store %w, %A[%i, %i] : memref<?x?xf32>
      } else {
      }
    }
  }
  for %k = -5 to 5 {
  }
  return
}
