// error: 8:3: epilogue_map @twice must take and return one f32
// The map applies to one element of the output: a function of two arguments cannot be it.
func.func private @twice(%x: f32, %y: f32) -> f32 {
  %s = arith.addf %x, %y : f32
  return %s : f32
}
func.func @f(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  "kernel.matmul"(%a, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, epilogue_map = @twice} : (memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>) -> ()
  return
}
