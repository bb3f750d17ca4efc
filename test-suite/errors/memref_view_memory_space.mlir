// error: 5:3: the memory spaces differ: memref<256xi8, #gpu.address_space<workgroup>> and memref<64xf32>
// A view sees its buffer's memory, so it keeps the buffer's memory space.
func.func @k(%c0: index) attributes {gpu.kernel} {
  %shared = gpu.dynamic_shared_memory : memref<256xi8, #gpu.address_space<workgroup>>
  %stage = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32>
  return
}
