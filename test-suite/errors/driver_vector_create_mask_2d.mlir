// error: 5:3: vector.create_mask of vector<4x4xi1> (only 1-D masks lower)
// stage: driver
// A mask of two dimensions verifies, but only one-dimensional masks lower.
func.func @f(%n: index, %k: index) -> vector<4x4xi1> {
  %m = vector.create_mask %n, %k : vector<4x4xi1>
  return %m : vector<4x4xi1>
}
