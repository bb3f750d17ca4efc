// error: 5:3: with b_panels, K and N are static
// Panels are laid out at compile time for one K and N: a run-time K cannot read them (a
// run-time M can).
func.func @f(%a: memref<4x?xf32>, %b: memref<2x8x16xf32>, %c: memref<4x20xf32>) {
  kernel.matmul ins(%a, %b : memref<4x?xf32>, memref<2x8x16xf32>) outs(%c : memref<4x20xf32>) {b_panels = 16}
  return
}
