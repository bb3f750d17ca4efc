// Memref arguments from C, expanded exactly like upstream: (allocated, aligned, offset, sizes...,
// strides...). A strided 1-d view (every other element, offset 1) and an in-place prefix sum.
// differential
// data = [0, 1, 2, ..., 9]; view offset 1, size 4, stride 2 -> [1, 3, 5, 7], sum 16
// stdout: strided sum 16
// prefix sums of [1, 2, 3, 4, 5] in place: 1 3 6 10 15
// stdout: prefix: 1 3 6 10 15
// scale a 2x3 f64 matrix in place by 0.5 and return the trace-like sum m[0][0] + m[1][2]
// stdout: scaled: 0 0.5 1 | 1.5 2 2.5, picked 2.5

func.func @strided_sum(%v: memref<?xi32, strided<[?], offset: ?>>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %v, %c0 : memref<?xi32, strided<[?], offset: ?>>
  %zero = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = memref.load %v[%i] : memref<?xi32, strided<[?], offset: ?>>
    %s = arith.addi %acc, %x : i32
    scf.yield %s : i32
  }
  return %r : i32
}

func.func @prefix_sum(%v: memref<?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %v, %c0 : memref<?xi64>
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %x = memref.load %v[%i] : memref<?xi64>
    %s = arith.addi %acc, %x : i64
    memref.store %s, %v[%i] : memref<?xi64>
    scf.yield %s : i64
  }
  return
}

func.func @scale(%m: memref<2x3xf64>, %k: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %x = memref.load %m[%i, %j] : memref<2x3xf64>
      %y = arith.mulf %x, %k : f64
      memref.store %y, %m[%i, %j] : memref<2x3xf64>
    }
  }
  %a = memref.load %m[%c0, %c0] : memref<2x3xf64>
  %b = memref.load %m[%c1, %c2] : memref<2x3xf64>
  %r = arith.addf %a, %b : f64
  return %r : f64
}
