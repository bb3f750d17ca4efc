// vector.contract (kind add): a matmul with an accumulator, a dot product into a scalar, and
// an integer matmul against a transposed B. Values are small integers, so
// every sum is exact whatever the order.
// differential
// run: @matmul_entry() == 115.0
// run: @dot() == 70.0
// run: @transposed_b() == 46

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#bt = affine_map<(i, j, k) -> (j, k)>
#c = affine_map<(i, j, k) -> (i, j)>

// A = [[1, 2, 3], [4, 5, 6]], B[k][j] = k + j, acc = 100: C[1][2] = 100 + 4*2 + 5*3 + 6*4 = 147
// and C[0][0] = 100 + 1*0 + 2*1 + 3*2 = 108; returns C[1][2] - C[0][0] + 76 = 115.
func.func @matmul_entry() -> f32 {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : vector<2x3xf32>
  %b = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0], [2.0, 3.0, 4.0, 5.0]]> : vector<3x4xf32>
  %acc = arith.constant dense<100.0> : vector<2x4xf32>
  %c = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
  %x = vector.extract %c[1, 2] : f32 from vector<2x4xf32>
  %y = vector.extract %c[0, 0] : f32 from vector<2x4xf32>
  %d = arith.subf %x, %y : f32
  %k = arith.constant 76.0 : f32
  %r = arith.addf %d, %k : f32
  return %r : f32
}

// [1, 2, 3, 4] . [2, 3, 4, 5] + 30 = 2 + 6 + 12 + 20 + 30.
func.func @dot() -> f32 {
  %u = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %v = arith.constant dense<[2.0, 3.0, 4.0, 5.0]> : vector<4xf32>
  %acc = arith.constant 30.0 : f32
  %r = vector.contract {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>} %u, %v, %acc : vector<4xf32>, vector<4xf32> into f32
  return %r : f32
}

// C = A B^T with A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]], acc 0: C[1][1] = 3*7 + 4*8 = 53;
// C[0][0] = 1*5 + 2*6 = 17; returns C[1][1] - C[0][0] + 10 = 46.
func.func @transposed_b() -> i32 {
  %a = arith.constant dense<[[1, 2], [3, 4]]> : vector<2x2xi32>
  %b = arith.constant dense<[[5, 6], [7, 8]]> : vector<2x2xi32>
  %acc = arith.constant dense<0> : vector<2x2xi32>
  %c = vector.contract {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<2x2xi32>, vector<2x2xi32> into vector<2x2xi32>
  %x = vector.extract %c[1, 1] : i32 from vector<2x2xi32>
  %y = vector.extract %c[0, 0] : i32 from vector<2x2xi32>
  %d = arith.subi %x, %y : i32
  %ten = arith.constant 10 : i32
  %r = arith.addi %d, %ten : i32
  return %r : i32
}
