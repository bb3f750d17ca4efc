// The original spec's generic-form examples: operations with attributes (`name: value`),
// terminators with successor lists (`"br_cond"` is the spec's generic spelling of cond_br),
// dialect types in the `!dialect<"...">` form, and the TPU/TF operations.
func @generic(%cond: i1, %v: index, %42: f32, %12: i32, %x: vector<8x128xf32>, %s: !tf<"string">) -> f32 {
  %2 = "tf.scramble"(%42, %12){fruit: "banana"} : (f32, i32) -> f32
  %7 = "tpu.add"(%x, %x)
             : (vector<8x128xf32>, vector<8x128xf32>) -> vector<8x128xf32>
  %f = "tpu.vaddf32"(%7, %7)
             : (vector<8x128xf32>, vector<8x128xf32>) -> vector<8x128xf32>
  %p = "tf.Print"(%s){message: "mul result"} : (!tf<"string">) -> !tf<"string">
  %c = "constant"(){value: 1 : i32} : () -> i32
  "br_cond"(%cond)[^bb1, ^bb2(%v : index)] : (i1) -> ()
^bb1:
  "return"(%2) : (f32) -> ()
^bb2(%i : index):
  %r = "llvm.sadd.with.overflow.i16"(%12, %12) : (i32, i32) -> !llvm<"{i32, i1}">
  "return"(%42) : (f32) -> ()
}
