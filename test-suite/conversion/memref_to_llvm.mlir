// RUN: --passes=finalize-memref-to-llvm
// memref to llvm: an access computes aligned + (offset + i * stride0 + j * stride1) with the
// static strides and offset of the type as constants; alloc calls runtime-c's xcc_alloc with the
// byte size (from LLVM's layout of the element) and the alignment, dealloc frees the allocated
// pointer; a subview's descriptor gets offset 0 + 1 * 8 + 2 * 1 and the source's strides.

// CHECK-LABEL: func.func @access
// CHECK: [[D:%[0-9]+]] = "builtin.unrealized_conversion_cast"(%arg0) : (memref<4x8xf32>) -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK: [[I:%[0-9]+]] = "builtin.unrealized_conversion_cast"(%arg1) : (index) -> i64
// CHECK: [[J:%[0-9]+]] = "builtin.unrealized_conversion_cast"(%arg2) : (index) -> i64
// CHECK: [[BASE:%[0-9]+]] = llvm.extractvalue [[D]][1]
// CHECK-NEXT: [[OFF:%[0-9]+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: [[S0:%[0-9]+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: [[T0:%[0-9]+]] = llvm.mul [[I]], [[S0]] : i64
// CHECK-NEXT: [[L0:%[0-9]+]] = llvm.add [[OFF]], [[T0]] : i64
// CHECK-NEXT: [[S1:%[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: [[T1:%[0-9]+]] = llvm.mul [[J]], [[S1]] : i64
// CHECK-NEXT: [[L1:%[0-9]+]] = llvm.add [[L0]], [[T1]] : i64
// CHECK-NEXT: [[P:%[0-9]+]] = "llvm.getelementptr"([[BASE]], [[L1]]) {elem_type = f32, inbounds, rawConstantIndices = array<i32: -2147483648>}
// CHECK-NEXT: llvm.store %arg3, [[P]] {alignment = 4} : f32, !llvm.ptr
// CHECK: llvm.load {{%[0-9]+}} {alignment = 4} : !llvm.ptr -> f32
func.func @access(%m: memref<4x8xf32>, %i: index, %j: index, %v: f32) -> f32 {
  memref.store %v, %m[%i, %j] : memref<4x8xf32>
  %r = memref.load %m[%j, %i] : memref<4x8xf32>
  return %r : f32
}

// CHECK-LABEL: func.func @alloc(%arg0: index)
// CHECK: [[N:%[0-9]+]] = "builtin.unrealized_conversion_cast"(%arg0) : (index) -> i64
// CHECK: [[NULL:%[0-9]+]] = llvm.mlir.zero : !llvm.ptr
// CHECK: [[END:%[0-9]+]] = "llvm.getelementptr"([[NULL]], {{%[0-9]+}}) {elem_type = f32,
// CHECK-NEXT: [[SIZE:%[0-9]+]] = llvm.ptrtoint [[END]] : !llvm.ptr to i64
// CHECK-NEXT: [[BYTES:%[0-9]+]] = llvm.mul {{%[0-9]+}}, [[SIZE]] : i64
// CHECK-NEXT: [[ALIGN:%[0-9]+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-NEXT: [[PTR:%[0-9]+]] = llvm.call @xcc_alloc([[BYTES]], [[ALIGN]]) : (i64, i64) -> !llvm.ptr
// CHECK: llvm.insertvalue [[PTR]], {{%[0-9]+}}[0]
// CHECK-NEXT: llvm.insertvalue [[PTR]], {{%[0-9]+}}[1]
// CHECK: llvm.insertvalue [[N]], {{%[0-9]+}}[3, 0]
// CHECK: [[FREED:%[0-9]+]] = llvm.extractvalue {{%[0-9]+}}[0]
// CHECK-NEXT: llvm.call @xcc_free([[FREED]]) : (!llvm.ptr) -> ()
func.func @alloc(%n: index) {
  %a = memref.alloc(%n) {alignment = 64} : memref<?x4xf32>
  memref.dealloc %a : memref<?x4xf32>
  return
}

// CHECK-LABEL: func.func @window
// CHECK: [[ROW:%[0-9]+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT: [[COL:%[0-9]+]] = llvm.mlir.constant(2 : i64) : i64
// CHECK: [[ZERO:%[0-9]+]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT: [[STRIDE0:%[0-9]+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK-NEXT: [[A:%[0-9]+]] = llvm.mul [[ROW]], [[STRIDE0]] : i64
// CHECK-NEXT: [[B:%[0-9]+]] = llvm.add [[ZERO]], [[A]] : i64
// CHECK: [[OFFSET:%[0-9]+]] = llvm.add [[B]], {{%[0-9]+}} : i64
// CHECK: llvm.insertvalue [[OFFSET]], {{%[0-9]+}}[2]
func.func @window(%m: memref<8x8xf32>) -> memref<2x4xf32, strided<[8, 1], offset: 10>> {
  %s = memref.subview %m[1, 2][2, 4][1, 1] : memref<8x8xf32> to memref<2x4xf32, strided<[8, 1], offset: 10>>
  return %s : memref<2x4xf32, strided<[8, 1], offset: 10>>
}
// CHECK: llvm.func @xcc_alloc(i64, i64) -> (!llvm.ptr)
// CHECK-NEXT: llvm.func @xcc_free(!llvm.ptr)
