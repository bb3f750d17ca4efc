// error: 7:36: a vector of 65536 elements; xcc takes at most 16384
// LLVM's code generator aborts ("SmallVector unable to grow") on a vector of 65,536 elements,
// and compiles vectors of tens of thousands for minutes: the type is refused where it is
// written.
func.func @f() {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<0.0> : vector<256x256xf32>
  return
}
