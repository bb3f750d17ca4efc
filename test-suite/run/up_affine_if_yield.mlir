// affine.if with results (`-> i32`, affine.yield in both regions) and affine.load/affine.store
// with affine subscripts, as upstream writes them.
// differential
// count over i < N of 2 <= i <= N - 3: N = 10 -> 6
// run: @count_inner(10) == 6
// run: @count_inner(3) == 0
// buf[i] = i for i < 8, then buf[i+1] - buf[i] summed over i < 7 = 7; plus buf[7] = 7 -> 14
// run: @shifted() == 14

#inner = affine_set<(d0)[s0] : (d0 - 2 >= 0, s0 - d0 - 3 >= 0)>

func.func @count_inner(%N: index) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = affine.for %i = 0 to %N iter_args(%acc = %zero) -> (i32) {
    %n = affine.if #inner(%i)[%N] -> i32 {
      %s = arith.addi %acc, %one : i32
      affine.yield %s : i32
    } else {
      affine.yield %acc : i32
    }
    affine.yield %n : i32
  }
  return %r : i32
}

func.func @shifted() -> i64 {
  %buf = memref.alloca() : memref<8xi64>
  affine.for %i = 0 to 8 {
    %v = arith.index_cast %i : index to i64
    affine.store %v, %buf[%i] : memref<8xi64>
  }
  %zero = arith.constant 0 : i64
  %s = affine.for %i = 0 to 7 iter_args(%acc = %zero) -> (i64) {
    %a = affine.load %buf[%i + 1] : memref<8xi64>
    %b = affine.load %buf[%i] : memref<8xi64>
    %d = arith.subi %a, %b : i64
    %t = arith.addi %acc, %d : i64
    affine.yield %t : i64
  }
  %last = affine.load %buf[7] : memref<8xi64>
  %r = arith.addi %s, %last : i64
  return %r : i64
}
