// error: 3:29: dense literal has 3 element(s), but vector<4xi32> holds 4
func.func @f() -> vector<4xi32> {
  %v = arith.constant dense<[1, 2, 3]> : vector<4xi32>
  return %v : vector<4xi32>
}
