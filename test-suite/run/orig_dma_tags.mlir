// DMA tags whose memory holds anything: a tag from alloc never written, a tag in memory freed
// from a buffer full of -1s (alloc reuses it), one tag carrying three DMAs, and one tag reused
// by three rounds. runtime-c counts transfers by the tag's address, not in its memory, so each
// wait returns exactly when its copies have landed, and the tags keep what they held.
// Each copy moves src = [1..8] into a zeroed dst, whose sum is then 36 (108 for three rounds);
// recycled_tag returns what its tag held, -1, when the copy landed.
// run: @fresh_tag() == 36
// run: @recycled_tag() == -1
// run: @three_on_one() == 36
// run: @rounds() == 108

func @fill(%src: memref<8xi32>, %dst: memref<8xi32>) {
  %one = constant 1 : i32
  %zero = constant 0 : i32
  for %i = 0 to 8 {
    %iv = index_cast %i : index to i32
    %v = addi %iv, %one : i32
    store %v, %src[%i] : memref<8xi32>
    store %zero, %dst[%i] : memref<8xi32>
  }
  return
}

func @sum(%m: memref<8xi32>) -> i32 {
  %acc = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %zero = constant 0 : i32
  store %zero, %acc[%c0] : memref<1xi32>
  for %i = 0 to 8 {
    %v = load %m[%i] : memref<8xi32>
    %s = load %acc[%c0] : memref<1xi32>
    %t = addi %s, %v : i32
    store %t, %acc[%c0] : memref<1xi32>
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %acc : memref<1xi32>
  return %r : i32
}

func @fresh_tag() -> i32 {
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  call @fill(%src, %dst) : (memref<8xi32>, memref<8xi32>) -> ()
  %tag = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %n = constant 8 : index
  dma_start %src[%c0], %dst[%c0], %n, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
  dma_wait %tag[%c0], %n : memref<1xi32>
  %r = call @sum(%dst) : (memref<8xi32>) -> i32
  return %r : i32
}

// The tag's memory held -1 before; it still does after the wait (nothing writes it).
func @recycled_tag() -> i32 {
  %junk = alloc() : memref<64xi32>
  %m1 = constant -1 : i32
  for %i = 0 to 64 {
    store %m1, %junk[%i] : memref<64xi32>
  }
  dealloc %junk : memref<64xi32>
  %tag = alloc() : memref<64xi32>
  %c0 = constant 0 : index
  store %m1, %tag[%c0] : memref<64xi32>
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  call @fill(%src, %dst) : (memref<8xi32>, memref<8xi32>) -> ()
  %n = constant 8 : index
  dma_start %src[%c0], %dst[%c0], %n, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<64xi32>
  dma_wait %tag[%c0], %n : memref<64xi32>
  %s = call @sum(%dst) : (memref<8xi32>) -> i32
  %t = load %tag[%c0] : memref<64xi32>
  %c36 = constant 36 : i32
  %ok = cmpi "eq", %s, %c36 : i32
  %bad = constant 0 : i32
  %r = select %ok, %t, %bad : i32
  return %r : i32
}

// Three DMAs of the three parts of src on one tag, one wait.
func @three_on_one() -> i32 {
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  call @fill(%src, %dst) : (memref<8xi32>, memref<8xi32>) -> ()
  %tag = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %c3 = constant 3 : index
  %c6 = constant 6 : index
  %n3 = constant 3 : index
  %n2 = constant 2 : index
  dma_start %src[%c0], %dst[%c0], %n3, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
  dma_start %src[%c3], %dst[%c3], %n3, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
  dma_start %src[%c6], %dst[%c6], %n2, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
  dma_wait %tag[%c0], %n3 : memref<1xi32>
  %r = call @sum(%dst) : (memref<8xi32>) -> i32
  return %r : i32
}

// One tag through three rounds, each copying into a cleared dst.
func @rounds() -> i32 {
  %tag = alloc() : memref<1xi32>
  %src = alloc() : memref<8xi32>
  %dst = alloc() : memref<8xi32>
  %total = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %zero = constant 0 : i32
  store %zero, %total[%c0] : memref<1xi32>
  %n = constant 8 : index
  for %round = 0 to 3 {
    call @fill(%src, %dst) : (memref<8xi32>, memref<8xi32>) -> ()
    dma_start %src[%c0], %dst[%c0], %n, %tag[%c0] : memref<8xi32>, memref<8xi32>, memref<1xi32>
    dma_wait %tag[%c0], %n : memref<1xi32>
    %s = call @sum(%dst) : (memref<8xi32>) -> i32
    %t = load %total[%c0] : memref<1xi32>
    %u = addi %t, %s : i32
    store %u, %total[%c0] : memref<1xi32>
  }
  %r = load %total[%c0] : memref<1xi32>
  return %r : i32
}
