// error: 4:34: expected a constant lane number, found '%i'
// A shuffle's mask is a list of lane numbers; an SSA value in it is refused where it stands.
func.func @f(%a: vector<4xf32>, %b: vector<4xf32>, %i: index) -> vector<2xf32> {
  %s = vector.shuffle %a, %b [0, %i] : vector<4xf32>, vector<4xf32>
  return %s : vector<2xf32>
}
