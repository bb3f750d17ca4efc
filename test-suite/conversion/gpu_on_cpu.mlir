// RUN: --passes=convert-gpu-to-nvvm
// RUN-ERROR: 'gpu.thread_id' outside GPU code (compile with --target=nvptx64)
func.func @k() attributes {gpu.kernel} {
  %t = gpu.thread_id x
  return
}
