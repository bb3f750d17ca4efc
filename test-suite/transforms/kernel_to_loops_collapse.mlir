// RUN: --passes=kernel-to-loops
// kernel-to-loops merges adjacent parallel loops that every operand reads as adjacent whole
// dimensions of itself, or not at all, into one loop over their product: the innermost loop of
// an elementwise op over a 3 x 5 plane is one of 15, which vectorizes. The operands are seen
// through views with those dimensions merged.

// A scale per channel (read at (d0, d1, 0, 0)): the batch of one and the channels become one
// loop of 4 (the scale reads them together too), the plane's two loops one of 15.
// CHECK-LABEL: func.func @scale_planes
// CHECK: [[X:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} : (memref<1x4x3x5xf32>) -> memref<4x15xf32>
// CHECK: [[S:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}} : (memref<1x4x1x1xf32>) -> memref<4x1x1xf32>
// CHECK: [[Y:%[0-9]+]] = "memref.reinterpret_cast"(%arg2) {{.*}} : (memref<1x4x3x5xf32>) -> memref<4x15xf32>
// CHECK: scf.parallel ([[C:%[0-9]+]], [[P:%[0-9]+]]) =
// CHECK-NEXT: memref.load [[X]][[[C]], [[P]]] : memref<4x15xf32>
// CHECK: memref.load [[S]][[[C]], {{%[0-9]+}}, {{%[0-9]+}}] : memref<4x1x1xf32>
// CHECK: memref.store {{%[0-9]+}}, [[Y]][[[C]], [[P]]] : memref<4x15xf32>
func.func @scale_planes(%x: memref<1x4x3x5xf32>, %s: memref<1x4x1x1xf32>, %y: memref<1x4x3x5xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : memref<1x4x3x5xf32>, memref<1x4x1x1xf32>) outs(%y : memref<1x4x3x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    kernel.yield %p : f32
  }
  return
}

// Elementwise over whole tensors: one loop of 60.
// CHECK-LABEL: func.func @whole
// CHECK: scf.parallel ([[I:%[0-9]+]]) =
// CHECK-NEXT: memref.load {{%[0-9]+}}[[[I]]] : memref<60xf32>
func.func @whole(%x: memref<4x3x5xf32>, %y: memref<4x3x5xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<4x3x5xf32>) outs(%y : memref<4x3x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    kernel.yield %n : f32
  }
  return
}

// Kept apart: a transposed read, a slot of a larger output, and a body that reads its indices.
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: reinterpret_cast
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) =
func.func @transposed(%x: memref<3x5xf32>, %y: memref<5x3xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x5xf32>) outs(%y : memref<5x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}
// CHECK-LABEL: func.func @slot
// CHECK-NOT: reinterpret_cast
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) =
func.func @slot(%x: memref<3x5xf32>, %y: memref<3x8xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x5xf32>) outs(%y : memref<3x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    kernel.yield %n : f32
  }
  return
}
// CHECK-LABEL: func.func @indices
// CHECK-NOT: reinterpret_cast
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) =
func.func @indices(%y: memref<3x5xi64>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%y : memref<3x5xi64>) {
  ^bb0(%o: i64):
    %i = kernel.index 1 : index
    %v = arith.index_cast %i : index to i64
    kernel.yield %v : i64
  }
  return
}

// A diagonal read (one loop at two adjacent positions of an operand) stays two indices while the
// other loops merge: 4 x 5 become one loop of 20, the 8 x 8 input is read at [k, k].
// CHECK-LABEL: func.func @diagonal
// CHECK: scf.parallel ({{%[0-9]+}}, [[K:%[0-9]+]]) =
// CHECK-NEXT: memref.load %arg0[[[K]], [[K]]] : memref<8x8xf32>
func.func @diagonal(%x: memref<8x8xf32>, %y: memref<4x5x8xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<8x8xf32>) outs(%y : memref<4x5x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}

// A pad's interior (the output read from row 1 on): its rows and columns still merge, since
// each plane's rows past the first are one run; the shift becomes one of a whole row (5).
// CHECK-LABEL: func.func @pad_interior
// CHECK: [[X:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<2x15xf32>
// CHECK: [[Y:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}} -> memref<2x20xf32>
// CHECK: scf.parallel ([[C:%[0-9]+]], [[P:%[0-9]+]]) =
// CHECK-NEXT: [[E:%[0-9]+]] = memref.load [[X]][[[C]], [[P]]] : memref<2x15xf32>
// CHECK-NEXT: [[FIVE:%[0-9]+]] = arith.constant 5 : index
// CHECK-NEXT: [[AT:%[0-9]+]] = arith.addi [[P]], [[FIVE]] : index
// CHECK-NEXT: memref.store [[E]], [[Y]][[[C]], [[AT]]] : memref<2x20xf32>
func.func @pad_interior(%x: memref<2x3x5xf32>, %y: memref<2x4x5xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1 + 1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x3x5xf32>) outs(%y : memref<2x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}

// Shifted along the inner of the two loops (a pad of columns): kept apart.
// CHECK-LABEL: func.func @pad_columns
// CHECK-NOT: reinterpret_cast
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}) =
func.func @pad_columns(%x: memref<3x5xf32>, %y: memref<3x7xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1 + 1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x5xf32>) outs(%y : memref<3x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}
