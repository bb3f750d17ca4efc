// The memref reshaping views: collapse_shape and expand_shape (static and run-time sizes),
// transpose, reinterpret_cast in its custom form, rank and extract_strided_metadata. Each reads
// elements through the view of a 2x3x4 buffer holding 100*i + 10*j + k at [i, j, k].
// differential
// run: @collapsed(1, 2, 3) == 123
// run: @expanded(5, 1) == 122
// run: @expanded_dynamic(3, 2, 3, 0) == 122
// run: @transposed(3, 2, 1) == 123
// run: @reinterpreted(1, 1) == 111
// run: @metadata() == 3581
// run: @rank_of() == 3

func.func @fill(%m: memref<2x3x4xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %h = arith.constant 100 : i64
  %t = arith.constant 10 : i64
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      scf.for %k = %c0 to %c4 step %c1 {
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %kk = arith.index_cast %k : index to i64
        %a = arith.muli %ii, %h : i64
        %b = arith.muli %jj, %t : i64
        %s = arith.addi %a, %b : i64
        %v = arith.addi %s, %kk : i64
        memref.store %v, %m[%i, %j, %k] : memref<2x3x4xi64>
      }
    }
  }
  return
}

// [2, 3, 4] collapsed to [6, 4]: row 3 * i + j.
func.func @collapsed(%i: index, %j: index, %k: index) -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %c = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xi64> into memref<6x4xi64>
  %c3 = arith.constant 3 : index
  %r0 = arith.muli %i, %c3 : index
  %row = arith.addi %r0, %j : index
  %v = memref.load %c[%row, %k] : memref<6x4xi64>
  return %v : i64
}

// [2, 3, 4] collapsed to [24], expanded to [6, 2, 2]: element (a, b, 0) is flat 4a + 2b.
func.func @expanded(%a: index, %b: index) -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %flat = memref.collapse_shape %m [[0, 1, 2]] : memref<2x3x4xi64> into memref<24xi64>
  %e = memref.expand_shape %flat [[0, 1, 2]] output_shape [6, 2, 2] : memref<24xi64> into memref<6x2x2xi64>
  %c0 = arith.constant 0 : index
  %v = memref.load %e[%a, %b, %c0] : memref<6x2x2xi64>
  return %v : i64
}

// A run-time size: [?] expanded to [n, 4, 2] with n = 3; (a, b, c) is flat 8a + 2b + c.
func.func @expanded_dynamic(%n: index, %a: index, %b: index, %c: index) -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %flat24 = memref.collapse_shape %m [[0, 1, 2]] : memref<2x3x4xi64> into memref<24xi64>
  %flat = memref.cast %flat24 : memref<24xi64> to memref<?xi64>
  %e = memref.expand_shape %flat [[0, 1, 2]] output_shape [%n, 4, 2] : memref<?xi64> into memref<?x4x2xi64>
  %v = memref.load %e[%a, %b, %c] : memref<?x4x2xi64>
  return %v : i64
}

// Dims reversed: [4, 3, 2] at (k, j, i) is the source's (i, j, k).
func.func @transposed(%k: index, %j: index, %i: index) -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %t = memref.transpose %m (d0, d1, d2) -> (d2, d1, d0) : memref<2x3x4xi64> to memref<4x3x2xi64, strided<[1, 4, 12]>>
  %v = memref.load %t[%k, %j, %i] : memref<4x3x2xi64, strided<[1, 4, 12]>>
  return %v : i64
}

// A 2x2 window at offset 12 with strides [4, 1] over the flat buffer: (1, 1) is flat 17, the
// source's [1, 1, 1].
func.func @reinterpreted(%r: index, %c: index) -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %flat = memref.collapse_shape %m [[0, 1, 2]] : memref<2x3x4xi64> into memref<24xi64>
  %w = memref.reinterpret_cast %flat to offset: [12], sizes: [2, 2], strides: [4, 1] : memref<24xi64> to memref<2x2xi64, strided<[4, 1], offset: 12>>
  %v = memref.load %w[%r, %c] : memref<2x2xi64, strided<[4, 1], offset: 12>>
  return %v : i64
}

// sizes (2, 3, 4), strides (12, 4, 1), offset 0 and the base's element (that of [0, 0, 0], 0):
// 1000 * 2 + 100 * 3 + 10 * 4 + 100 * 12 + 10 * 4 + 1 + 0 + 0 = 3581.
func.func @metadata() -> i64 {
  %m = memref.alloca() : memref<2x3x4xi64>
  call @fill(%m) : (memref<2x3x4xi64>) -> ()
  %base, %off, %sizes:3, %strides:3 = memref.extract_strided_metadata %m : memref<2x3x4xi64> -> memref<i64>, index, index, index, index, index, index, index
  %c1000 = arith.constant 1000 : index
  %c100 = arith.constant 100 : index
  %c10 = arith.constant 10 : index
  %a = arith.muli %sizes#0, %c1000 : index
  %b = arith.muli %sizes#1, %c100 : index
  %c = arith.muli %sizes#2, %c10 : index
  %d = arith.muli %strides#0, %c100 : index
  %e = arith.muli %strides#1, %c10 : index
  %s1 = arith.addi %a, %b : index
  %s2 = arith.addi %s1, %c : index
  %s3 = arith.addi %s2, %d : index
  %s4 = arith.addi %s3, %e : index
  %s5 = arith.addi %s4, %strides#2 : index
  %s6 = arith.addi %s5, %off : index
  %first = memref.load %base[] : memref<i64>
  %sum = arith.index_cast %s6 : index to i64
  %out = arith.addi %sum, %first : i64
  return %out : i64
}

func.func @rank_of() -> index {
  %m = memref.alloca() : memref<2x3x4xi64>
  %r = memref.rank %m : memref<2x3x4xi64>
  return %r : index
}
