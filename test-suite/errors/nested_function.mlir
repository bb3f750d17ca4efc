// error: 5:3: a symbol must be at a module's top level, not inside 'func.func'
// Found by the mlir_text fuzz target (as `func@libm(){func@libm()return}`): a function inside a
// function reached the llvm conversion, which then defined the symbol twice.
func.func @libm() {
  func.func @libm()
  return
}
