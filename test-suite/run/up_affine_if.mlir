// affine.if on an integer set inside affine.for, with and without an else region.
// differential
// inner(i, N): 2 <= i <= N - 3. Count over i < N: N = 10 -> 6; N = 3 -> 0
// run: @count_inner(10) == 6
// run: @count_inner(3) == 0
// pick(i, N) = i inside [2, N-3], else -1
// run: @pick(5, 10) == 5
// run: @pick(1, 10) == -1
// run: @pick(8, 10) == -1

#inner = affine_set<(d0)[s0] : (d0 - 2 >= 0, s0 - d0 - 3 >= 0)>

func.func @count_inner(%N: index) -> i32 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %cnt = memref.alloca() : memref<1xi32>
  memref.store %zero, %cnt[%c0] : memref<1xi32>
  affine.for %i = 0 to %N {
    affine.if #inner(%i)[%N] {
      %v = memref.load %cnt[%c0] : memref<1xi32>
      %w = arith.addi %v, %one : i32
      memref.store %w, %cnt[%c0] : memref<1xi32>
    }
  }
  %r = memref.load %cnt[%c0] : memref<1xi32>
  return %r : i32
}

func.func @pick(%i: index, %N: index) -> i64 {
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<1xi64>
  affine.if #inner(%i)[%N] {
    %v = arith.index_cast %i : index to i64
    memref.store %v, %buf[%c0] : memref<1xi64>
  } else {
    %m1 = arith.constant -1 : i64
    memref.store %m1, %buf[%c0] : memref<1xi64>
  }
  %r = memref.load %buf[%c0] : memref<1xi64>
  return %r : i64
}
