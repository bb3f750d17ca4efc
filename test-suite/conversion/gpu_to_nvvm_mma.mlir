// RUN: --target=nvptx64 --mcpu=sm_80 --passes=convert-gpu-to-nvvm
// gpu to nvvm: a warp's matrix multiply-accumulate on tensor cores (TF32 m16n16k8) is NVVM's
// wmma: a load at the fragment's first element with the rows' stride (col-major when
// transposed), A's and B's elements rounded to TF32 (cvt.rna.tf32.f32), the product's layouts
// as the operands were loaded, and a row-major store of the sums.

// CHECK-LABEL: func.func @k
// CHECK: [[ZERO:%[0-9]+]] = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK-COUNT-8: llvm.insertvalue
// CHECK: [[A:%[0-9]+]] = "llvm.intr.nvvm.wmma.m16n16k8.load.a.col.stride.tf32"({{%[0-9]+}}, {{%[0-9]+}}) : (!llvm.ptr, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.extractvalue [[A]][3]
// CHECK-NEXT: llvm.bitcast
// CHECK-NEXT: "llvm.intr.nvvm.f2tf32.rna"
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.load.b.row.stride.tf32"
// CHECK-COUNT-4: "llvm.intr.nvvm.f2tf32.rna"
// CHECK: [[D:%[0-9]+]] = "llvm.intr.nvvm.wmma.m16n16k8.mma.col.row.tf32"({{.*}}) : (i32, i32, i32, i32, i32, i32, i32, i32, f32, f32, f32, f32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32, f32, f32, f32, f32)>
// CHECK: [[LD:%[0-9]+]] = llvm.mlir.constant(68 : i32) : i32
// CHECK-NEXT: "llvm.intr.nvvm.wmma.m16n16k8.store.d.row.stride.f32"({{%[0-9]+}}, {{.*}}, [[LD]]) : (!llvm.ptr, f32, f32, f32, f32, f32, f32, f32, f32, i32) -> ()
func.func @k(%a: memref<16x68xf32>, %b: memref<16x68xf32>, %c: memref<64x68xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %f0 = arith.constant 0.0 : f32
  %zero = gpu.subgroup_mma_constant_matrix %f0 : !gpu.mma_matrix<16x16xf32, "COp">
  %fa = gpu.subgroup_mma_load_matrix %a[%c8, %c0] {leadDimension = 68 : index, transpose} : memref<16x68xf32> -> !gpu.mma_matrix<16x8xf32, "AOp">
  %fb = gpu.subgroup_mma_load_matrix %b[%c8, %c0] {leadDimension = 68 : index} : memref<16x68xf32> -> !gpu.mma_matrix<8x16xf32, "BOp">
  %d = gpu.subgroup_mma_compute %fa, %fb, %zero {a_transpose} : !gpu.mma_matrix<16x8xf32, "AOp">, !gpu.mma_matrix<8x16xf32, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 68 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x68xf32>
  return
}
