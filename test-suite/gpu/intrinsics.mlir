// Vectors and LLVM intrinsics in device code: an element-wise max with an overflow-checked add.
func.func @clamp_add(%x: memref<?xi32>, %y: memref<?xi32>, %flags: memref<?xi8>) attributes {gpu.kernel} {
  %i = gpu.thread_id x
  %a = memref.load %x[%i] : memref<?xi32>
  %b = memref.load %y[%i] : memref<?xi32>
  %r:2 = "llvm.intr.sadd.with.overflow"(%a, %b) : (i32, i32) -> (i32, i1)
  %m = arith.maxsi %r#0, %a : i32
  memref.store %m, %x[%i] : memref<?xi32>
  %f = arith.extui %r#1 : i1 to i8
  memref.store %f, %flags[%i] : memref<?xi8>
  func.return
}
