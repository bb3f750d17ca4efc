// error: 4:26: a memref of more than 2^63 bytes
// 2^62 x 4 floats: sizes and offsets that wrap in i64 (it was lowered to an alloca of 0 bytes).
func.func @f() {
  %a = memref.alloca() : memref<4611686018427387904x4xf32>
  return
}
