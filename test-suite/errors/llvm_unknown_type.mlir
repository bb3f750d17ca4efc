// error: 4:19: unknown llvm dialect type '!llvm.prr'
// Found by the mlir_text fuzz target: a misspelt llvm type was kept as an opaque type and reached
// the lowering, which took it for a pointer.
func.func @f(%ws: !llvm.prr) {
  return
}
