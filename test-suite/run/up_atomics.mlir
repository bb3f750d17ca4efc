// Atomics: memref.atomic_rmw of every kind LLVM has an operation for (floats and integers; each
// result is the element before the update), the llvm dialect's cmpxchg (a success and a
// failure), fence, atomicrmw sub/nand/uinc_wrap (volatile, with a synchronization scope), and
// atomic loads and stores; and a parallel loop of 20,000 iterations adding into one element,
// split between runtime-c's threads (xcc_parallel_for) when xcc builds it and serial in
// upstream's build: both must give the same sum.
// differential
// run: @rmw_float() == 185.0
// run: @rmw_int() == 27961
// run: @llvm_atomics() == 1056
// run: @parallel_sum() == 200010000

// m = [1.5, 2.0, -3.0, 8.0]; the old values add up to 17.5 and the final elements to 10.
func.func @rmw_float() -> f32 {
  %m = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %v0 = arith.constant 1.5 : f32
  %v1 = arith.constant 2.0 : f32
  %v2 = arith.constant -3.0 : f32
  %v3 = arith.constant 8.0 : f32
  memref.store %v0, %m[%c0] : memref<4xf32>
  memref.store %v1, %m[%c1] : memref<4xf32>
  memref.store %v2, %m[%c2] : memref<4xf32>
  memref.store %v3, %m[%c3] : memref<4xf32>
  %x0 = arith.constant 2.5 : f32
  %x1 = arith.constant 5.0 : f32
  %x2 = arith.constant -4.0 : f32
  %x3 = arith.constant 7.0 : f32
  %x4 = arith.constant 1.0 : f32
  %x5 = arith.constant 3.0 : f32
  %a = memref.atomic_rmw addf %x0, %m[%c0] : (f32, memref<4xf32>) -> f32
  %b = memref.atomic_rmw maximumf %x1, %m[%c1] : (f32, memref<4xf32>) -> f32
  %c = memref.atomic_rmw minimumf %x2, %m[%c2] : (f32, memref<4xf32>) -> f32
  %d = memref.atomic_rmw assign %x3, %m[%c3] : (f32, memref<4xf32>) -> f32
  %e = memref.atomic_rmw maxnumf %x4, %m[%c0] : (f32, memref<4xf32>) -> f32
  %f = memref.atomic_rmw minnumf %x5, %m[%c1] : (f32, memref<4xf32>) -> f32
  %o1 = arith.addf %a, %b : f32
  %o2 = arith.addf %o1, %c : f32
  %o3 = arith.addf %o2, %d : f32
  %o4 = arith.addf %o3, %e : f32
  %olds = arith.addf %o4, %f : f32
  %m0 = memref.load %m[%c0] : memref<4xf32>
  %m1 = memref.load %m[%c1] : memref<4xf32>
  %m2 = memref.load %m[%c2] : memref<4xf32>
  %m3 = memref.load %m[%c3] : memref<4xf32>
  %f1 = arith.addf %m0, %m1 : f32
  %f2 = arith.addf %f1, %m2 : f32
  %finals = arith.addf %f2, %m3 : f32
  %ten = arith.constant 10.0 : f32
  %s = arith.mulf %olds, %ten : f32
  %r = arith.addf %s, %finals : f32
  return %r : f32
}

// m = [10, -3, 6, 240, 5, 7]: addi 5, maxs -1, mins 2, andi 60, ori 1, xori 3, then maxu -1 on
// the first (-1 is the largest unsigned) and minu 3 on the second. The old values add up to 279,
// the final elements [-1, 3, 2, 48, 5, 4] to 61.
func.func @rmw_int() -> i32 {
  %m = memref.alloca() : memref<6xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %i10 = arith.constant 10 : i32
  %im3 = arith.constant -3 : i32
  %i6 = arith.constant 6 : i32
  %i240 = arith.constant 240 : i32
  %i5 = arith.constant 5 : i32
  %i7 = arith.constant 7 : i32
  memref.store %i10, %m[%c0] : memref<6xi32>
  memref.store %im3, %m[%c1] : memref<6xi32>
  memref.store %i6, %m[%c2] : memref<6xi32>
  memref.store %i240, %m[%c3] : memref<6xi32>
  memref.store %i5, %m[%c4] : memref<6xi32>
  memref.store %i7, %m[%c5] : memref<6xi32>
  %im1 = arith.constant -1 : i32
  %i2 = arith.constant 2 : i32
  %i60 = arith.constant 60 : i32
  %i1 = arith.constant 1 : i32
  %i3 = arith.constant 3 : i32
  %a = memref.atomic_rmw addi %i5, %m[%c0] : (i32, memref<6xi32>) -> i32
  %b = memref.atomic_rmw maxs %im1, %m[%c1] : (i32, memref<6xi32>) -> i32
  %c = memref.atomic_rmw mins %i2, %m[%c2] : (i32, memref<6xi32>) -> i32
  %d = memref.atomic_rmw andi %i60, %m[%c3] : (i32, memref<6xi32>) -> i32
  %e = memref.atomic_rmw ori %i1, %m[%c4] : (i32, memref<6xi32>) -> i32
  %f = memref.atomic_rmw xori %i3, %m[%c5] : (i32, memref<6xi32>) -> i32
  %g = memref.atomic_rmw maxu %im1, %m[%c0] : (i32, memref<6xi32>) -> i32
  %h = memref.atomic_rmw minu %i3, %m[%c1] : (i32, memref<6xi32>) -> i32
  %o1 = arith.addi %a, %b : i32
  %o2 = arith.addi %o1, %c : i32
  %o3 = arith.addi %o2, %d : i32
  %o4 = arith.addi %o3, %e : i32
  %o5 = arith.addi %o4, %f : i32
  %o6 = arith.addi %o5, %g : i32
  %olds = arith.addi %o6, %h : i32
  %m0 = memref.load %m[%c0] : memref<6xi32>
  %m1 = memref.load %m[%c1] : memref<6xi32>
  %m2 = memref.load %m[%c2] : memref<6xi32>
  %m3 = memref.load %m[%c3] : memref<6xi32>
  %m4 = memref.load %m[%c4] : memref<6xi32>
  %m5 = memref.load %m[%c5] : memref<6xi32>
  %s1 = arith.addi %m0, %m1 : i32
  %s2 = arith.addi %s1, %m2 : i32
  %s3 = arith.addi %s2, %m3 : i32
  %s4 = arith.addi %s3, %m4 : i32
  %finals = arith.addi %s4, %m5 : i32
  %hundred = arith.constant 100 : i32
  %s = arith.muli %olds, %hundred : i32
  %r = arith.addi %s, %finals : i32
  return %r : i32
}

