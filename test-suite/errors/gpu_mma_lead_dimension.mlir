// error: 5:3: leadDimension must be a positive multiple of 4 elements
// wmma reads a fragment's rows 16 bytes apart: a stride of 66 floats is refused.
func.func @k(%a: memref<16x66xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 66 : index} : memref<16x66xf32> -> !gpu.mma_matrix<16x8xf32, "AOp">
  return
}
