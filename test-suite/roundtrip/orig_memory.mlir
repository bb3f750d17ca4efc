// Memory operations of the original spelling: alloc with dynamic sizes and layout symbols,
// alloc_static, load/store, dim, memref_cast, dma_start/dma_wait, dealloc, memory spaces.
#map_id = (d0) -> (d0)
#lmap = (d0, d1)[s0] -> (d0, d1 + s0) size (16, s0)

func @memory(%n: index, %o: index) {
  %a = alloc(%n) : memref<4x?xf32>
  %b = alloc(%n)[%o] : memref<16x?xf32, #lmap, 1>
  %s = alloc_static(0x1232a00) : memref<1024 x 64 x f32>
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %v = load %a[%c0, %c1] : memref<4x?xf32>
  store %v, %b[%c1, %c0] : memref<16x?xf32, #lmap, 1>
  %d = dim %a, 1 : memref<4x?xf32>
  %x = memref_cast %a : memref<4x?xf32> to memref<?x?xf32>
  %y = memref_cast %x : memref<?x?xf32> to memref<4x?xf32>
  %src = alloc() : memref<40xf32, #map_id, 0>
  %dst = alloc() : memref<8xf32, #map_id, 2>
  %tag = alloc() : memref<1 x i32, (d0) -> (d0), 4>
  %size = constant 8 : index
  dma_start %src[%c1], %dst[%c0], %size, %tag[%c0] :
     memref<40xf32, #map_id, 0>, memref<8xf32, #map_id, 2>, memref<1 x i32, (d0) -> (d0), 4>
  dma_wait %tag[%c0], %size : memref<1 x i32, (d0) -> (d0), 4>
  dealloc %a : memref<4x?xf32>
  dealloc %b : memref<16x?xf32, #lmap, 1>
  dealloc %src : memref<40xf32, #map_id, 0>
  dealloc %dst : memref<8xf32, #map_id, 2>
  dealloc %tag : memref<1 x i32, (d0) -> (d0), 4>
  return
}
