// error: 5:3: ins: 2 operands (A and B), not 1
// The custom form of kernel.matmul names A and B in ins(...): one operand there is an error at
// the operation.
func.func @f(%a: memref<4x4xf32>, %c: memref<4x4xf32>) {
  kernel.matmul ins(%a : memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
