// error: 4:3: outside GPU code
// stage: driver
func.func @tid() -> index {
  %t = gpu.thread_id x
  return %t : index
}
