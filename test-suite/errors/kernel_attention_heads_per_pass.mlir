// error: 4:3: heads_per_pass divides the 4 query heads of a group, not 3
// A strategy written by hand: three heads per pass do not divide a group of four.
func.func @f(%q: memref<1x8x1x64xf32>, %k: memref<1x2x9x64xf32>, %v: memref<1x2x9x64xf32>, %y: memref<1x8x1x64xf32>) {
  "kernel.attention"(%q, %k, %v, %y) {heads_per_pass = 3 : i64, scale = 1.250000e-01 : f32} : (memref<1x8x1x64xf32>, memref<1x2x9x64xf32>, memref<1x2x9x64xf32>, memref<1x8x1x64xf32>) -> ()
  return
}
