// error: 5:3: for K 100, N 13, 4 bits and blocks of 32: the weights are [2, 512], the scales and zero points [2, 32], not memref<13x64xi8>, memref<2x32xf32> and memref<2x32xi8>
// The 4-bit weights are stored by groups of 8 columns, block by block (K 100 is 4 blocks of 32,
// N 13 is 2 groups): a [N, K / 2] matrix of bytes is not that layout.
func.func @f(%a: memref<3x100xf32>, %q: memref<13x64xi8>, %s: memref<2x32xf32>, %z: memref<2x32xi8>, %y: memref<3x13xf32>) {
  "kernel.matmul_blockwise"(%a, %q, %s, %z, %y) {block_size = 32 : i64} : (memref<3x100xf32>, memref<13x64xi8>, memref<2x32xf32>, memref<2x32xi8>, memref<3x13xf32>) -> ()
  return
}
