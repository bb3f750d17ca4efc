// upstream
// Masked vector accesses: create_mask, maskedload on 1-d and 2-d memrefs, maskedstore; and
// vector.shuffle.
func.func @masked(%m: memref<?xf32>, %t: memref<3x4xf32>, %i: index, %n: index) -> vector<4xf32> {
  %mask = vector.create_mask %n : vector<8xi1>
  %pass = arith.constant dense<0.0> : vector<8xf32>
  %v = vector.maskedload %m[%i], %mask, %pass : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  vector.maskedstore %m[%n], %mask, %v : memref<?xf32>, vector<8xi1>, vector<8xf32>
  %mask4 = vector.create_mask %i : vector<4xi1>
  %pass4 = arith.constant dense<1.0> : vector<4xf32>
  %r = vector.maskedload %t[%i, %n], %mask4, %pass4 : memref<3x4xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  return %r : vector<4xf32>
}

func.func @shuffle(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<6xf32> {
  %s = vector.shuffle %a, %b [0, 5, 2, 7, 1, 4] : vector<4xf32>, vector<4xf32>
  return %s : vector<6xf32>
}
