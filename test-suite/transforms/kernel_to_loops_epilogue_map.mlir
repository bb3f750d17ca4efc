// RUN: --passes=kernel-to-loops
// A matmul's epilogue_map is copied into the micro-kernel's stores on the tile's vectors (its
// constant broadcast once, math.exp on vector<16xf32>), after the clamp, each operation for all
// eight rows of a vector column before the next (independent chains the CPU overlaps); the rows
// are stored after it. The function is then gone.

// CHECK-LABEL: func.func @gemm_sigmoid
// CHECK: [[C0:%[0-9]+]] = arith.maximumf {{%[0-9]+}}#0, {{%[0-9]+}} : vector<16xf32>
// CHECK: [[C1:%[0-9]+]] = arith.maximumf {{%[0-9]+}}#2, {{%[0-9]+}} : vector<16xf32>
// CHECK: [[ONE:%[0-9]+]] = arith.constant 1.0{{.*}} : f32
// CHECK-NEXT: [[ONES:%[0-9]+]] = vector.broadcast [[ONE]] : f32 to vector<16xf32>
// CHECK-NEXT: [[N0:%[0-9]+]] = arith.negf [[C0]] : vector<16xf32>
// CHECK-NEXT: [[N1:%[0-9]+]] = arith.negf [[C1]] : vector<16xf32>
// CHECK: [[E0:%[0-9]+]] = math.exp [[N0]] : vector<16xf32>
// CHECK-NEXT: [[E1:%[0-9]+]] = math.exp [[N1]] : vector<16xf32>
// CHECK: [[D0:%[0-9]+]] = arith.addf [[ONES]], [[E0]] : vector<16xf32>
// CHECK: [[S0:%[0-9]+]] = arith.divf [[ONES]], [[D0]] : vector<16xf32>
// CHECK: vector.store [[S0]]
// CHECK-NOT: func.func private @sigmoid
func.func private @sigmoid(%x: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %n = arith.negf %x : f32
  %e = math.exp %n : f32
  %d = arith.addf %one, %e : f32
  %s = arith.divf %one, %d : f32
  return %s : f32
}
func.func @gemm_sigmoid(%a: memref<16x8xf32>, %b: memref<8x32xf32>, %y: memref<16x32xf32>) {
  "kernel.matmul"(%a, %b, %y) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 1>, act_min = -1.0 : f32, epilogue_map = @sigmoid} : (memref<16x8xf32>, memref<8x32xf32>, memref<16x32xf32>) -> ()
  return
}
