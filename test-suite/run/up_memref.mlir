// memref.alloc / alloca / load / store / dealloc / dim / cast in the upstream spelling.
// differential
// buf[i] = 3 i + 1 for i < n, summed: 3 n (n - 1) / 2 + n; n = 10 -> 145
// run: @alloc_sum(10) == 145
// run: @alloc_sum(1) == 1
// 2-d dynamic alloc (3 x n), dims multiplied, plus the element at [2][n-1] = 2 * 100 + (n - 1)
// n = 7: 3 * 7 = 21; 206 -> 21 * 1000 + 206 = 21206
// run: @dims(7) == 21206
// memref.cast to a dynamic shape and back; rank-0 memref
// run: @cast_roundtrip(42) == 42
// run: @scalar_memref(2.5) == 6.25

func.func @alloc_sum(%n: index) -> i64 {
  %m = memref.alloc(%n) : memref<?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3 : i64
  %one = arith.constant 1 : i64
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.index_cast %i : index to i64
    %t = arith.muli %v, %three : i64
    %u = arith.addi %t, %one : i64
    memref.store %u, %m[%i] : memref<?xi64>
  }
  %zero = arith.constant 0 : i64
  %len = memref.dim %m, %c0 : memref<?xi64>
  %r = scf.for %i = %c0 to %len step %c1 iter_args(%acc = %zero) -> (i64) {
    %v = memref.load %m[%i] : memref<?xi64>
    %s = arith.addi %acc, %v : i64
    scf.yield %s : i64
  }
  memref.dealloc %m : memref<?xi64>
  return %r : i64
}

func.func @dims(%n: index) -> i64 {
  %m = memref.alloc(%n) : memref<3x?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %hundred = arith.constant 100 : i64
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %iv = arith.index_cast %i : index to i64
      %jv = arith.index_cast %j : index to i64
      %t = arith.muli %iv, %hundred : i64
      %v = arith.addi %t, %jv : i64
      memref.store %v, %m[%i, %j] : memref<3x?xi64>
    }
  }
  %d0 = memref.dim %m, %c0 : memref<3x?xi64>
  %d1 = memref.dim %m, %c1 : memref<3x?xi64>
  %prod = arith.muli %d0, %d1 : index
  %last = arith.subi %n, %c1 : index
  %e = memref.load %m[%c2, %last] : memref<3x?xi64>
  %p = arith.index_cast %prod : index to i64
  %k = arith.constant 1000 : i64
  %pk = arith.muli %p, %k : i64
  %r = arith.addi %pk, %e : i64
  memref.dealloc %m : memref<3x?xi64>
  return %r : i64
}

func.func @cast_roundtrip(%x: i32) -> i32 {
  %m = memref.alloca() : memref<4xi32>
  %c3 = arith.constant 3 : index
  %d = memref.cast %m : memref<4xi32> to memref<?xi32>
  memref.store %x, %d[%c3] : memref<?xi32>
  %s = memref.cast %d : memref<?xi32> to memref<4xi32>
  %r = memref.load %s[%c3] : memref<4xi32>
  return %r : i32
}

func.func @scalar_memref(%x: f64) -> f64 {
  %m = memref.alloc() : memref<f64>
  %sq = arith.mulf %x, %x : f64
  memref.store %sq, %m[] : memref<f64>
  %r = memref.load %m[] : memref<f64>
  memref.dealloc %m : memref<f64>
  return %r : f64
}
