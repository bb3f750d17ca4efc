// RUN: --passes=convert-gpu-to-nvvm
// RUN-ERROR: 'gpu.barrier' outside GPU code (compile with --target=nvptx64)
func.func @k() attributes {gpu.kernel} {
  gpu.barrier
  return
}
