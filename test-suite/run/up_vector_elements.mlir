// vector.extractelement / vector.insertelement with dynamic positions (xcc accepts these; upstream
// MLIR 22 removed them in favor of vector.extract/insert, so this file is not differential).
// a = [1, 2, 3, 4] * 10 = [10, 20, 30, 40]; lane i
// run: @lane(0) == 10.0
// run: @lane(3) == 40.0
// insert 99 at position i into [0, 0, 0, 0], then read lanes i and (i + 1) mod 4: 99 * 1000 + 0
// run: @insert_then_read(2) == 99000
// run: @insert_then_read(3) == 99000

func.func @lane(%i: index) -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %ten = arith.constant dense<10.0> : vector<4xf32>
  %m = arith.mulf %a, %ten : vector<4xf32>
  %e = vector.extractelement %m[%i : index] : vector<4xf32>
  return %e : f32
}

func.func @insert_then_read(%i: index) -> i32 {
  %z = arith.constant dense<0> : vector<4xi32>
  %v99 = arith.constant 99 : i32
  %v = vector.insertelement %v99, %z[%i : index] : vector<4xi32>
  %a = vector.extractelement %v[%i : index] : vector<4xi32>
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %j0 = arith.addi %i, %c1 : index
  %j = arith.remui %j0, %c4 : index
  %b = vector.extractelement %v[%j : index] : vector<4xi32>
  %k = arith.constant 1000 : i32
  %a1000 = arith.muli %a, %k : i32
  %r = arith.addi %a1000, %b : i32
  return %r : i32
}
