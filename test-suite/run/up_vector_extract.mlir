// vector.extract / vector.insert, today's upstream spelling for element access (static and
// dynamic positions, `T from vector<...>` / `T into vector<...>` types).
// differential
// [1, 2, 3, 4] * [10, 20, 30, 40] = [10, 40, 90, 160]
// run: @lane2() == 90.0
// run: @lane_dyn(3) == 160.0
// insert 7 at 1 into [0, 0, 0, 0] -> [0, 7, 0, 0]: lane 1 + lane 0 = 7
// run: @insert1() == 7
// 2-d: [[1, 2, 3], [4, 5, 6]][1][2] = 6
// run: @lane_2d() == 6

func.func @lane2() -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : vector<4xf32>
  %m = arith.mulf %a, %b : vector<4xf32>
  %e = vector.extract %m[2] : f32 from vector<4xf32>
  return %e : f32
}

func.func @lane_dyn(%i: index) -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : vector<4xf32>
  %m = arith.mulf %a, %b : vector<4xf32>
  %e = vector.extract %m[%i] : f32 from vector<4xf32>
  return %e : f32
}

func.func @insert1() -> i32 {
  %z = arith.constant dense<0> : vector<4xi32>
  %seven = arith.constant 7 : i32
  %v = vector.insert %seven, %z[1] : i32 into vector<4xi32>
  %a = vector.extract %v[1] : i32 from vector<4xi32>
  %b = vector.extract %v[0] : i32 from vector<4xi32>
  %r = arith.addi %a, %b : i32
  return %r : i32
}

func.func @lane_2d() -> i32 {
  %v = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : vector<2x3xi32>
  %e = vector.extract %v[1, 2] : i32 from vector<2x3xi32>
  return %e : i32
}
