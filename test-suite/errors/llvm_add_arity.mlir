// error: 5:3: 'llvm.add': operands: expects 2, found 1
// An llvm-dialect op is checked for its arity before translation (it used to index out of
// bounds in the translation).
llvm.func @f(%a: i32) -> i32 {
  %r = "llvm.add"(%a) : (i32) -> i32
  llvm.return %r : i32
}
