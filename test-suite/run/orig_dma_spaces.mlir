// The spec's dma example uses memrefs in memory spaces (0, 2, 4) with identity layout maps. On a
// CPU every memory space is ordinary memory; the data must move the same way.
// src[i] = 3 i, dst after the DMA of 6 elements from src[1] to dst[2] = [0, 0, 3, 6, 9, 12, 15, 18]
// checksum = sum dst = 63
// run: @dma_spaces() == 63

#id = (d0) -> (d0)

func @dma_spaces() -> i32 {
  %src = alloc() : memref<8xi32, #id, 0>
  %dst = alloc() : memref<8xi32, #id, 2>
  %tag = alloc() : memref<1xi32, #id, 4>
  %zero = constant 0 : i32
  %three = constant 3 : i32
  for %i = 0 to 8 {
    %iv = index_cast %i : index to i32
    %v = muli %iv, %three : i32
    store %v, %src[%i] : memref<8xi32, #id, 0>
    store %zero, %dst[%i] : memref<8xi32, #id, 2>
  }
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c2 = constant 2 : index
  %size = constant 6 : index
  dma_start %src[%c1], %dst[%c2], %size, %tag[%c0] :
     memref<8xi32, #id, 0>, memref<8xi32, #id, 2>, memref<1xi32, #id, 4>
  dma_wait %tag[%c0], %size : memref<1xi32, #id, 4>
  %acc = alloc() : memref<1xi32>
  store %zero, %acc[%c0] : memref<1xi32>
  for %j = 0 to 8 {
    %v = load %dst[%j] : memref<8xi32, #id, 2>
    %s = load %acc[%c0] : memref<1xi32>
    %t = addi %s, %v : i32
    store %t, %acc[%c0] : memref<1xi32>
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %src : memref<8xi32, #id, 0>
  dealloc %dst : memref<8xi32, #id, 2>
  dealloc %tag : memref<1xi32, #id, 4>
  dealloc %acc : memref<1xi32>
  return %r : i32
}
