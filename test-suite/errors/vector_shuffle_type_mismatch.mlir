// error: 3:3: both vectors must have one type, not vector<4xf32> and vector<8xf32>
func.func @f(%a: vector<4xf32>, %b: vector<8xf32>) -> vector<2xf32> {
  %s = vector.shuffle %a, %b [0, 1] : vector<4xf32>, vector<8xf32>
  return %s : vector<2xf32>
}
