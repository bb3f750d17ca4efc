// error: 3:3: index count does not match the memref's rank
func.func @f(%m: memref<8xf32>, %i: index, %mask: vector<8xi1>, %p: vector<8xf32>) {
  vector.maskedstore %m[%i, %i], %mask, %p : memref<8xf32>, vector<8xi1>, vector<8xf32>
  return
}