// *p = 10; cmpxchg 10 -> 20 succeeds (old 10), cmpxchg 10 -> 30 fails (old 20); sub 3 gives
// 20 (now 17); nand 6 gives 17 (now ~(17 & 6) = -1); uinc_wrap 5 gives -1 (the largest
// unsigned, not below 5: now 0); the atomic load reads 0.
// 1 * 1000 + 0 * 100 + 20 (the failed exchange's old value) + 20 + 17 - 1 + 0 = 1056.
func.func @llvm_atomics() -> i32 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %p = llvm.alloca %one x i32 {alignment = 4 : i64} : (i64) -> !llvm.ptr
  %i10 = llvm.mlir.constant(10 : i32) : i32
  %i20 = llvm.mlir.constant(20 : i32) : i32
  %i30 = llvm.mlir.constant(30 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  %i6 = llvm.mlir.constant(6 : i32) : i32
  %i5 = llvm.mlir.constant(5 : i32) : i32
  llvm.store %i10, %p atomic release {alignment = 4 : i64} : i32, !llvm.ptr
  %r1 = llvm.cmpxchg %p, %i10, %i20 acq_rel monotonic {alignment = 4 : i64} : !llvm.ptr, i32
  %r2 = llvm.cmpxchg weak %p, %i10, %i30 seq_cst seq_cst : !llvm.ptr, i32
  llvm.fence seq_cst
  llvm.fence syncscope("singlethread") acquire
  %x = llvm.atomicrmw sub %p, %i3 monotonic : !llvm.ptr, i32
  %y = llvm.atomicrmw volatile nand %p, %i6 syncscope("singlethread") acq_rel : !llvm.ptr, i32
  %z = llvm.atomicrmw uinc_wrap %p, %i5 seq_cst {alignment = 4 : i64} : !llvm.ptr, i32
  %w = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr -> i32
  %ok1 = llvm.extractvalue %r1[1] : !llvm.struct<(i32, i1)>
  %ok2 = llvm.extractvalue %r2[1] : !llvm.struct<(i32, i1)>
  %v2 = llvm.extractvalue %r2[0] : !llvm.struct<(i32, i1)>
  %b1 = llvm.zext %ok1 : i1 to i32
  %b2 = llvm.zext %ok2 : i1 to i32
  %k1000 = llvm.mlir.constant(1000 : i32) : i32
  %k100 = llvm.mlir.constant(100 : i32) : i32
  %t1 = llvm.mul %b1, %k1000 : i32
  %t2 = llvm.mul %b2, %k100 : i32
  %s1 = llvm.add %t1, %t2 : i32
  %s2 = llvm.add %s1, %v2 : i32
  %s3 = llvm.add %s2, %x : i32
  %s4 = llvm.add %s3, %y : i32
  %s5 = llvm.add %s4, %z : i32
  %s6 = llvm.add %s5, %w : i32
  return %s6 : i32
}

// Each of 20,000 iterations adds 1 and its index into one element: 20,000 + 19,999 * 20,000 / 2.
func.func @parallel_sum() -> i64 {
  %m = memref.alloca() : memref<1xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 20000 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  memref.store %zero, %m[%c0] : memref<1xi64>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = arith.index_cast %i : index to i64
    %a = memref.atomic_rmw addi %one, %m[%c0] : (i64, memref<1xi64>) -> i64
    %b = memref.atomic_rmw addi %v, %m[%c0] : (i64, memref<1xi64>) -> i64
    scf.reduce
  }
  %r = memref.load %m[%c0] : memref<1xi64>
  return %r : i64
}
