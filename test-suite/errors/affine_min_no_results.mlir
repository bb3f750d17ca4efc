// error: 4:3: 'affine.min': needs a map with at least one result
// affine.min picks the least of its map's results: an empty map has none.
func.func @f(%i: index) -> index {
  %r = "affine.min"(%i) {map = affine_map<(d0) -> ()>} : (index) -> index
  return %r : index
}
