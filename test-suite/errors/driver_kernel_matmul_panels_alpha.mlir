// error: 6:3: kernel.matmul with b_panels needs f32, alpha = beta = 1, a row or column bias, and static K and N
// stage: driver
// Panels are the micro-kernel's layout: a matmul that takes the general path (here alpha = 2)
// cannot read them, and says so rather than reading B as rows.
func.func @f(%a: memref<4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<4x20xf32>) {
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<4x20xf32>) {b_panels = 16, alpha = 2.0 : f32}
  return
}
