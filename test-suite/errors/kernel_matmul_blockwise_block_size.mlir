// error: 4:3: block_size is 32, 64, 128 or 256, not 16
// Blocks are whole runs of 32 packed values: MatMulNBits' blocks of 16 are dequantized instead.
func.func @f(%a: memref<3x64xf32>, %q: memref<1x256xi8>, %s: memref<1x32xf32>, %z: memref<1x32xi8>, %y: memref<3x8xf32>) {
  "kernel.matmul_blockwise"(%a, %q, %s, %z, %y) {block_size = 16 : i64} : (memref<3x64xf32>, memref<1x256xi8>, memref<1x32xf32>, memref<1x32xi8>, memref<3x8xf32>) -> ()
  return
}
