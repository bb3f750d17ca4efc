// error: 6:3: a C fragment is stored row by row (no transpose)
// wmma stores xcc's sums row-major; a transposed store is refused, not ignored.
func.func @k(%c: memref<16x16xf32>, %f: f32) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %z = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">
  gpu.subgroup_mma_store_matrix %z, %c[%c0, %c0] {leadDimension = 16 : index, transpose} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
  return
}
