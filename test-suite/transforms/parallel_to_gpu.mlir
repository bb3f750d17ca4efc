// RUN: --target=nvptx64 --passes=convert-parallel-to-gpu
// convert-parallel-to-gpu: the work of a model's compute function (a function with
// xcc.workspace) becomes kernels. A parallel loop is a kernel whose threads take every
// (grid x block)-th of its flattened iterations, innermost fastest; a weight becomes the device
// copy the context holds; the host launches each kernel with the base pointers it needs, and
// ends with xcc_gpu_end. The setup function loads the kernels, uploads the weights and sizes
// the workspace.

// CHECK-LABEL: func.func @f(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr, %arg3: !llvm.ptr) -> (i32)
// CHECK: [[SLOTS:%[0-9]+]] = "llvm.alloca"
// CHECK: [[W:%[0-9]+]] = llvm.call @xcc_gpu_global(%arg3, {{%[0-9]+}}) : (!llvm.ptr, i32) -> !llvm.ptr
// CHECK: llvm.store %arg0,
// CHECK: llvm.store %arg1,
// CHECK: llvm.store [[W]],
// CHECK: llvm.call @xcc_gpu_launch(%arg3, {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}}, [[SLOTS]], {{%[0-9]+}})
// CHECK-NOT: scf.parallel
// CHECK: llvm.call @xcc_gpu_end(%arg3)
// CHECK: func.return
// CHECK-LABEL: func.func @f_kernel0(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: !llvm.ptr) attributes {gpu.kernel}
// CHECK: gpu.thread_id x
// CHECK: gpu.block_id x
// CHECK: gpu.block_dim x
// CHECK: gpu.grid_dim x
// CHECK: scf.for [[N:%[0-9]+]] = {{%[0-9]+}} to {{%[0-9]+}} step {{%[0-9]+}} {
// CHECK: arith.remui [[N]]
// CHECK: arith.divui [[N]]
// CHECK: memref.load
// CHECK: memref.store
// CHECK-LABEL: func.func @f_gpu_setup(%arg0: !llvm.ptr) -> (i32)
// CHECK: llvm.call @xcc_gpu_load(%arg0,
// CHECK: memref.get_global @w
// CHECK: llvm.call @xcc_gpu_upload(%arg0,
// CHECK: llvm.call @xcc_gpu_workspace(%arg0,
memref.global "private" constant @w : memref<4xf32> = dense<"0x0000803F000000400000404000008040"> : tensor<16xi8>
func.func private @f(%x: !llvm.ptr, %y: !llvm.ptr, %ws: !llvm.ptr) -> i32 attributes {xcc.workspace = 2 : i64, xcc.workspace_bytes = 0 : i64} {
  %0 = llvm.mlir.undef : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %1 = llvm.insertvalue %x, %0[0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %2 = llvm.insertvalue %x, %1[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %c0i = llvm.mlir.constant(0 : i64) : i64
  %c1i = llvm.mlir.constant(1 : i64) : i64
  %c3i = llvm.mlir.constant(3 : i64) : i64
  %c4i = llvm.mlir.constant(4 : i64) : i64
  %3 = llvm.insertvalue %c0i, %2[2] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %4 = llvm.insertvalue %c3i, %3[3, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %5 = llvm.insertvalue %c4i, %4[4, 0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %6 = llvm.insertvalue %c4i, %5[3, 1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %7 = llvm.insertvalue %c1i, %6[4, 1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %xm = "builtin.unrealized_conversion_cast"(%7) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>) -> memref<3x4xf32>
  %8 = llvm.insertvalue %y, %7[0] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %9 = llvm.insertvalue %y, %8[1] : !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>
  %ym = "builtin.unrealized_conversion_cast"(%9) : (!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>) -> memref<3x4xf32>
  %wm = memref.get_global @w : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c3, %c4) step (%c1, %c1) {
    %v = memref.load %xm[%i, %j] : memref<3x4xf32>
    %b = memref.load %wm[%j] : memref<4xf32>
    %s = arith.addf %v, %b : f32
    memref.store %s, %ym[%i, %j] : memref<3x4xf32>
    scf.reduce
  }
  %ok = arith.constant 0 : i32
  return %ok : i32
}
