// error: 5:3: vector.maskedload with a mask of vector<2x4xi1> (only 1-D vectors lower)
// stage: driver
// A masked load of a 2-d vector verifies, but only one-dimensional masked accesses lower.
func.func @f(%m: memref<8xf32>, %i: index, %mask: vector<2x4xi1>, %p: vector<2x4xf32>) -> vector<2x4xf32> {
  %v = vector.maskedload %m[%i], %mask, %p : memref<8xf32>, vector<2x4xi1>, vector<2x4xf32> into vector<2x4xf32>
  return %v : vector<2x4xf32>
}
