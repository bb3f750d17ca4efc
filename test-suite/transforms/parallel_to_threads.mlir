// RUN: --passes=convert-parallel-to-threads
// convert-parallel-to-threads: a parallel loop with enough work becomes a call to runtime-c's
// xcc_parallel_for over an outlined task; the buffers it uses travel in a context struct (one
// slot, allocated in the entry block), the constants are defined again inside. The leading
// dimensions whose product reaches 64 are split between threads (here 64 x 256: the first); the
// rest stays a parallel loop inside the task. Small loops stay as they are.

// CHECK-LABEL: func.func @scale
// CHECK: [[CTX:%[0-9]+]] = "llvm.alloca"({{%[0-9]+}}) {alignment = 16, elem_type = !llvm.struct<(!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>, !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>)>}
// CHECK: "builtin.unrealized_conversion_cast"(%arg0) : (memref<64x256xf32>) -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK: "llvm.getelementptr"([[CTX]]) {{.*}}rawConstantIndices = array<i32: 0, 0>
// CHECK: "llvm.getelementptr"([[CTX]]) {{.*}}rawConstantIndices = array<i32: 0, 1>
// CHECK: [[TASK:%[0-9]+]] = llvm.mlir.addressof @scale_parallel0 : !llvm.ptr
// CHECK: [[N:%[0-9]+]] = arith.constant 64 : i64
// CHECK: llvm.call @xcc_parallel_for([[TASK]], [[CTX]], [[N]])
// CHECK-NOT: scf.parallel
// CHECK: func.return
// CHECK-LABEL: func.func private @scale_parallel0(%arg0: !llvm.ptr, %arg1: index, %arg2: index)
// CHECK: arith.constant 2.0 : f32
// CHECK: scf.for [[I:%[0-9]+]] = %arg1 to %arg2 step
// CHECK: scf.parallel ([[J:%[0-9]+]]) = ({{%[0-9]+}}) to ({{%[0-9]+}}) step ({{%[0-9]+}})
// CHECK: memref.load {{%[0-9]+}}[[[I]], [[J]]] : memref<64x256xf32>
// CHECK: func.return
func.func @scale(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x256xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %y[%i, %j] : memref<64x256xf32>
    scf.reduce
  }
  return
}

// CHECK-LABEL: func.func @small
// CHECK: scf.parallel
// CHECK-NOT: xcc_parallel_for
func.func @small(%x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %one, %x[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// A loop of one iteration (a batch of one) leaves the choice to the loop inside it.
// CHECK-LABEL: func.func @batch_of_one
// CHECK: scf.parallel
// CHECK: llvm.call @xcc_parallel_for
// CHECK-LABEL: func.func private @batch_of_one_parallel0
func.func @batch_of_one(%x: memref<1x64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%b) = (%c0) to (%c1) step (%c1) {
    scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
      memref.store %one, %x[%b, %i, %j] : memref<1x64x256xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// Upper bounds known only at run time (a buffer's dynamic dims): the leading dimensions are
// split, the trip counts travel in the context and their product is the number of slices; the
// innermost dimension stays a loop in the task (a row per slice, never an index delinearized
// per element). The run's work (the trip counts times the 4 operations of a point) decides
// whether threads share it: below 32768 the task runs on the calling thread.
// CHECK-LABEL: func.func @rows_at_run_time
// CHECK: [[D:%[0-9]+]] = "memref.dim"(%arg0, {{%[0-9]+}}) : (memref<?x256xf32>, index) -> index
// CHECK: [[TASK:%[0-9]+]] = llvm.mlir.addressof @rows_at_run_time_parallel0 : !llvm.ptr
// CHECK: [[FIXED:%[0-9]+]] = arith.constant 1 : i64
// CHECK: [[D64:%[0-9]+]] = arith.index_cast [[D]] : index to i64
// CHECK: [[N:%[0-9]+]] = arith.muli [[FIXED]], [[D64]] : i64
// CHECK: [[PER_ROW:%[0-9]+]] = arith.constant 1024 : i64
// CHECK: [[ROWS:%[0-9]+]] = arith.index_cast [[D]] : index to i64
// CHECK: [[WORK:%[0-9]+]] = arith.muli [[PER_ROW]], [[ROWS]] : i64
// CHECK: [[LEAST:%[0-9]+]] = arith.constant 32768 : i64
// CHECK: [[SMALL:%[0-9]+]] = arith.cmpi ult, [[WORK]], [[LEAST]] : i64
// CHECK: scf.if [[SMALL]] {
// CHECK: [[ALL:%[0-9]+]] = arith.index_cast [[N]] : i64 to index
// CHECK: func.call @rows_at_run_time_parallel0({{%[0-9]+}}, {{%[0-9]+}}, [[ALL]])
// CHECK: } else {
// CHECK: llvm.call @xcc_parallel_for([[TASK]], {{%[0-9]+}}, [[N]])
// The task, called directly too, is kept out of line (one copy of its code).
// CHECK-LABEL: func.func private @rows_at_run_time_parallel0({{.*}}) attributes {passthrough = ["noinline"]}
// CHECK: scf.for [[S:%[0-9]+]] = %arg1 to %arg2 step
// CHECK-NOT: arith.remui
// CHECK: scf.parallel ([[J:%[0-9]+]]) = ({{%[0-9]+}}) to ({{%[0-9]+}}) step ({{%[0-9]+}})
// CHECK: memref.load {{%[0-9]+}}[[[S]], [[J]]] : memref<?x256xf32>
// CHECK: func.return
func.func @rows_at_run_time(%x: memref<?x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %n = memref.dim %x, %c0 : memref<?x256xf32>
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c256) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<?x256xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i, %j] : memref<?x256xf32>
    scf.reduce
  }
  return
}

