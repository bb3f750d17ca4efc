// error: 4:21: undefined attribute alias '#nope'
#map = (d0) -> (d0 + 1)
func @f(%i: index) -> index {
  %r = affine_apply #nope(%i)
  return %r : index
}
