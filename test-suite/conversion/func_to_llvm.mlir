// RUN: --passes=convert-func-to-llvm
// func to llvm: a memref parameter expands into its descriptor's 3 + 2 * rank fields (upstream's
// calling convention), packed back into the descriptor in the entry block; a call explodes it
// again; two results return as one struct; llvm.emit_c_interface adds _mlir_ciface_caller,
// which takes a pointer to the descriptor and returns the results through a pointer.

// CHECK-LABEL: llvm.func @callee(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64, %arg6: i64, %arg7: i64) -> (f32)
// CHECK-NEXT: llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK-NEXT: llvm.insertvalue %arg0, {{%[0-9]+}}[0]
// CHECK-NEXT: llvm.insertvalue %arg1, {{%[0-9]+}}[1]
// CHECK-NEXT: llvm.insertvalue %arg2, {{%[0-9]+}}[2]
// CHECK-NEXT: llvm.insertvalue %arg3, {{%[0-9]+}}[3, 0]
// CHECK-NEXT: llvm.insertvalue %arg5, {{%[0-9]+}}[4, 0]
// CHECK-NEXT: llvm.insertvalue %arg4, {{%[0-9]+}}[3, 1]
// CHECK-NEXT: [[DESC:%[0-9]+]] = llvm.insertvalue %arg6, {{%[0-9]+}}[4, 1]
// memref.load is not this pass's: it sees the memref through a cast.
// CHECK: [[M:%[0-9]+]] = "builtin.unrealized_conversion_cast"([[DESC]])
// CHECK: memref.load [[M]]
// CHECK: llvm.return {{%[0-9]+}} : f32
func.func @callee(%m: memref<4x?xf32>, %i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %v = memref.load %m[%c0, %i] : memref<4x?xf32>
  return %v : f32
}

// CHECK-LABEL: llvm.func @caller({{.*}}) -> (!llvm.struct<(f32, f32)>) attributes {llvm.emit_c_interface}
// CHECK: llvm.extractvalue [[D:%[0-9]+]][0]
// CHECK-NEXT: llvm.extractvalue [[D]][1]
// CHECK-NEXT: llvm.extractvalue [[D]][2]
// CHECK: [[R:%[0-9]+]] = llvm.call @callee({{.*}}) : (!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64) -> f32
// CHECK: llvm.insertvalue [[R]], {{%[0-9]+}}[0] : !llvm.struct<(f32, f32)>
// CHECK: llvm.insertvalue [[R]], {{%[0-9]+}}[1] : !llvm.struct<(f32, f32)>
// CHECK: llvm.return
func.func @caller(%m: memref<4x?xf32>) -> (f32, f32) attributes {llvm.emit_c_interface} {
  %c1 = arith.constant 1 : index
  %a = func.call @callee(%m, %c1) : (memref<4x?xf32>, index) -> f32
  return %a, %a : f32, f32
}
// CHECK-LABEL: llvm.func @_mlir_ciface_caller(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-NEXT: [[LOADED:%[0-9]+]] = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
// CHECK: [[RS:%[0-9]+]] = llvm.call @caller
// CHECK-NEXT: llvm.store [[RS]], %arg0 : !llvm.struct<(f32, f32)>, !llvm.ptr
// CHECK-NEXT: llvm.return
