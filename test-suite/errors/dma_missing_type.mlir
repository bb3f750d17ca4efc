// error: 7:3: dma_start lists three memref types
func @f() {
  %a = alloc() : memref<8xf32>
  %b = alloc() : memref<8xf32>
  %tag = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  dma_start %a[%c0], %b[%c0], %c0, %tag[%c0] : memref<8xf32>, memref<8xf32>
  return
}
