// error: 3:18: a vector dimension of 0
// A vector holds at least one element (LLVM has no empty vectors).
func.func @f(%a: vector<4x0xf32>) {
  return
}
