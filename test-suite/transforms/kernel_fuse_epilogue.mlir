// RUN: --passes=kernel-fuse-epilogue
// kernel-fuse-epilogue: the residual add that reads the convolution's output joins its epilogue
// (the residual becomes the conv's fourth operand), then the clamp to [0, 6] that reads the sum
// (act_min, act_max); the conv writes the clamp's output, and both intermediate buffers go.

// CHECK-LABEL: func.func @conv_add_relu6
// CHECK-NEXT: kernel.conv ins(%arg0, %arg1 : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>)
// CHECK-SAME: residual(%arg2 : memref<1x4x8x8xf32>) outs(%arg3 : memref<1x4x8x8xf32>)
// CHECK-SAME: {act_max = 6.0 : f32, act_min = 0.0 : f32,
// CHECK-NEXT: func.return
// CHECK-NOT: kernel.generic
// CHECK-NOT: memref.alloc
func.func @conv_add_relu6(%x: memref<1x4x8x8xf32>, %w: memref<4x4x1x1xf32>, %r: memref<1x4x8x8xf32>, %y: memref<1x4x8x8xf32>) {
  %t = memref.alloc() : memref<1x4x8x8xf32>
  kernel.conv ins(%x, %w : memref<1x4x8x8xf32>, memref<4x4x1x1xf32>) outs(%t : memref<1x4x8x8xf32>) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64}
  %u = memref.alloc() : memref<1x4x8x8xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %r : memref<1x4x8x8xf32>, memref<1x4x8x8xf32>) outs(%u : memref<1x4x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    kernel.yield %s : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%u : memref<1x4x8x8xf32>) outs(%y : memref<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %lo = arith.maximumf %a, %z : f32
    %hi = arith.minimumf %lo, %six : f32
    kernel.yield %hi : f32
  }
  return
}

// A per-column vector added after a matmul is its bias ([1, N]); a product read twice is not
// fused (its buffer has two readers).
// CHECK-LABEL: func.func @matmul_bias
// CHECK: [[ROW:%[0-9]+]] = "memref.reinterpret_cast"(%arg2) {{.*}} -> memref<1x8xf32>
// CHECK-NEXT: kernel.matmul ins(%arg0, %arg1 : {{.*}}) bias([[ROW]] : memref<1x8xf32>) outs(%arg3 : memref<4x8xf32>){{$}}
// CHECK-LABEL: func.func @two_readers
// CHECK: kernel.matmul ins(%arg0, %arg1 : {{.*}}) outs([[T:%[0-9]+]] :
// CHECK: kernel.generic {{.*}} ins([[T]], [[T]] :
func.func @matmul_bias(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %bias: memref<8xf32>, %y: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  kernel.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%t : memref<4x8xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %bias : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a0: f32, %b0: f32, %o: f32):
    %s = arith.addf %a0, %b0 : f32
    kernel.yield %s : f32
  }
  return
}
func.func @two_readers(%a: memref<4x16xf32>, %b: memref<16x8xf32>, %y: memref<4x8xf32>) {
  %t = memref.alloc() : memref<4x8xf32>
  kernel.matmul ins(%a, %b : memref<4x16xf32>, memref<16x8xf32>) outs(%t : memref<4x8xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %t : memref<4x8xf32>, memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a0: f32, %b0: f32, %o: f32):
    %s = arith.addf %a0, %b0 : f32
    kernel.yield %s : f32
  }
  return
}
