// error: 5:72: the source has type memref<16x8xf32>, but the view is declared from memref<16x?xf32>
// The type after the source operand must be the type the view is declared from.
#map_b = (i, j)[s0] -> (i + s0, j)
func @f(%A: memref<16x8xf32>, %o: index, %n: index) {
  %B = view memref<16x?xf32> -> memref<4x?xf32, #map_b> (%n) [%o] %A : memref<16x8xf32>
  return
}
