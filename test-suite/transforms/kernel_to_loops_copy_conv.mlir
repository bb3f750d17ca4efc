// RUN: --passes=kernel-to-loops
// kernel.copy between contiguous buffers is one flat parallel loop over reinterpreted views; a
// 3x3 convolution gathers im2col columns into a buffer of its own (36 taps x 16 positions),
// freed after the GEMM, which runs on the micro-kernel with the bias per row.

// CHECK-LABEL: func.func @reshape
// CHECK: [[S:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<24xf32>
// CHECK: [[D:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}} -> memref<24xf32>
// CHECK: scf.parallel ([[I:%[0-9]+]])
// CHECK-NEXT: [[V:%[0-9]+]] = memref.load [[S]][[[I]]] : memref<24xf32>
// CHECK-NEXT: memref.store [[V]], [[D]][[[I]]] : memref<24xf32>
func.func @reshape(%x: memref<2x3x4xf32>, %y: memref<6x4xf32>) {
  "kernel.copy"(%x, %y) : (memref<2x3x4xf32>, memref<6x4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @conv3x3
// CHECK: [[COLS:%[0-9]+]] = memref.alloc() {alignment = 64} : memref<576xf32>
// CHECK: scf.parallel
// CHECK: memref.store {{%[0-9]+}}, [[COLS]][{{%[0-9]+}}] : memref<576xf32>
// CHECK: vector.fma
// CHECK: memref.dealloc [[COLS]] : memref<576xf32>
func.func @conv3x3(%x: memref<1x4x6x6xf32>, %w: memref<8x4x3x3xf32>, %b: memref<8xf32>, %y: memref<1x8x4x4xf32>) {
  "kernel.conv"(%x, %w, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (memref<1x4x6x6xf32>, memref<8x4x3x3xf32>, memref<8xf32>, memref<1x8x4x4xf32>) -> ()
  return
}
