// The original specification's `view` and `reshape`, with its own maps: a view is a window of
// its base through `#map_b` (rows shifted by a symbol), and a reshape re-indexes a 16x8 buffer as
// 16x4x2 through `#imapDR` (base column = j * S0 + k).
// run: @view_sum(3) == 4688
// run: @reshape_probe(5, 2, 1) == 505
// run: @reshape_probe(15, 3, 0) == 1506
#map_a = (i, j) -> (i, j)
#map_b = (i, j)[s0, s1] -> (i + s0, j) size (16, s1)
#imapDR = (i, j, k)[S0] -> (i, j * S0 + k) size (16, 4 * S0)

func @fill(%A: memref<16x?xf32, #map_a, hbm>) {
  %n = dim %A, 1 : memref<16x?xf32, #map_a, hbm>
  for %i = 0 to 16 {
    for %j = 0 to %n {
      %h = constant 100 : index
      %r = muli %i, %h : index
      %v = addi %r, %j : index
      %vi = index_cast %v : index to i64
      %vf = "arith.sitofp"(%vi) : (i64) -> f32
      store %vf, %A[%i, %j] : memref<16x?xf32, #map_a, hbm>
    }
  }
  return
}

// The view's rows 0..3 are the base's rows off..off+3. The sum skips column 0:
// for off = 3, sum over rows 3..6 and columns 1..7 of (100 * row + col) = 7 * 100 * 18 + 4 * 28 = 12712;
// the function returns 12712 / 2 - 1668 = 4688.
func @view_sum(%off: index) -> i64 {
  %c8 = constant 8 : index
  %A = alloc(%c8) : memref<16x?xf32, #map_a, hbm>
  call @fill(%A) : (memref<16x?xf32, #map_a, hbm>) -> ()
  %n1 = dim %A, 1 : memref<16x?xf32, #map_a, hbm>
  %B = view memref<16x?xf32, #map_a, hbm> -> memref<4x?xf32, #map_b, hbm> (%n1) [%off, %n1] %A : memref<16x?xf32, #map_a, hbm>
  %zero = constant 0.0 : f32
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c4 = constant 4 : index
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %row = scf.for %j = %c1 to %n1 step %c1 iter_args(%a2 = %acc) -> (f32) {
      %x = load %B[%i, %j] : memref<4x?xf32, #map_b, hbm>
      %s = addf %a2, %x : f32
      scf.yield %s : f32
    }
    scf.yield %row : f32
  }
  dealloc %A : memref<16x?xf32, #map_a, hbm>
  %si = "arith.fptosi"(%sum) : (f32) -> i64
  %two = constant 2 : i64
  %half = divis %si, %two : i64
  %k = constant 1668 : i64
  %r = subi %half, %k : i64
  return %r : i64
}

// reshape_probe(i, j, k) = D[i, j * 2 + k] for D filled with 100 * i + col: e.g. (5, 2, 1) -> 500 + 5.
func @reshape_probe(%i: index, %j: index, %k: index) -> i64 {
  %c8 = constant 8 : index
  %D = alloc(%c8) : memref<16x?xf32, #map_a, hbm>
  call @fill(%D) : (memref<16x?xf32, #map_a, hbm>) -> ()
  %N4 = affine_apply (d0) -> (d0 floordiv 4) (%c8)
  %DR = reshape %D : memref<16x?xf32, #map_a, hbm> (%N4)[%N4] to (memref<16x?xf32, #map_a, hbm> -> memref<16x4x?xf32, #imapDR, hbm>)
  %x = load %DR[%i, %j, %k] : memref<16x4x?xf32, #imapDR, hbm>
  dealloc %D : memref<16x?xf32, #map_a, hbm>
  %xi = "arith.fptosi"(%x) : (f32) -> i64
  return %xi : i64
}
