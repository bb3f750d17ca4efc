// `if` / `else if` / `else` on integer sets inside a `for` loop.
// For i in [0, N): #inner holds when 2 <= i <= N - 3, #first when i == 0; the rest is "other".
// N = 10: inner = {2..7} = 6, first = 1, other = {1, 8, 9} = 3 -> 6*100 + 1*10 + 3 = 613
// N = 4:  inner = {} (2 <= i <= 1), first = 1, other = {1, 2, 3} = 3 -> 13
// run: @classify(10) == 613
// run: @classify(4) == 13
// run: @classify(0) == 0

#inner = (d0)[s0] : (d0 - 2 >= 0, s0 - d0 - 3 >= 0)
#first = (d0) : (d0 == 0)

func @classify(%N: index) -> i32 {
  %counts = alloc() : memref<3xi32>
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c2 = constant 2 : index
  %zero = constant 0 : i32
  %one = constant 1 : i32
  store %zero, %counts[%c0] : memref<3xi32>
  store %zero, %counts[%c1] : memref<3xi32>
  store %zero, %counts[%c2] : memref<3xi32>
  for %i = 0 to %N {
    if #inner(%i)[%N] {
      %v = load %counts[%c0] : memref<3xi32>
      %w = addi %v, %one : i32
      store %w, %counts[%c0] : memref<3xi32>
    } else if #first(%i) {
      %v = load %counts[%c1] : memref<3xi32>
      %w = addi %v, %one : i32
      store %w, %counts[%c1] : memref<3xi32>
    } else {
      %v = load %counts[%c2] : memref<3xi32>
      %w = addi %v, %one : i32
      store %w, %counts[%c2] : memref<3xi32>
    }
  }
  %a = load %counts[%c0] : memref<3xi32>
  %b = load %counts[%c1] : memref<3xi32>
  %c = load %counts[%c2] : memref<3xi32>
  %hundred = constant 100 : i32
  %ten = constant 10 : i32
  %a100 = muli %a, %hundred : i32
  %b10 = muli %b, %ten : i32
  %s = addi %a100, %b10 : i32
  %r = addi %s, %c : i32
  dealloc %counts : memref<3xi32>
  return %r : i32
}
