// upstream
// memref: alloc/alloca with dynamic sizes, layouts (strided with static and dynamic entries,
// affine maps), memory spaces, rank 0, unranked types, load/store/dim/cast/dealloc.
#tr = affine_map<(d0, d1) -> (d1, d0)>

func.func @memrefs(%n: index, %u: memref<*xf32>, %s: memref<?x?xf32, strided<[?, 1], offset: ?>>,
                   %t: memref<4x4xf32, strided<[8, 1], offset: 2>>, %m: memref<4x8xi8, #tr>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%n) : memref<4x?xf32>
  %b = memref.alloca() : memref<16xi64, 1>
  %z = memref.alloc() : memref<f64>
  %v = memref.load %a[%c0, %c1] : memref<4x?xf32>
  memref.store %v, %s[%c1, %c0] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  %w = memref.load %t[%c1, %c1] : memref<4x4xf32, strided<[8, 1], offset: 2>>
  %x = memref.load %m[%c0, %c1] : memref<4x8xi8, #tr>
  %d = memref.dim %a, %c1 : memref<4x?xf32>
  %cast = memref.cast %a : memref<4x?xf32> to memref<?x?xf32>
  %back = memref.cast %cast : memref<?x?xf32> to memref<4x?xf32>
  %cf = arith.constant 1.0 : f64
  memref.store %cf, %z[] : memref<f64>
  memref.dealloc %a : memref<4x?xf32>
  memref.dealloc %z : memref<f64>
  %r = arith.addf %v, %w : f32
  return %r : f32
}
