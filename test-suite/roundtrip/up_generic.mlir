// upstream
// Generic operations of unregistered dialects carrying every kind of attribute, multiple results,
// a region with a block argument, successors, and the generic form of registered operations.
func.func @generic(%a: i32, %t: tensor<4x?xf32>) -> i32 {
  %0 = "test.op"(%a) {b = true, c = false, i = 7 : i64, j = -3 : i16, f = 2.5 : f32, d = 1.0e10 : f64,
                      s = "a \"quoted\" string", u, arr = [1, "two", 3.0 : f32, [4]],
                      dict = {inner = 1 : i32, name = "x"}, ty = tensor<?x3xf32>, fn = @generic,
                      m = affine_map<(d0, d1)[s0] -> (d0 + s0, d1)>, dense = dense<[1, 2]> : tensor<2xi32>}
       : (i32) -> i32
  %1 = "test.next"(%0) {q = "r"} : (i32) -> i32
  %2:2 = "test.two"(%1, %t) : (i32, tensor<4x?xf32>) -> (i32, f32)
  "test.region"(%2#0) ({
  ^bb0(%x: i32):
    "test.use"(%x) : (i32) -> ()
    "llvm.unreachable"() : () -> ()
  }) : (i32) -> ()
  %3 = "arith.addi"(%2#0, %a) : (i32, i32) -> i32
  "cf.br"(%3)[^bb1] : (i32) -> ()
^bb1(%r: i32):
  "func.return"(%r) : (i32) -> ()
}
