// error: 5:46: xcc's tensor-core fragments are TF32 m16n16k8
// A fragment of another shape or type than the TF32 m16n16k8 ones xcc multiplies on tensor
// cores is refused where the type is written.
func.func @k(%f: f32) attributes {gpu.kernel} {
  %z = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf16, "COp">
  return
}
