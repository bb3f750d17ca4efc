// error: 4:3: dimension 2 is out of range for a memref of rank 2
func @f() -> index {
  %m = alloc() : memref<4x4xf32>
  %d = dim %m, 2 : memref<4x4xf32>
  return %d : index
}
