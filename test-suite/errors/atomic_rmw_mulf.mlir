// error: 6:3: memref.atomic_rmw mulf (LLVM has no atomic mulf)
// stage: driver
// mulf and muli have no LLVM atomicrmw operation; upstream's conversion leaves them to a
// compare-and-swap loop, which xcc does not build.
func.func @f(%m: memref<4xf32>, %v: f32, %i: index) -> f32 {
  %r = memref.atomic_rmw mulf %v, %m[%i] : (f32, memref<4xf32>) -> f32
  return %r : f32
}
