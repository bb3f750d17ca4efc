// error: 6:3: with b_panels = 16
// With b_panels, B is [ceil(N / 16), K, 16]: for N = 20 and K = 8 that is [2, 8, 16], so a B of
// [1, 8, 16] (one panel, 16 columns) does not multiply into a 20-column output.
func.func @f(%a: memref<4x8xf32>, %b: memref<1x8x16xf32>, %c: memref<4x20xf32>) {
  // the panels cover 16 columns
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<1x8x16xf32>) outs(%c : memref<4x20xf32>) {b_panels = 16}
  return
}
