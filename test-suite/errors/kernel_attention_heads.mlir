// error: 4:3: Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv, T, Dv] and the output [B, Hq, S, Dv], Hq a multiple of Hkv: memref<1x6x1x64xf32>, memref<1x4x9x64xf32>, memref<1x4x9x64xf32>, memref<1x6x1x64xf32>
// Grouped heads: each key/value head serves a whole number of query heads (6 over 4 does not).
func.func @f(%q: memref<1x6x1x64xf32>, %k: memref<1x4x9x64xf32>, %v: memref<1x4x9x64xf32>, %y: memref<1x6x1x64xf32>) {
  "kernel.attention"(%q, %k, %v, %y) {scale = 1.250000e-01 : f32} : (memref<1x6x1x64xf32>, memref<1x4x9x64xf32>, memref<1x4x9x64xf32>, memref<1x6x1x64xf32>) -> ()
  return
}
