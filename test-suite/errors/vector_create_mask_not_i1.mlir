// error: 3:3: the result must be a vector of i1 with one operand per dimension, not vector<4xi32>
func.func @f(%n: index) -> vector<4xi32> {
  %m = vector.create_mask %n : vector<4xi32>
  return %m : vector<4xi32>
}
