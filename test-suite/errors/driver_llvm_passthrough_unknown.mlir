// error: 5:1: unknown LLVM function attribute 'fastest'
// stage: driver
// `passthrough` names LLVM function attributes; a name LLVM does not know is an error at the
// function, not a silently dropped attribute.
llvm.func @f(%a: i32) -> i32 attributes {passthrough = ["fastest"]} {
  llvm.return %a : i32
}
