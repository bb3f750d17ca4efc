// error: 6:3: byte_dots 'avx10' is not one of
// stage: driver
// The products written on an integer matmul are applied as they are, so a name no kernel has is
// refused where the weights would be packed for it.
func.func @f(%a: memref<4x8xi8>, %b: memref<8x16xi8>, %c: memref<4x16xi32>) {
  kernel.matmul ins(%a, %b : memref<4x8xi8>, memref<8x16xi8>) outs(%c : memref<4x16xi32>) {a_unsigned, byte_dots = "avx10"}
  return
}
