// error: 3:3: 'affine.apply': needs the attribute 'map' (an affine map)
func.func @f(%i: index) -> index {
  %r = "affine.apply"(%i) : (index) -> index
  return %r : index
}
