// RUN: --passes=kernel-to-loops
// kernel-to-loops: a generic that only moves its input, interleaving a few planes
// (out[.., w, q] = in[.., q, w], q innermost and small: the quads of channels an integer
// convolution reads) goes along w in vectors: each plane's run of 16 bytes loaded whole, the
// runs interleaved by shuffles (planes 0 and 2, 1 and 3, then the two), stored as one run of 64
// through a view with w and q merged; the columns past the last whole vector go one at a time.

// CHECK-LABEL: func.func @quads
// CHECK: [[X:%[0-9]+]] = "memref.reinterpret_cast"(%arg0) {{.*}} -> memref<2x4x20xi8>
// CHECK: [[Y:%[0-9]+]] = "memref.reinterpret_cast"(%arg1) {{.*}} -> memref<2x20x4xi8>
// CHECK: [[ROWS:%[0-9]+]] = "memref.reinterpret_cast"([[Y]]) {{.*}} -> memref<2x80xi8>
// CHECK: scf.parallel ([[C:%[0-9]+]]) =
// CHECK: scf.for [[W:%[0-9]+]] = {{%[0-9]+}} to {{%[0-9]+}} step
// CHECK: [[P0:%[0-9]+]] = vector.load [[X]][[[C]], {{%[0-9]+}}, [[W]]] : memref<2x4x20xi8>, vector<16xi8>
// CHECK: [[P1:%[0-9]+]] = vector.load [[X]]
// CHECK: [[P2:%[0-9]+]] = vector.load [[X]]
// CHECK: [[P3:%[0-9]+]] = vector.load [[X]]
// CHECK-NEXT: [[A:%[0-9]+]] = "vector.shuffle"([[P0]], [[P2]]) {mask = array<i64: 0, 16, 1, 17, {{.*}}, 15, 31>} : (vector<16xi8>, vector<16xi8>) -> vector<32xi8>
// CHECK-NEXT: [[B:%[0-9]+]] = "vector.shuffle"([[P1]], [[P3]])
// CHECK-NEXT: [[R:%[0-9]+]] = "vector.shuffle"([[A]], [[B]]) {mask = array<i64: 0, 32, 1, 33, {{.*}}, 31, 63>} : (vector<32xi8>, vector<32xi8>) -> vector<64xi8>
// CHECK: vector.store [[R]], [[ROWS]][[[C]], {{%[0-9]+}}] : memref<2x80xi8>, vector<64xi8>
// CHECK: scf.for [[T:%[0-9]+]] =
// CHECK: memref.load [[X]][[[C]], {{%[0-9]+}}, [[T]]] : memref<2x4x20xi8>
// CHECK-NEXT: memref.store {{%[0-9]+}}, [[Y]][[[C]], [[T]], {{%[0-9]+}}] : memref<2x20x4xi8>
func.func @quads(%x: memref<1x2x4x20xi8>, %y: memref<1x2x20x4xi8>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x2x4x20xi8>) outs(%y : memref<1x2x20x4xi8>) {
  ^bb0(%a: i8, %o: i8):
    kernel.yield %a : i8
  }
  return
}

// Rows shorter than one vector stay a plain loop nest.
// CHECK-LABEL: func.func @short_rows
// CHECK-NOT: vector.load
// CHECK: scf.parallel ({{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}}) =
func.func @short_rows(%x: memref<2x4x6xi8>, %y: memref<2x6x4xi8>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x4x6xi8>) outs(%y : memref<2x6x4xi8>) {
  ^bb0(%a: i8, %o: i8):
    kernel.yield %a : i8
  }
  return
}

// Three planes (not a power of two) stay a plain loop nest too.
// CHECK-LABEL: func.func @three_planes
// CHECK-NOT: vector.load
// CHECK: scf.parallel
func.func @three_planes(%x: memref<3x64xf32>, %y: memref<64x3xf32>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x64xf32>) outs(%y : memref<64x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    kernel.yield %a : f32
  }
  return
}

// A diagonal (w read at two positions): not one run per plane, a plain loop nest.
// CHECK-LABEL: func.func @diagonal
// CHECK-NOT: vector.load
// CHECK: scf.parallel
func.func @diagonal(%x: memref<32x4x32xi8>, %y: memref<32x4xi8>) {
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<32x4x32xi8>) outs(%y : memref<32x4xi8>) {
  ^bb0(%a: i8, %o: i8):
    kernel.yield %a : i8
  }
  return
}
