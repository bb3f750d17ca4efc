// RUN: --target=nvptx64 --mcpu=sm_80 --passes=convert-gpu-to-nvvm
// gpu to nvvm: a fragment loaded from or stored to shared memory (a memref in
// #gpu.address_space<workgroup>) takes a shared pointer, !llvm.ptr<3>, so that the intrinsic's
// .p3 form is called (wmma...shared in PTX); NVPTX would not infer it from the generic pointer
// its descriptor holds. A matrix in global memory keeps the generic pointer.

// CHECK-LABEL: func.func @k
// CHECK: [[GENERIC:%[0-9]+]] = "llvm.getelementptr"
// CHECK-NEXT: [[SHARED:%[0-9]+]] = llvm.addrspacecast [[GENERIC]] : !llvm.ptr to !llvm.ptr<3>
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.load.a.col.stride.tf32"([[SHARED]], {{%[0-9]+}}) : (!llvm.ptr<3>, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: llvm.addrspacecast {{%[0-9]+}} : !llvm.ptr to !llvm.ptr<3>
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.load.b.row.stride.tf32"({{%[0-9]+}}, {{%[0-9]+}}) : (!llvm.ptr<3>, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.mma.col.row.tf32"
// CHECK: llvm.addrspacecast {{%[0-9]+}} : !llvm.ptr to !llvm.ptr<3>
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.store.d.row.stride.f32"({{.*}}) : (!llvm.ptr<3>, f32, f32, f32, f32, f32, f32, f32, f32, i32) -> ()
// CHECK-NOT: llvm.addrspacecast
// CHECK: "llvm.intr.nvvm.wmma.m16n16k8.store.d.row.stride.f32"({{.*}}) : (!llvm.ptr, f32, f32, f32, f32, f32, f32, f32, f32, i32) -> ()
func.func @k(%out: memref<16x16xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c4352 = arith.constant 4352 : index
  %f0 = arith.constant 0.0 : f32
  %shared = gpu.dynamic_shared_memory : memref<17408xi8, #gpu.address_space<workgroup>>
  %a = memref.view %shared[%c0][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<16x68xf32, #gpu.address_space<workgroup>>
  %b = memref.view %shared[%c4352][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<16x68xf32, #gpu.address_space<workgroup>>
  %c = memref.view %shared[%c0][] : memref<17408xi8, #gpu.address_space<workgroup>> to memref<64x68xf32, #gpu.address_space<workgroup>>
  %zero = gpu.subgroup_mma_constant_matrix %f0 : !gpu.mma_matrix<16x16xf32, "COp">
  %fa = gpu.subgroup_mma_load_matrix %a[%c0, %c0] {leadDimension = 68 : index, transpose} : memref<16x68xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<16x8xf32, "AOp">
  %fb = gpu.subgroup_mma_load_matrix %b[%c0, %c0] {leadDimension = 68 : index} : memref<16x68xf32, #gpu.address_space<workgroup>> -> !gpu.mma_matrix<8x16xf32, "BOp">
  %d = gpu.subgroup_mma_compute %fa, %fb, %zero {a_transpose} : !gpu.mma_matrix<16x8xf32, "AOp">, !gpu.mma_matrix<8x16xf32, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
  gpu.subgroup_mma_store_matrix %d, %c[%c0, %c0] {leadDimension = 68 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<64x68xf32, #gpu.address_space<workgroup>>
  gpu.subgroup_mma_store_matrix %d, %out[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
  return
}
