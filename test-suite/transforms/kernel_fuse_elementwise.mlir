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

// Sizes known only at run time: buffers allocated with the same size value have the same
// iteration space, so the chain fuses as it does with static sizes.
// CHECK-LABEL: func.func @rows_at_run_time
// CHECK: [[A:%[0-9]+]] = memref.alloc(%arg0) : memref<?x8xf32>
// CHECK-NEXT: [[B:%[0-9]+]] = memref.alloc(%arg0) : memref<?x8xf32>
// CHECK-NEXT: kernel.generic {{.*}} ins([[A]] : memref<?x8xf32>) outs([[B]] : memref<?x8xf32>) {
// CHECK-NEXT: ^bb{{[0-9]+}}([[X:%[0-9]+]]: f32, {{%[0-9]+}}: f32):
// CHECK-NEXT: [[E:%[0-9]+]] = math.erf [[X]] : f32
// CHECK-NEXT: [[M:%[0-9]+]] = arith.mulf [[E]], [[X]] : f32
// CHECK-NEXT: kernel.yield [[M]] : f32
// CHECK-NOT: memref.alloc
func.func @rows_at_run_time(%n: index) {
  %x = memref.alloc(%n) : memref<?x8xf32>
  %y = memref.alloc(%n) : memref<?x8xf32>
  %t = memref.alloc(%n) : memref<?x8xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x8xf32>) outs(%t : memref<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.erf %a : f32
    kernel.yield %e : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %x : memref<?x8xf32>, memref<?x8xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%e: f32, %a: f32, %o: f32):
    %m = arith.mulf %e, %a : f32
    kernel.yield %m : f32
  }
  return
}

// The consumer's loops take their run-time size from a buffer allocated with another size
// value: the spaces may differ, so nothing fuses.
// CHECK-LABEL: func.func @sizes_that_may_differ
// CHECK: memref.alloc(%arg0)
// CHECK: kernel.generic {{.*}} outs([[T:%[0-9]+]] : memref<?x8xf32>)
// CHECK: kernel.generic {{.*}} ins({{%[0-9]+}}, [[T]] : memref<?x8xf32>, memref<?x8xf32>)
func.func @sizes_that_may_differ(%n: index, %k: index) {
  %x = memref.alloc(%n) : memref<?x8xf32>
  %z = memref.alloc(%k) : memref<?x8xf32>
  %y = memref.alloc(%k) : memref<?x8xf32>
  %t = memref.alloc(%n) : memref<?x8xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<?x8xf32>) outs(%t : memref<?x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.erf %a : f32
    kernel.yield %e : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%z, %t : memref<?x8xf32>, memref<?x8xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%b: f32, %e: f32, %o: f32):
    %m = arith.mulf %b, %e : f32
    kernel.yield %m : f32
  }
  return
}

// The second half of x (a Slice: read at d1 + 4) negated into the first half of y (a piece of a
// Concat: the output is wider than the loop). The negation fuses into the slice, whose 4-wide
// output still sizes the loop; the copy into y does not fuse, since no operand would then size
// the loop at 4 (it would run over all 8 columns of y and read x past its end).
// CHECK-LABEL: func.func @slice_into_a_concat_piece
// CHECK: memref.alloc() : memref<2x4xf32>
// CHECK-NEXT: kernel.generic {{.*}}(d0, d1 + 4){{.*}} ins(%arg0 : memref<2x8xf32>) outs([[H:%[0-9]+]] : memref<2x4xf32>)
// CHECK-NEXT: ^bb
// CHECK-NEXT: arith.negf
// CHECK-NEXT: kernel.yield
// CHECK: kernel.generic {{.*}} ins([[H]] : memref<2x4xf32>) outs(%arg1 : memref<2x8xf32>)
func.func @slice_into_a_concat_piece(%x: memref<2x8xf32>, %y: memref<2x8xf32>) {
  %half = memref.alloc() : memref<2x4xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1 + 4)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x8xf32>) outs(%half : memref<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  %neg = memref.alloc() : memref<2x4xf32>
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%half : memref<2x4xf32>) outs(%neg : memref<2x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    kernel.yield %n : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%neg : memref<2x4xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}

// A chain fuses into one generic in order; a producer reading the same buffer twice (x * x)
// reads it once in the fused body, both uses on the one argument.
// CHECK-LABEL: func.func @square_exp_plus_x
// CHECK-NEXT: kernel.generic {{.*}} ins(%arg0 : memref<4xf32>) outs(%arg1 : memref<4xf32>) {
// CHECK-NEXT: ^bb{{[0-9]+}}([[X:%[0-9]+]]: f32, {{%[0-9]+}}: f32):
// CHECK-NEXT: [[S:%[0-9]+]] = arith.mulf [[X]], [[X]] : f32
// CHECK-NEXT: [[E:%[0-9]+]] = math.exp [[S]] : f32
// CHECK-NEXT: [[A:%[0-9]+]] = arith.addf [[E]], [[X]] : f32
// CHECK-NEXT: kernel.yield [[A]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @square_exp_plus_x(%x: memref<4xf32>, %y: memref<4xf32>) {
  %s = memref.alloc() : memref<4xf32>
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    kernel.yield %m : f32
  }
  %e = memref.alloc() : memref<4xf32>
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : memref<4xf32>) outs(%e : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    kernel.yield %r : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e, %x : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    kernel.yield %r : f32
  }
  memref.dealloc %s : memref<4xf32>
  memref.dealloc %e : memref<4xf32>
  return
}

// A producer that reads its output's elements (accumulates into the buffer) cannot be computed
// inside its reader, which would not give it those elements: nothing fuses.
// CHECK-LABEL: func.func @accumulating_producer
// CHECK: memref.alloc
// CHECK: kernel.generic
// CHECK: arith.addf
// CHECK: kernel.generic
// CHECK: math.exp
func.func @accumulating_producer(%x: memref<4xf32>, %y: memref<4xf32>) {
  %t = memref.alloc() : memref<4xf32>
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : memref<4xf32>) outs(%t : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    kernel.yield %r : f32
  }
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : memref<4xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    kernel.yield %r : f32
  }
  return
}
