// Bubble sort on a memref with a `for` nest, compare-and-swap written with cmpi + select, and
// affine_apply for the neighbour index.
// data[i] = (5 i + 3) mod 8 = [3, 0, 5, 2, 7, 4, 1, 6], a permutation of 0..7.
// sorted: [0, 1, ..., 7]; checksum sum data[i] * (i + 1) = sum i (i + 1) = 140 + 28 = 168
// run: @sort_checksum() == 168
// run: @sorted_ends() == 7

#next = (d0) -> (d0 + 1)

func @fill(%m: memref<8xi32>) {
  %five = constant 5 : i32
  %three = constant 3 : i32
  %eight = constant 8 : i32
  for %i = 0 to 8 {
    %iv = index_cast %i : index to i32
    %p = muli %iv, %five : i32
    %q = addi %p, %three : i32
    %r = remis %q, %eight : i32
    store %r, %m[%i] : memref<8xi32>
  }
  return
}

func @sort(%m: memref<8xi32>) {
  for %i = 0 to 8 {
    for %j = 0 to 7 {
      %k = affine_apply #next(%j)
      %a = load %m[%j] : memref<8xi32>
      %b = load %m[%k] : memref<8xi32>
      %gt = cmpi "sgt", %a, %b : i32
      %lo = select %gt, %b, %a : i32
      %hi = select %gt, %a, %b : i32
      store %lo, %m[%j] : memref<8xi32>
      store %hi, %m[%k] : memref<8xi32>
    }
  }
  return
}

func @sort_checksum() -> i32 {
  %m = alloc() : memref<8xi32>
  call @fill(%m) : (memref<8xi32>) -> ()
  call @sort(%m) : (memref<8xi32>) -> ()
  %acc = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %zero = constant 0 : i32
  %one = constant 1 : i32
  store %zero, %acc[%c0] : memref<1xi32>
  for %i = 0 to 8 {
    %v = load %m[%i] : memref<8xi32>
    %w0 = index_cast %i : index to i32
    %w = addi %w0, %one : i32
    %p = muli %v, %w : i32
    %s = load %acc[%c0] : memref<1xi32>
    %t = addi %s, %p : i32
    store %t, %acc[%c0] : memref<1xi32>
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %acc : memref<1xi32>
  dealloc %m : memref<8xi32>
  return %r : i32
}

// sorted[0] * 100 + sorted[7] = 0 * 100 + 7
func @sorted_ends() -> i32 {
  %m = alloc() : memref<8xi32>
  call @fill(%m) : (memref<8xi32>) -> ()
  call @sort(%m) : (memref<8xi32>) -> ()
  %c0 = constant 0 : index
  %c7 = constant 7 : index
  %a = load %m[%c0] : memref<8xi32>
  %b = load %m[%c7] : memref<8xi32>
  %hundred = constant 100 : i32
  %a100 = muli %a, %hundred : i32
  %r = addi %a100, %b : i32
  dealloc %m : memref<8xi32>
  return %r : i32
}
