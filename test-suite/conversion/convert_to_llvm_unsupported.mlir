// RUN: --passes=convert-to-llvm
// convert-to-llvm is a full conversion: an operation no conversion handles is an error.
// RUN-ERROR: unsupported in lowering to LLVM: operation 'scf.for'
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}
