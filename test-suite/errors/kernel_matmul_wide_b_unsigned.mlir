// error: 4:3: an i16 B holds its values: b_unsigned is for bytes
// B widened to i16 already carries its sign; marking it unsigned would say two things.
func.func @f(%a: memref<4x8xi8>, %b: memref<1x2x16x4xi16>, %c: memref<4x16xi32>) {
  kernel.matmul ins(%a, %b : memref<4x8xi8>, memref<1x2x16x4xi16>) outs(%c : memref<4x16xi32>) {b_quads = 16, b_unsigned}
  return
}
