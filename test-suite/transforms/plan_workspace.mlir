// RUN: --passes=plan-workspace
// plan-workspace: in a function marked xcc.workspace = 2, each buffer becomes a view of the
// workspace (argument 2) at an offset planned by liveness: %a (64 bytes) lives until the second
// copy, %b overlaps it and goes after it (offset 64), %c starts after %a's last use and takes
// its place (offset 0). The workspace is 128 bytes: the function's xcc.workspace_bytes and the
// value of kernel.workspace_size.

// CHECK-LABEL: func.func @run(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: !llvm.ptr) -> (index) attributes {xcc.workspace = 2, xcc.workspace_bytes = 128}
// CHECK: [[WS:%[0-9]+]] = "builtin.unrealized_conversion_cast"({{%[0-9]+}}) : ({{.*}}) -> memref<128xi8>
// CHECK: [[OFF_A:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[A:%[0-9]+]] = memref.view [[WS]][[[OFF_A]]][] : memref<128xi8> to memref<16xf32>
// CHECK: [[OFF_B:%[0-9]+]] = arith.constant 64 : index
// CHECK-NEXT: [[B:%[0-9]+]] = memref.view [[WS]][[[OFF_B]]][] : memref<128xi8> to memref<16xf32>
// CHECK: [[OFF_C:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[C:%[0-9]+]] = memref.view [[WS]][[[OFF_C]]][] : memref<128xi8> to memref<16xf32>
// CHECK: arith.constant 128 : index
// CHECK-NOT: memref.alloc
// CHECK-NOT: kernel.workspace_size
func.func @run(%in: memref<16xf32>, %out: memref<16xf32>, %ws: !llvm.ptr) -> index attributes {xcc.workspace = 2} {
  %a = memref.alloc() : memref<16xf32>
  "kernel.copy"(%in, %a) : (memref<16xf32>, memref<16xf32>) -> ()
  %b = memref.alloc() : memref<16xf32>
  "kernel.copy"(%a, %b) : (memref<16xf32>, memref<16xf32>) -> ()
  %c = memref.alloc() : memref<16xf32>
  "kernel.copy"(%b, %c) : (memref<16xf32>, memref<16xf32>) -> ()
  "kernel.copy"(%c, %out) : (memref<16xf32>, memref<16xf32>) -> ()
  %n = "kernel.workspace_size"() {function = @run} : () -> index
  return %n : index
}
