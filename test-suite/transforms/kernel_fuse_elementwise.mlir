// RUN: --passes=kernel-fuse-elementwise
// kernel-fuse-elementwise: erf(x) written to a buffer only the next generic reads becomes part of
// that generic's body; x, read by both, becomes one operand; the buffer goes.

// CHECK-LABEL: func.func @erf_times_x
// CHECK-NEXT: kernel.generic {{.*}} ins(%arg0 : memref<2x8xf32>) outs(%arg1 : memref<2x8xf32>) {
// CHECK-NEXT: ^bb{{[0-9]+}}([[X:%[0-9]+]]: f32, {{%[0-9]+}}: f32):
// CHECK-NEXT: [[E:%[0-9]+]] = math.erf [[X]] : f32
// CHECK-NEXT: [[M:%[0-9]+]] = arith.mulf [[E]], [[X]] : f32
// CHECK-NEXT: kernel.yield [[M]] : f32
// CHECK-NOT: memref.alloc
func.func @erf_times_x(%x: memref<2x8xf32>, %y: memref<2x8xf32>) {
  %t = memref.alloc() : memref<2x8xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x8xf32>) outs(%t : memref<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.erf %a : f32
    kernel.yield %e : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %x : memref<2x8xf32>, memref<2x8xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%e: f32, %a: f32, %o: f32):
    %m = arith.mulf %e, %a : f32
    kernel.yield %m : f32
  }
  return
}

// A reduction is not elementwise: nothing fuses.
// CHECK-LABEL: func.func @then_reduce
// CHECK: memref.alloc
// CHECK: kernel.generic
// CHECK: kernel.generic
func.func @then_reduce(%x: memref<2x8xf32>, %y: memref<2xf32>) {
  %t = memref.alloc() : memref<2x8xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x8xf32>) outs(%t : memref<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    kernel.yield %e : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%t : memref<2x8xf32>) outs(%y : memref<2xf32>) {
  ^bb0(%e: f32, %acc: f32):
    %s = arith.addf %acc, %e : f32
    kernel.yield %s : f32
  }
  return
}
