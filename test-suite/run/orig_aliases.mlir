// Type aliases (`!name = type T`, used in signatures, ops and memref element types) and an
// attribute alias for an identity layout map, in the original spelling.
// run: @scaled_sum(4) == 60
// run: @widen(-3) == -3
// scaled_sum(n) = sum_{i<n} 10 i = 10 * n (n-1) / 2: n = 4 -> 60

!int = type i32
!vec = type vector<4 x f32>
#identity = (d0) -> (d0)

func @scaled_sum(%n: index) -> !int {
  %buf = alloc(%n) : memref<?x!int, #identity>
  %ten = constant 10 : !int
  for %i = 0 to %n {
    %iv = index_cast %i : index to !int
    %v = muli %iv, %ten : !int
    store %v, %buf[%i] : memref<?x!int, #identity>
  }
  %acc = alloc() : memref<1x!int>
  %c0 = constant 0 : index
  %zero = constant 0 : !int
  store %zero, %acc[%c0] : memref<1x!int>
  for %j = 0 to %n {
    %v = load %buf[%j] : memref<?x!int, #identity>
    %s = load %acc[%c0] : memref<1x!int>
    %t = addi %s, %v : !int
    store %t, %acc[%c0] : memref<1x!int>
  }
  %r = load %acc[%c0] : memref<1x!int>
  dealloc %buf : memref<?x!int, #identity>
  dealloc %acc : memref<1x!int>
  return %r : !int
}

// The vector alias on a constant (lane 0 is extracted and unused); %x goes through index to i64.
func @widen(%x: !int) -> i64 {
  %v = constant dense<[1.5, 2.5, 3.5, 4.5]> : !vec
  %c0 = constant 0 : index
  %e = extract_element %v[%c0] : !vec
  %i = index_cast %x : !int to index
  %r = index_cast %i : index to i64
  return %r : i64
}
