// RUN: --target=nvptx64 --passes=convert-gpu-to-nvvm
// gpu to nvvm: a block's shared memory is the module's one `extern .shared` array (address space
// 3, sized by each launch), seen through a generic pointer; a barrier is `bar.sync 0` (the
// aligned barrier of every thread of the block).

// CHECK-LABEL: func.func @k(%arg0: memref<64xf32>) attributes {gpu.kernel}
// CHECK: [[SHARED:%[0-9]+]] = llvm.mlir.addressof @xcc_shared_memory : !llvm.ptr<3>
// CHECK-NEXT: [[GENERIC:%[0-9]+]] = llvm.addrspacecast [[SHARED]] : !llvm.ptr<3> to !llvm.ptr
// CHECK: llvm.insertvalue [[GENERIC]], {{%[0-9]+}}[0]
// CHECK: [[ALL:%[0-9]+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: "llvm.intr.nvvm.barrier.cta.sync.aligned.all"([[ALL]]) : (i32) -> ()
// CHECK: llvm.mlir.global external @xcc_shared_memory() {addr_space = 3 : i32, alignment = 128} : !llvm.array<0 x i8>
func.func @k(%x: memref<64xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %shared = gpu.dynamic_shared_memory : memref<256xi8, #gpu.address_space<workgroup>>
  %stage = memref.view %shared[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
  %t = gpu.thread_id x
  %v = memref.load %x[%t] : memref<64xf32>
  memref.store %v, %stage[%t] : memref<64xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %w = memref.load %stage[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %w, %x[%t] : memref<64xf32>
  return
}
