// error: 5:3: 1 index(es) given for a memref of rank 2
func @f() -> f32 {
  %m = alloc() : memref<4x4xf32>
  %c0 = constant 0 : index
  %v = load %m[%c0] : memref<4x4xf32>
  return %v : f32
}