// The innermost bound known only at run time too: the slice index is split by the middle
// dimension (a remainder and a quotient), and the task's row loop reads its bound from the
// context.
// CHECK-LABEL: func.func @heads_at_run_time
// CHECK: llvm.call @xcc_parallel_for
// CHECK-LABEL: func.func private @heads_at_run_time_parallel0
// CHECK: "builtin.unrealized_conversion_cast"({{%[0-9]+}}) : (i64) -> index
// CHECK: [[MI:%[0-9]+]] = "builtin.unrealized_conversion_cast"({{%[0-9]+}}) : (i64) -> index
// CHECK: scf.for [[S:%[0-9]+]] = %arg1 to %arg2 step
// CHECK: [[H:%[0-9]+]] = arith.remui [[S]], {{%[0-9]+}} : index
// CHECK: [[B:%[0-9]+]] = arith.divui [[S]], {{%[0-9]+}} : index
// CHECK: scf.parallel ([[K:%[0-9]+]]) = ({{%[0-9]+}}) to ([[MI]]) step ({{%[0-9]+}})
// CHECK: memref.load {{%[0-9]+}}[[[B]], [[H]], [[K]]] : memref<?x4x?xf32>
// CHECK: func.return
func.func @heads_at_run_time(%x: memref<?x4x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?x4x?xf32>
  %m = memref.dim %x, %c2 : memref<?x4x?xf32>
  %two = arith.constant 2.0 : f32
  scf.parallel (%i, %h, %k) = (%c0, %c0, %c0) to (%n, %c4, %m) step (%c1, %c1, %c1) {
    %v = memref.load %x[%i, %h, %k] : memref<?x4x?xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i, %h, %k] : memref<?x4x?xf32>
    scf.reduce
  }
  return
}

// Static elementwise loops whose leading dimensions make 16 slices or more keep the innermost
// dimension whole in each slice even below 64 (a per-channel scale of 32 planes of 784): 32
// slices, each a row of 784, not 25088 slices each delinearizing its element's index.
// CHECK-LABEL: func.func @planes
// CHECK: [[N:%[0-9]+]] = arith.constant 32 : i64
// CHECK: llvm.call @xcc_parallel_for({{%[0-9]+}}, {{%[0-9]+}}, [[N]])
// CHECK-LABEL: func.func private @planes_parallel0
// CHECK: scf.for [[I:%[0-9]+]] = %arg1 to %arg2 step
// CHECK: scf.parallel ([[J:%[0-9]+]]) =
// CHECK: memref.load {{%[0-9]+}}[[[I]], [[J]]] : memref<32x784xf32>
func.func @planes(%x: memref<32x784xf32>, %s: memref<32xf32>, %y: memref<32x784xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c784 = arith.constant 784 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c784) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<32x784xf32>
    %k = memref.load %s[%i] : memref<32xf32>
    %w = arith.mulf %v, %k : f32
    memref.store %w, %y[%i, %j] : memref<32x784xf32>
    scf.reduce
  }
  return
}

// A body with a loop of its own (a pooling window) is worth an index split per point: the
// leading dims are split until their product reaches 64 counting the run-time batch as one
// (batch x 8 x 8 slices), and the last dim stays a loop.
// CHECK-LABEL: func.func @windows_at_run_time
// CHECK: [[FIXED:%[0-9]+]] = arith.constant 64 : i64
// CHECK: llvm.call @xcc_parallel_for
// CHECK-LABEL: func.func private @windows_at_run_time_parallel0
// CHECK: scf.for [[S:%[0-9]+]] = %arg1 to %arg2 step
// CHECK: scf.parallel ([[W:%[0-9]+]]) = ({{%[0-9]+}}) to ({{%[0-9]+}}) step ({{%[0-9]+}})
// CHECK: scf.for
// CHECK: func.return
func.func @windows_at_run_time(%x: memref<?x8x8x8x4xf32>, %y: memref<?x8x8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?x8x8x8x4xf32>
  %zero = arith.constant 0.0 : f32
  scf.parallel (%b, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%n, %c8, %c8, %c8) step (%c1, %c1, %c1, %c1) {
    %s = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%b, %c, %h, %w, %k] : memref<?x8x8x8x4xf32>
      %t = arith.addf %acc, %v : f32
      scf.yield %t : f32
    }
    memref.store %s, %y[%b, %c, %h, %w] : memref<?x8x8x8xf32>
    scf.reduce
  }
  return
}

// CHECK: llvm.func @xcc_parallel_for(!llvm.ptr, !llvm.ptr, i64)

