// error: 4:3: only a "COp" fragment is a constant
// A and B fragments hold TF32 bits; a constant is an accumulator's start.
func.func @k(%f: f32) attributes {gpu.kernel} {
  %a = gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x8xf32, "AOp">
  return
}
