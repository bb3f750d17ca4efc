// error: 4:3: dim 0 is 24 but its group's dims multiply to 30
// expand_shape's output dims must multiply to the source dim they split.
func.func @f(%m: memref<24xf32>) -> memref<5x6xf32> {
  %e = memref.expand_shape %m [[0, 1]] output_shape [5, 6] : memref<24xf32> into memref<5x6xf32>
  return %e : memref<5x6xf32>
}
