// error: 5:3: 'llvm.masked.load' needs an alignment that is a power of two, not 3 : i32
// stage: driver
// LLVM would assert on an alignment that is not a power of two; the translation refuses it.
llvm.func @f(%p: !llvm.ptr, %m: vector<8xi1>, %v: vector<8xf32>) -> vector<8xf32> {
  %0 = "llvm.intr.masked.load"(%p, %m, %v) {alignment = 3 : i32} : (!llvm.ptr, vector<8xi1>, vector<8xf32>) -> vector<8xf32>
  llvm.return %0 : vector<8xf32>
}
