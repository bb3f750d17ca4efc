// error: 4:3: the slice must fit the source and be the result's shape
// Three lanes from offset 6 of an 8-lane vector run past its end.
func.func @f(%v: vector<8xf32>) -> vector<3xf32> {
  %s = vector.extract_strided_slice %v {offsets = [6], sizes = [3], strides = [1]} : vector<8xf32> to vector<3xf32>
  return %s : vector<3xf32>
}
