// RUN: --passes=kernel-to-loops
// kernel.copy between contiguous buffers is one memref.copy of flat views (a memcpy, which
// plan-workspace can elide); so is a kernel.generic that only moves its input into one
// contiguous run of its output (a Concat's input along the first axis that is not 1), through a
// view at the run's offset. A run that is not contiguous stays a loop. A 3x3 convolution gathers
// im2col columns into a buffer of its own (36 taps x 16 positions), freed after the GEMM, which
// runs on the micro-kernel with the bias per row.

// CHECK-LABEL: func.func @reshape
// CHECK: [[S:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<24xf32>
// CHECK: [[D:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}} -> memref<24xf32>
// CHECK-NEXT: "memref.copy"([[S]], [[D]]) : (memref<24xf32>, memref<24xf32>) -> ()
// CHECK-NOT: scf.parallel
func.func @reshape(%x: memref<2x3x4xf32>, %y: memref<6x4xf32>) {
  "kernel.copy"(%x, %y) : (memref<2x3x4xf32>, memref<6x4xf32>) -> ()
  return
}

// The second input of a Concat along axis 1 of [1, 5, 2, 3] tensors: 3 channels of 6 elements
// starting at channel 2, elements [12, 30) of the output.
// CHECK-LABEL: func.func @concat_slot
// CHECK: [[S:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<18xf32>
// CHECK-NEXT: [[D:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}}static_offsets = array<i64: 12>{{.*}} -> memref<18xf32, strided<[1], offset: 12>>
// CHECK-NEXT: "memref.copy"([[S]], [[D]])
// CHECK-NOT: scf.parallel
func.func @concat_slot(%x: memref<1x3x2x3xf32>, %y: memref<1x5x2x3xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1 + 2, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x3x2x3xf32>) outs(%y : memref<1x5x2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    kernel.yield %a : f32
  }
  return
}

// With a batch of 2 the run is two pieces: a loop.
// CHECK-LABEL: func.func @concat_batch
// CHECK-NOT: memref.copy
// CHECK: scf.parallel
func.func @concat_batch(%x: memref<2x3x2x3xf32>, %y: memref<2x5x2x3xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1 + 2, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<2x3x2x3xf32>) outs(%y : memref<2x5x2x3xf32>) {
  ^bb0(%a: f32, %b: f32):
    kernel.yield %a : f32
  }
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
