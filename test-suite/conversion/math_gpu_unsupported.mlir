// RUN: --target=nvptx64 --passes=convert-math-to-llvm
// RUN-ERROR: 'math.log' on f64 in GPU code (no GPU code for it yet)
// NVPTX has no code for log without NVIDIA's libdevice, and xcc's polynomials are f32 only.
func.func @k(%x: f64) -> f64 attributes {gpu.kernel} {
  %y = math.log %x : f64
  return %y : f64
}
