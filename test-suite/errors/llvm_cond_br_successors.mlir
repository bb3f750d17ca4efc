// error: 4:3: 'llvm.cond_br': successors: expects 2, found 0
// A conditional branch without its two targets.
llvm.func @f(%c: i1) {
  "llvm.cond_br"(%c) : (i1) -> ()
}
