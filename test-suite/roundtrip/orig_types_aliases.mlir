// Type aliases (`!name = type T`), attribute aliases, vector and tensor types with spaces, the
// old `!llvm<"...">` types, dense constants and extract_element on vectors and tensors, and
// TensorFlow-style generic operations with attributes from the spec.
!avx.m128 = type vector<4 x f32>
!int = type i32
#id2 = (d0, d1) -> (d0, d1)

func @vectors(%x: !avx.m128, %i: index) -> f32 {
  %c = constant dense<[1.0, 2.0, 3.0, 4.0]> : !avx.m128
  %s = addf %x, %c : vector<4 x f32>
  %e = extract_element %s[%i] : vector<4xf32>
  "foo"(%x) : (!avx.m128) -> ()
  return %e : f32
}

func @tensors(%t: tensor<?x42x?xf32>, %u: tensor<*xf32>, %i: index) -> tensor<*xf32> {
  %d = "tf.Add"(%t, %t) : (tensor<?x42x?xf32>, tensor<?x42x?xf32>) -> tensor<?x42x?xf32>
  %c = "tf.Conv2d"(%u, %u) {strides: [1, 1, 2, 1], padding: "SAME", dilations: [2, 1, 1, 1]}
     : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  %e = extract_element %t[%i, %i, %i] : tensor<?x42x?xf32>
  %s = "tf.scramble"(%e, %i){fruit: "banana"} : (f32, index) -> f32
  return %c : tensor<*xf32>
}

func @llvm_types(%p: !llvm<"i32*">, %q: !int) -> !int {
  %m = alloc() : memref<2x2x!int, #id2>
  return %q : !int
}
