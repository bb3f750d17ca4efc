// error: 6:3: needs at least one reduction dim, each indexing both a and b
// An outer product written as a contraction has nothing to contract; upstream refuses it too
// (vector.outerproduct is the op for it).
func.func @f(%u: vector<3xf32>, %v: vector<2xf32>) -> vector<3x2xf32> {
  %acc = arith.constant dense<1.0> : vector<3x2xf32>
  %c = vector.contract {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"], kind = #vector.kind<add>} %u, %v, %acc : vector<3xf32>, vector<2xf32> into vector<3x2xf32>
  return %c : vector<3x2xf32>
}
