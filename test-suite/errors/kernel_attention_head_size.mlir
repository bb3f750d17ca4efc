// error: 4:3: head sizes are at most 512 (a row's sums are registers), not 64 and 1024
// A value head of 1024: the kernel keeps a row's sums in registers, one vector per 8 values.
func.func @f(%q: memref<1x8x1x64xf32>, %k: memref<1x2x9x64xf32>, %v: memref<1x2x9x1024xf32>, %y: memref<1x8x1x1024xf32>) {
  "kernel.attention"(%q, %k, %v, %y) {scale = 1.250000e-01 : f32} : (memref<1x8x1x64xf32>, memref<1x2x9x64xf32>, memref<1x2x9x1024xf32>, memref<1x8x1x1024xf32>) -> ()
  return
}
