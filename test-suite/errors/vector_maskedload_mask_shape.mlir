// error: 3:3: the mask must be i1 in the shape of vector<8xf32>, not vector<4xi1>
func.func @f(%m: memref<8xf32>, %i: index, %mask: vector<4xi1>, %p: vector<8xf32>) -> vector<8xf32> {
  %v = vector.maskedload %m[%i], %mask, %p : memref<8xf32>, vector<4xi1>, vector<8xf32> into vector<8xf32>
  return %v : vector<8xf32>
}
