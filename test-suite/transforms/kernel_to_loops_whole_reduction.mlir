// RUN: --passes=kernel-to-loops
// A kernel.generic that reduces a whole buffer with one exact, associative operation becomes
// vector code: 4 accumulators of 64 bytes (here 16 lanes) over the flattened buffer, started
// from the output's value for min and max (idempotent: repeating it changes nothing) and from 0
// for a sum (the output's value added at the end); the 44 elements past the 4 x 64 go in vectors
// under masks whose lanes off read the start; the lanes fold by halves (4 shuffles).

// CHECK-LABEL: func.func @whole_min
// CHECK: [[X:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<300xf32>
// CHECK-NEXT: [[INIT:%[0-9]+]] = memref.load %arg1[] : memref<f32>
// CHECK-NEXT: [[START:%[0-9]+]] = vector.broadcast [[INIT]] : f32 to vector<16xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}} = [[START]], {{.*}} = [[START]], {{.*}} = [[START]], {{.*}} = [[START]]) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: vector.load [[X]]{{.*}} : memref<300xf32>, vector<16xf32>
// CHECK-NEXT: arith.minimumf
// CHECK: "vector.maskedload"([[X]], {{.*}}, [[START]])
// CHECK: "vector.maskedload"([[X]], {{.*}}, [[START]])
// CHECK: "vector.maskedload"([[X]], {{.*}}, [[START]])
// CHECK-NOT: vector.maskedload
// CHECK: mask = array<i64: 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7>
// CHECK: mask = array<i64: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0>
// CHECK-NEXT: [[LAST:%[0-9]+]] = arith.minimumf
// CHECK-NEXT: [[R:%[0-9]+]] = "vector.extract"([[LAST]]) {static_position = array<i64: 0>}
// CHECK-NEXT: memref.store [[R]], %arg1[] : memref<f32>
func.func @whole_min(%x: memref<3x100xf32>, %y: memref<f32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<3x100xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.minimumf %acc, %a : f32
    kernel.yield %m : f32
  }
  return
}

// CHECK-LABEL: func.func @whole_sum
// CHECK-NEXT: [[SINIT:%[0-9]+]] = memref.load %arg1[] : memref<i32>
// CHECK-NEXT: [[ZERO:%[0-9]+]] = arith.constant 0 : i32
// CHECK-NEXT: vector.broadcast [[ZERO]] : i32 to vector<16xi32>
// CHECK: arith.addi {{.*}} : vector<16xi32>
// CHECK: [[SUM:%[0-9]+]] = "vector.extract"
// CHECK-NEXT: [[TOTAL:%[0-9]+]] = arith.addi [[SINIT]], [[SUM]] : i32
// CHECK-NEXT: memref.store [[TOTAL]], %arg1[] : memref<i32>
func.func @whole_sum(%x: memref<300xi32>, %y: memref<i32>) {
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<300xi32>) outs(%y : memref<i32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    kernel.yield %s : i32
  }
  return
}

// A float sum keeps the scalar loop: reassociated, it would round differently.
// CHECK-LABEL: func.func @float_sum
// CHECK-NOT: vector<
// CHECK: scf.for
// CHECK: arith.addf {{.*}} : f32
func.func @float_sum(%x: memref<300xf32>, %y: memref<f32>) {
  kernel.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : memref<300xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    kernel.yield %s : f32
  }
  return
}
