// error: 4:3: epilogue_map @silu names no function
// A matmul's epilogue_map must name a function of the module (the lowering copies its body).
func.func @f(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  "kernel.matmul"(%a, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, epilogue_map = @silu} : (memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>) -> ()
  return
}
