// RUN: --passes=kernel-choose-strategies
// Attention over grouped heads on a CPU: a task takes as many query heads of a group as keep
// 256 output floats, so that it reads each key and value row once for all of them (a Llama's
// groups of 4 heads of 64, all four; of 128, two; groups of 3 heads of 128, one). A decode row
// over a long cache splits the cache into 8 parts that threads take apart, and a recorded
// choice of either is kept.

// CHECK-LABEL: func.func @attention
// CHECK: "kernel.attention"{{.*}}{heads_per_pass = 4, key_parts = 8, scale
// CHECK: "kernel.attention"{{.*}}{heads_per_pass = 2, key_parts = 8, scale
// CHECK: "kernel.attention"{{.*}}{heads_per_pass = 1, key_parts = 8, scale
// CHECK: "kernel.attention"{{.*}}{heads_per_pass = 1, key_parts = 8, scale
// CHECK: "kernel.attention"{{.*}}{heads_per_pass = 4, key_parts = 1, scale
func.func @attention(%q: memref<1x16x1x64xf32>, %k: memref<1x4x?x64xf32>, %v: memref<1x4x?x64xf32>, %y: memref<1x16x1x64xf32>, %q2: memref<1x8x1x128xf32>, %k2: memref<1x2x?x128xf32>, %v2: memref<1x2x?x128xf32>, %y2: memref<1x8x1x128xf32>, %q3: memref<1x6x1x128xf32>, %y3: memref<1x6x1x128xf32>) {
  "kernel.attention"(%q, %k, %v, %y) {scale = 1.250000e-01 : f32} : (memref<1x16x1x64xf32>, memref<1x4x?x64xf32>, memref<1x4x?x64xf32>, memref<1x16x1x64xf32>) -> ()
  "kernel.attention"(%q2, %k2, %v2, %y2) {scale = 1.250000e-01 : f32} : (memref<1x8x1x128xf32>, memref<1x2x?x128xf32>, memref<1x2x?x128xf32>, memref<1x8x1x128xf32>) -> ()
  "kernel.attention"(%q3, %k2, %v2, %y3) {scale = 1.250000e-01 : f32} : (memref<1x6x1x128xf32>, memref<1x2x?x128xf32>, memref<1x2x?x128xf32>, memref<1x6x1x128xf32>) -> ()
  "kernel.attention"(%q, %k, %v, %y) {heads_per_pass = 1 : i64, scale = 1.250000e-01 : f32} : (memref<1x16x1x64xf32>, memref<1x4x?x64xf32>, memref<1x4x?x64xf32>, memref<1x16x1x64xf32>) -> ()
  "kernel.attention"(%q, %k, %v, %y) {key_parts = 1 : i64, scale = 1.250000e-01 : f32} : (memref<1x16x1x64xf32>, memref<1x4x?x64xf32>, memref<1x4x?x64xf32>, memref<1x16x1x64xf32>) -> ()
  return
}
