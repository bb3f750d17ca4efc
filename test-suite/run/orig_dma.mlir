// dma_start / dma_wait in the original spelling, self-contained.
// src[i] = i*i + 1 = [1, 2, 5, 10, 17, 26, 37, 50]; dst starts as eight 100s.
// The DMA copies 4 elements from src[2] to dst[0]: dst = [5, 10, 17, 26, 100, 100, 100, 100].
// checksum = sum dst[i] * (i+1) = 5 + 20 + 51 + 104 + 100*(5+6+7+8) = 180 + 2600 = 2780
// run: @dma_checksum() == 2780
// Two DMAs on two tags, waited on in the opposite order: dst = [1, 2, 5, 10, 17, 26, 37, 50]
// checksum = 1 + 4 + 15 + 40 + 85 + 156 + 259 + 400 = 960
// run: @dma_two() == 960

func @dma_checksum() -> i32 {
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  %tag = alloc() : memref<1xi32>
  %hundred = constant 100 : i32
  %one = constant 1 : i32
  for %i = 0 to 8 {
    %iv = index_cast %i : index to i32
    %sq = muli %iv, %iv : i32
    %v = addi %sq, %one : i32
    store %v, %src[%i] : memref<8xi32>
    store %hundred, %dst[%i] : memref<8xi32>
  }
  %c0 = constant 0 : index
  %c2 = constant 2 : index
  %num = constant 4 : index
  dma_start %src[%c2], %dst[%c0], %num, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
  dma_wait %tag[%c0], %num : memref<1xi32>
  %acc = alloc() : memref<1xi32>
  %zero = constant 0 : i32
  store %zero, %acc[%c0] : memref<1xi32>
  for %j = 0 to 8 {
    %v = load %dst[%j] : memref<8xi32>
    %w0 = index_cast %j : index to i32
    %w = addi %w0, %one : i32
    %p = muli %v, %w : i32
    %s = load %acc[%c0] : memref<1xi32>
    %t = addi %s, %p : i32
    store %t, %acc[%c0] : memref<1xi32>
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %src : memref<8xi32>
  dealloc %dst : memref<8xi32>
  dealloc %tag : memref<1xi32>
  dealloc %acc : memref<1xi32>
  return %r : i32
}

func @dma_two() -> i32 {
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  %tags = alloc() : memref<2xi32>
  %one = constant 1 : i32
  for %i = 0 to 8 {
    %iv = index_cast %i : index to i32
    %sq = muli %iv, %iv : i32
    %v = addi %sq, %one : i32
    store %v, %src[%i] : memref<8xi32>
  }
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c4 = constant 4 : index
  dma_start %src[%c0], %dst[%c0], %c4, %tags[%c0] : memref<8xi32>, memref<8xi32>, memref<2xi32>
  dma_start %src[%c4], %dst[%c4], %c4, %tags[%c1] : memref<8xi32>, memref<8xi32>, memref<2xi32>
  dma_wait %tags[%c1], %c4 : memref<2xi32>
  dma_wait %tags[%c0], %c4 : memref<2xi32>
  %acc = alloc() : memref<1xi32>
  %zero = constant 0 : i32
  store %zero, %acc[%c0] : memref<1xi32>
  for %j = 0 to 8 {
    %v = load %dst[%j] : memref<8xi32>
    %w0 = index_cast %j : index to i32
    %w = addi %w0, %one : i32
    %p = muli %v, %w : i32
    %s = load %acc[%c0] : memref<1xi32>
    %t = addi %s, %p : i32
    store %t, %acc[%c0] : memref<1xi32>
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %src : memref<8xi32>
  dealloc %dst : memref<8xi32>
  dealloc %tags : memref<2xi32>
  dealloc %acc : memref<1xi32>
  return %r : i32
}
