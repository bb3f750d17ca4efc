// error: 4:3: incompatible shapes: memref<4x?xf32> to memref<5x?xf32>
func.func @f(%n: index) {
  %m = memref.alloc(%n) : memref<4x?xf32>
  %c = memref.cast %m : memref<4x?xf32> to memref<5x?xf32>
  memref.dealloc %m : memref<4x?xf32>
  return
}
