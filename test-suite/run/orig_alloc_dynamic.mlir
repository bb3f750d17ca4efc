// A dynamically sized alloc, `dim`, `for` loops with a symbol upper bound, index_cast.
// sumsq(n) = sum_{i<n} i*i = (n-1) n (2n-1) / 6
// run: @sumsq(10) == 285
// run: @sumsq(0) == 0
// run: @sumsq(1) == 0
// run: @sumsq(100) == 328350
// run: @dim_of(17) == 17

func @sumsq(%n: index) -> i64 {
  %m = alloc(%n) : memref<?xi64>
  for %i = 0 to %n {
    %iv = index_cast %i : index to i64
    %sq = muli %iv, %iv : i64
    store %sq, %m[%i] : memref<?xi64>
  }
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  store %z, %acc[%c0] : memref<1xi64>
  %d = dim %m, 0 : memref<?xi64>
  for %j = 0 to %d {
    %v = load %m[%j] : memref<?xi64>
    %s = load %acc[%c0] : memref<1xi64>
    %t = addi %s, %v : i64
    store %t, %acc[%c0] : memref<1xi64>
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %m : memref<?xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}

func @dim_of(%n: index) -> index {
  %m = alloc(%n) : memref<3x?xf32>
  %d = dim %m, 1 : memref<3x?xf32>
  dealloc %m : memref<3x?xf32>
  return %d : index
}
