// error: 3:1: tensors must be bufferized to memrefs first
// stage: driver
func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %t, %t : tensor<4xf32>
  return %r : tensor<4xf32>
}
