// RUN: --passes=kernel-to-loops
// kernel.generic to loops: its parallel loops become one scf.parallel (the seam for threads and
// GPU grids), each operand read at its map (the bias at d1 only), the body copied in with its
// arguments replaced by the elements; a reduction loop runs inside, carrying the output element
// from a load before it to a store after it.

// CHECK-LABEL: func.func @add_bias
// CHECK: [[ZERO:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[ONE:%[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT: [[FOUR:%[0-9]+]] = arith.constant 4 : index
// CHECK-NEXT: [[EIGHT:%[0-9]+]] = arith.constant 8 : index
// CHECK-NEXT: scf.parallel ([[I:%[0-9]+]], [[J:%[0-9]+]]) = ([[ZERO]], [[ZERO]]) to ([[FOUR]], [[EIGHT]]) step ([[ONE]], [[ONE]]) {
// CHECK-NEXT: [[X:%[0-9]+]] = memref.load %arg0[[[I]], [[J]]] : memref<4x8xf32>
// CHECK-NEXT: [[B:%[0-9]+]] = memref.load %arg1[[[J]]] : memref<8xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = arith.addf [[X]], [[B]] : f32
// CHECK-NEXT: memref.store [[S]], %arg2[[[I]], [[J]]] : memref<4x8xf32>
// CHECK-NEXT: scf.reduce
// CHECK-NOT: kernel.
func.func @add_bias(%x: memref<4x8xf32>, %b: memref<8xf32>, %y: memref<4x8xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<4x8xf32>, memref<8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    kernel.yield %s : f32
  }
  return
}

// CHECK-LABEL: func.func @row_sums
// CHECK: scf.parallel ([[I:%[0-9]+]]) = ({{%[0-9]+}}) to ({{%[0-9]+}}) step ({{%[0-9]+}}) {
// CHECK-NEXT: [[START:%[0-9]+]] = memref.load %arg1[[[I]]] : memref<4xf32>
// CHECK: [[SUM:%[0-9]+]] = scf.for [[K:%[0-9]+]] = {{%[0-9]+}} to {{%[0-9]+}} step {{%[0-9]+}} iter_args([[ACC:%[0-9]+]] = [[START]]) -> (f32) {
// CHECK-NEXT: [[X:%[0-9]+]] = memref.load %arg0[[[I]], [[K]]] : memref<4x8xf32>
// CHECK-NEXT: [[NEXT:%[0-9]+]] = arith.addf [[ACC]], [[X]] : f32
// CHECK-NEXT: scf.yield [[NEXT]] : f32
// CHECK: memref.store [[SUM]], %arg1[[[I]]] : memref<4xf32>
func.func @row_sums(%x: memref<4x8xf32>, %y: memref<4xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%y : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    kernel.yield %s : f32
  }
  return
}

// A transposing copy: the input's map permutes the loop indices.
// CHECK-LABEL: func.func @transpose
// CHECK: scf.parallel ([[I:%[0-9]+]], [[J:%[0-9]+]])
// CHECK-NEXT: [[V:%[0-9]+]] = memref.load %arg0[[[J]], [[I]]] : memref<3x2xi8>
// CHECK-NEXT: memref.store [[V]], %arg1[[[I]], [[J]]] : memref<2x3xi8>
func.func @transpose(%x: memref<3x2xi8>, %y: memref<2x3xi8>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x2xi8>) outs(%y : memref<2x3xi8>) {
  ^bb0(%a: i8, %o: i8):
    kernel.yield %a : i8
  }
  return
}
