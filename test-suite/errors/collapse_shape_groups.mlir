// error: 5:3: the reassociation must group the 3 dims in order into 2 non-empty groups
// collapse_shape's groups must cover the source's dims in order, one group per result dim:
// [[0], [2, 1]] reorders them.
func.func @f(%m: memref<2x3x4xf32>) -> memref<2x12xf32> {
  %c = memref.collapse_shape %m [[0], [2, 1]] : memref<2x3x4xf32> into memref<2x12xf32>
  return %c : memref<2x12xf32>
}
