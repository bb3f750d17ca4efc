// RUN: --target=nvptx64 --passes=convert-gpu-to-nvvm
// gpu to nvvm: thread and block coordinates read PTX's special registers (32-bit) and widen to
// the index type.

// CHECK-LABEL: func.func @k(%arg0: memref<?xf32>) attributes {gpu.kernel}
// CHECK-NEXT: [[TID:%[0-9]+]] = "llvm.intr.nvvm.read.ptx.sreg.tid.x"() : () -> i32
// CHECK-NEXT: [[T:%[0-9]+]] = llvm.zext [[TID]] : i32 to i64
// CHECK-NEXT: [[CTAID:%[0-9]+]] = "llvm.intr.nvvm.read.ptx.sreg.ctaid.y"() : () -> i32
// CHECK-NEXT: llvm.zext [[CTAID]] : i32 to i64
// CHECK: arith.addi
func.func @k(%x: memref<?xf32>) attributes {gpu.kernel} {
  %t = gpu.thread_id x
  %b = gpu.block_id y
  %i = arith.addi %t, %b : index
  %v = memref.load %x[%i] : memref<?xf32>
  memref.store %v, %x[%t] : memref<?xf32>
  return
}
