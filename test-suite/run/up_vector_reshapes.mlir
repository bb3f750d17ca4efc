// vector.shape_cast, vector.bitcast, vector.extract_strided_slice and
// vector.insert_strided_slice, in one and two dimensions.
// differential
// run: @cast_lane(5) == 5.0
// run: @float_bits() == 1065353216
// run: @slice_1d() == 3
// run: @slice_2d() == 23
// run: @insert_2d() == 208

func.func @cast_lane(%i: index) -> f32 {
  %v = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : vector<2x4xf32>
  %f = vector.shape_cast %v : vector<2x4xf32> to vector<8xf32>
  %r = vector.extract %f[%i] : f32 from vector<8xf32>
  return %r : f32
}

// The bits of 1.0f.
func.func @float_bits() -> i32 {
  %v = arith.constant dense<[1.0, 2.0]> : vector<2xf32>
  %b = vector.bitcast %v : vector<2xf32> to vector<2xi32>
  %r = vector.extract %b[0] : i32 from vector<2xi32>
  return %r : i32
}

func.func @slice_1d() -> i32 {
  %v = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : vector<8xi32>
  %s = vector.extract_strided_slice %v {offsets = [2], sizes = [3], strides = [1]} : vector<8xi32> to vector<3xi32>
  %r = vector.extract %s[1] : i32 from vector<3xi32>
  return %r : i32
}

// v[i][j] = 10 i + j; the 2x2 block at (1, 2); its [1][1] is v[2][3].
func.func @slice_2d() -> i32 {
  %v = arith.constant dense<[[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]]> : vector<4x4xi32>
  %s = vector.extract_strided_slice %v {offsets = [1, 2], sizes = [2, 2], strides = [1, 1]} : vector<4x4xi32> to vector<2x2xi32>
  %r = vector.extract %s[1, 1] : i32 from vector<2x2xi32>
  return %r : i32
}

// [[1, 2], [3, 4]] into a 4x4 of 100s at (1, 1): [0][0], [1][1], [2][2], [2][1] and [3][3] are
// 100, 1, 4, 3 and 100, which sum to 208.
func.func @insert_2d() -> i32 {
  %d = arith.constant dense<100> : vector<4x4xi32>
  %s = arith.constant dense<[[1, 2], [3, 4]]> : vector<2x2xi32>
  %v = vector.insert_strided_slice %s, %d {offsets = [1, 1], strides = [1, 1]} : vector<2x2xi32> into vector<4x4xi32>
  %a = vector.extract %v[0, 0] : i32 from vector<4x4xi32>
  %b = vector.extract %v[1, 1] : i32 from vector<4x4xi32>
  %c = vector.extract %v[2, 2] : i32 from vector<4x4xi32>
  %e = vector.extract %v[2, 1] : i32 from vector<4x4xi32>
  %f = vector.extract %v[3, 3] : i32 from vector<4x4xi32>
  %ab = arith.addi %a, %b : i32
  %abc = arith.addi %ab, %c : i32
  %abce = arith.addi %abc, %e : i32
  %all = arith.addi %abce, %f : i32
  return %all : i32
}
