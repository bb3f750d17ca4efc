// error: 4:3: cannot cast memref<4xf32> to memref<4xi32>
func @f() {
  %m = alloc() : memref<4xf32>
  %c = memref_cast %m : memref<4xf32> to memref<4xi32>
  dealloc %m : memref<4xf32>
  return
}
