// The spec's `dim` examples on tensors, custom and generic form.
func @dims(%A: tensor<4 x ? x f32>, %M: memref<4x?xf32>) -> index {
  // Always returns 4, can be constant folded:
  %x = dim %A, 0 : tensor<4 x ? x f32>
  // Returns the dynamic dimension of %A.
  %y = dim %A, 1 : tensor<4 x ? x f32>
  // Equivalent generic form:
  %x2 = "dim"(%A){index: 0} : (tensor<4 x ? x f32>) -> index
  %y2 = "dim"(%A){index: 1} : (tensor<4 x ? x f32>) -> index
  %m = dim %M, 1 : memref<4x?xf32>
  %m2 = "dim"(%M){index: 1} : (memref<4x?xf32>) -> index
  return %y2 : index
}
