// error: 5:3: the matrix's last dimension must have a stride of 1
// wmma reads a fragment's row as neighbouring elements: a view whose columns are apart is refused.
func.func @k(%a: memref<16x16xf32, strided<[1, 16]>>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf32, strided<[1, 16]>> -> !gpu.mma_matrix<16x8xf32, "AOp">
  return
}
