// error: 6:9: use of value '%x' expects type i32, but it has type f32
// The stored value must have the memref's element type.
func @f(%x: f32) {
  %m = alloc() : memref<4xi32>
  %c0 = constant 0 : index
  store %x, %m[%c0] : memref<4xi32>
  return
}
