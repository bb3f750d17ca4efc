// error: 6:3: only the minor identity permutation map is supported
// A transfer along the first dim of a 2-D buffer (a column) is upstream's permutation map
// (d0, d1) -> (d0); xcc supports the vector along the last dim only.
func.func @f(%m: memref<4x8xf32>, %i: index) -> vector<4xf32> {
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %i], %p {permutation_map = affine_map<(d0, d1) -> (d0)>} : memref<4x8xf32>, vector<4xf32>
  return %v : vector<4xf32>
}
