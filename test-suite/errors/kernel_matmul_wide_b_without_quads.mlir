// error: 4:3: an integer matmul multiplies i8 A and B (in quads, B may be i16) into i32
// Only B in quads (laid out by kernel-pack-weights) may be widened to i16.
func.func @f(%a: memref<4x8xi8>, %b: memref<8x16xi16>, %c: memref<4x16xi32>) {
  kernel.matmul ins(%a, %b : memref<4x8xi8>, memref<8x16xi16>) outs(%c : memref<4x16xi32>)
  return
}
