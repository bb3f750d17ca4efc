// error: 10:3: a_transpose must match how operand 0 was loaded
// A fragment's layout in the threads' registers follows its load: A loaded transposed must be
// multiplied as such.
func.func @k(%a: memref<16x68xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %z = gpu.subgroup_mma_constant_matrix %f0 : !gpu.mma_matrix<16x16xf32, "COp">
  %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 68 : index, transpose} : memref<16x68xf32> -> !gpu.mma_matrix<16x8xf32, "AOp">
  %fb = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 68 : index} : memref<16x68xf32> -> !gpu.mma_matrix<8x16xf32, "BOp">
  %d = gpu.subgroup_mma_compute %fa, %fb, %z : !gpu.mma_matrix<16x8xf32, "AOp">, !gpu.mma_matrix<8x16xf32, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  return
}
