// error: 5:3: 'vector.transfer_read': in_bounds needs one flag per vector dim (2)
// A transfer's in_bounds has a flag per vector dim.
func.func @f(%m: memref<4x8xf32>, %i: index) -> vector<2x4xf32> {
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i, %i], %p {in_bounds = [true]} : memref<4x8xf32>, vector<2x4xf32>
  return %v : vector<2x4xf32>
}
