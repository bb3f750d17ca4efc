// error: 4:8: the affine map takes 2 dimension(s) and 0 symbol(s), but 1 and 0 are given
#map2 = (d0, d1) -> (d0 + d1)
func @f(%i: index) -> index {
  %r = affine_apply #map2(%i)
  return %r : index
}
