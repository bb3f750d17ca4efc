// error: 3:3: memref<?x?xf32> has 2 dynamic dimension(s), but 1 size(s) are given
func @f(%n: index) {
  %m = alloc(%n) : memref<?x?xf32>
  dealloc %m : memref<?x?xf32>
  return
}
