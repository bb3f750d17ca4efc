// error: 11:3: epilogue_map @scaled may only compute with arith and math, not memref.alloca
// The map's body is copied into the GEMM's stores, on vectors: memory it allocates and reads
// has no place there.
func.func private @scaled(%x: f32) -> f32 {
  %m = memref.alloca() : memref<1xf32>
  %c0 = arith.constant 0 : index
  %s = memref.load %m[%c0] : memref<1xf32>
  return %s : f32
}
func.func @f(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  "kernel.matmul"(%a, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, epilogue_map = @scaled} : (memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>) -> ()
  return
}
