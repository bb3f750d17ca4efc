// error: 4:3: the memory spaces differ: memref<8x8xf32, #gpu.address_space<workgroup>> and memref<4x4xf32, strided<[8, 1]>>
// A subview is a window into its buffer, in the buffer's memory space.
func.func @k(%m: memref<8x8xf32, #gpu.address_space<workgroup>>) {
  %s = memref.subview %m[0, 0] [4, 4] [1, 1] : memref<8x8xf32, #gpu.address_space<workgroup>> to memref<4x4xf32, strided<[8, 1]>>
  return
}
