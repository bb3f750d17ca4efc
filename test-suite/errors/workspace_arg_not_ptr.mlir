// error: 5:1: xcc.workspace names argument 0, of type memref<16xf32>, not the workspace's !llvm.ptr
// stage: driver
// Found by the mlir_text fuzz target: plan-workspace stored the workspace pointer into a memref
// argument's place and produced IR that does not verify.
func.func @f(%in: memref<16xf32>, %ws: !llvm.ptr) attributes {xcc.workspace = 0} {
  %t = memref.alloc() : memref<16xf32>
  memref.copy %in, %t : memref<16xf32> to memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  return
}
