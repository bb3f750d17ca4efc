// RUN: --mcpu=x86-64-v3 --passes=kernel-to-loops
// kernel.conv_planes with 16-bit weights (kernel-pack-weights widens constant ones where the CPU
// has no byte dot products) on a library whose code runs on AVX2: a branch on the CPU's level
// (cpu-dispatch folds it per copy). With AVX2, tiles of 4 output channels by 8 positions: per
// tap and channel quad, the 16 bytes of each group of 4 positions widened to 16 bits, each row's
// 4 weights one 8-byte load repeated across the vector, 8 vpmaddwd into 8 accumulators; at the
// end each row's two accumulators (positions by halves of the quad) summed in pairs by two
// shuffles. M = 6 is a 4-row tile then one-row tiles; Q = 100 is 12 blocks of 8 and 4 positions
// stored under a mask. Without AVX2, the widened 32-bit products.

// CHECK-LABEL: func.func @conv
// CHECK: [[LEVEL:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK: arith.cmpi sge, [[LEVEL]]
// CHECK: scf.if
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// CHECK: vector.load {{.*}} : memref<2176xi8>, vector<16xi8>
// CHECK-NEXT: arith.extui {{.*}} : vector<16xi8> to vector<16xi16>
// CHECK: vector.load {{.*}} : memref<96xi16>, vector<4xi16>
// CHECK-NEXT: "vector.shuffle"{{.*}}mask = array<i64: 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3>
// CHECK-NEXT: "llvm.intr.x86.avx2.pmadd.wd"{{.*}} : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: scf.for
// CHECK: "llvm.intr.x86.avx2.pmadd.wd"
// CHECK: mask = array<i64: 0, 2, 4, 6, 8, 10, 12, 14>
// CHECK-NEXT: mask = array<i64: 1, 3, 5, 7, 9, 11, 13, 15>
// CHECK: vector.store {{.*}} : memref<600xi32>, vector<8xi32>
// CHECK: scf.parallel
// CHECK: "vector.create_mask"{{.*}} -> vector<8xi1>
// CHECK: "vector.maskedstore"
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: } else {
// CHECK-NOT: pmadd
// CHECK: arith.extsi {{.*}} : i16 to i32
// CHECK-NOT: kernel.conv_planes
func.func @conv(%x: memref<1x4x136x4xi8>, %w: memref<6x2x8xi16>, %y: memref<1x6x100xi32>) {
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0, 9>, tap_quads = array<i64: 0, 2>, input_unsigned} : (memref<1x4x136x4xi8>, memref<6x2x8xi16>, memref<1x6x100xi32>) -> ()
  return
}
