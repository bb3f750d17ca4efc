// RUN: --passes=kernel-fuse-activation,kernel-fuse-epilogue
// An epilogue applies its clamp before its map, so once a matmul has a map (here Tanh), a clamp
// that follows the map in the program (a Relu of the Tanh) cannot join: it stays a generic.

// CHECK-LABEL: func.func @tanh_then_relu
// CHECK: kernel.matmul {{.*}} {epilogue_map = @xcc_epilogue_map1}
// CHECK: kernel.generic
// CHECK: arith.maximumf
func.func @tanh_then_relu(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  %u = memref.alloc() : memref<4x16xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<4x16xf32>) outs(%u : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    kernel.yield %r : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%u : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    kernel.yield %r : f32
  }
  return
}
