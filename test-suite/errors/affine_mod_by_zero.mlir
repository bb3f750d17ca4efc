// error: 6:43: 'mod' by 0 in an affine map
// Every index the map computes would be undefined (the issue on hardening: `d0 mod 0` was
// accepted and lowered).
func.func @f(%a: memref<4xf32>) {
  affine.for %i = 0 to 4 {
    %v = affine.load %a[%i floordiv 1 mod 0] : memref<4xf32>
    affine.store %v, %a[%i] : memref<4xf32>
  }
  return
}
