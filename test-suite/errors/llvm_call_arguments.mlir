// error: 6:3: 'llvm.call': the arguments do not match the callee's type (i32, i32) -> i32
llvm.func @g(%a: i32, %b: i32) -> i32 {
  llvm.return %a : i32
}
llvm.func @f(%a: i32) -> i32 {
  %r = "llvm.call"(%a) <{callee = @g}> : (i32) -> i32
  llvm.return %r : i32
}
