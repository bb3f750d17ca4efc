// error: 3:3: mask entry 8 picks none of the 8 lanes
func.func @f(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<2xf32> {
  %s = vector.shuffle %a, %b [0, 8] : vector<4xf32>, vector<4xf32>
  return %s : vector<2xf32>
}
