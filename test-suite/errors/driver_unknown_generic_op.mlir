// error: 5:3: unsupported in lowering to LLVM: operation 'tf.Print'
// stage: driver
// An unregistered operation parses and verifies, but cannot be compiled.
func @f(%a: i32) -> i32 {
  "tf.Print"(%a){message: "hello"} : (i32) -> ()
  return %a : i32
}
