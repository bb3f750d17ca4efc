// `for` loops of the original spelling: accumulation through a one-element memref (ML functions
// have no loop-carried values), a step, a negative constant bound, the spec's reverse-iteration
// map, and min/max bounds.
// run: @sum_to(10) == 45
// run: @sum_to(0) == 0
// run: @sum_to(1000) == 499500
// 1 + 4 + 7 + 10 + 13 + 16 + 19 = 70
// run: @stepped() == 70
// -5 + -4 + ... + 4 = -5
// run: @negative_lb() == -5
// sum_j j * (N - j - 1): N = 5 -> 0 + 3 + 4 + 3 + 0 = 10; N = 6 -> 0+4+6+6+4+0 = 20
// run: @reverse_weights(5) == 10
// run: @reverse_weights(6) == 20
// count of (i, j) with 0 <= i < N, max(i, 1) <= j < min(N, i + 3):
// N = 5: i=0: j in [1,3) -> 2; i=1: [1,4) -> 3; i=2: [2,5) -> 3; i=3: [3,5) -> 2; i=4: [4,5) -> 1; total 11
// run: @window(5) == 11

#map57 = (d0)[s0] -> (s0 - d0 - 1)
#lb = (d0) -> (d0, 1)
#ub = (d0)[s0] -> (s0, d0 + 3)

func @sum_to(%n: index) -> i64 {
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  store %z, %acc[%c0] : memref<1xi64>
  for %i = 0 to %n {
    %v = index_cast %i : index to i64
    %s = load %acc[%c0] : memref<1xi64>
    %t = addi %s, %v : i64
    store %t, %acc[%c0] : memref<1xi64>
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}

func @stepped() -> i64 {
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  store %z, %acc[%c0] : memref<1xi64>
  for %i = 1 to 20 step 3 {
    %v = index_cast %i : index to i64
    %s = load %acc[%c0] : memref<1xi64>
    %t = addi %s, %v : i64
    store %t, %acc[%c0] : memref<1xi64>
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}

func @negative_lb() -> i64 {
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  store %z, %acc[%c0] : memref<1xi64>
  for %i = -5 to 5 {
    %v = index_cast %i : index to i64
    %s = load %acc[%c0] : memref<1xi64>
    %t = addi %s, %v : i64
    store %t, %acc[%c0] : memref<1xi64>
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}

func @reverse_weights(%N: index) -> i64 {
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  store %z, %acc[%c0] : memref<1xi64>
  for %j = 0 to %N {   // implicitly steps by 1
    %0 = affine_apply #map57(%j)[%N]
    %a = index_cast %j : index to i64
    %b = index_cast %0 : index to i64
    %p = muli %a, %b : i64
    %s = load %acc[%c0] : memref<1xi64>
    %t = addi %s, %p : i64
    store %t, %acc[%c0] : memref<1xi64>
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}

func @window(%N: index) -> i64 {
  %acc = alloc() : memref<1xi64>
  %c0 = constant 0 : index
  %z = constant 0 : i64
  %one = constant 1 : i64
  store %z, %acc[%c0] : memref<1xi64>
  for %i = 0 to %N {
    for %j = max #lb(%i) to min #ub(%i)[%N] {
      %s = load %acc[%c0] : memref<1xi64>
      %t = addi %s, %one : i64
      store %t, %acc[%c0] : memref<1xi64>
    }
  }
  %r = load %acc[%c0] : memref<1xi64>
  dealloc %acc : memref<1xi64>
  return %r : i64
}
