// dma_start / dma_wait between memrefs the C harness owns: 16 elements from src[1, 0] to dst[0, 0],
// i.e. rows 1 and 2 of src become rows 0 and 1 of dst (a DMA moves a contiguous run of elements).
// src[i][j] = 10 i + j. Row sums: dst row 0 = 10 + ... + 17 = 108, row 1 = 20 + ... + 27 = 188.
// stdout: row 0: 10 11 12 13 14 15 16 17 sum 108
// stdout: row 1: 20 21 22 23 24 25 26 27 sum 188
// stdout: src untouched: 0 37

func @dma_rows(%src: memref<4x8xf32>, %dst: memref<2x8xf32>) {
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %n = constant 16 : index
  %tag = alloc() : memref<1xi32>
  dma_start %src[%c1, %c0], %dst[%c0, %c0], %n, %tag[%c0] : memref<4x8xf32>, memref<2x8xf32>, memref<1xi32>
  dma_wait %tag[%c0], %n : memref<1xi32>
  dealloc %tag : memref<1xi32>
  return
}
