// RUN: --mcpu=x86-64-v3 --passes=kernel-to-loops
// An integer matmul whose B kernel-pack-weights has laid out in quads and widened to i16 (a CPU
// without byte dot products), in a library whose code runs on AVX2: a branch on the CPU's level
// (cpu-dispatch folds it per copy). With AVX2, tiles of 2 rows by a panel of 16 columns: per
// quad of k, B's panel is four loads of 16 i16 (4 columns by the quad's 4 k), each row's 4
// bytes of A widen to 16 bits and repeat across the vector, 8 vpmaddwd into 8 accumulators. K = 6
// is a loop over its one whole quad, then a quad of 2 whose bytes of A load under a mask (B's
// are zeros past K). At the end, per row, each two accumulators sum in pairs (even and odd
// lanes) into 8 columns, and the two halves join into the 16 the store takes. M = 5 is 2 tiles
// of 2 rows and a row; N = 20 a full panel and a panel stored under a mask of 4 columns.
// Without AVX2, the widened 32-bit products.

// CHECK-LABEL: func.func @qmm
// CHECK: [[LEVEL:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK: arith.cmpi sge, [[LEVEL]]
// CHECK: scf.if
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} -> (vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>, vector<8xi32>)
// CHECK: vector.load {{.*}} : memref<256xi16>, vector<16xi16>
// CHECK: vector.load {{.*}} : memref<256xi16>, vector<16xi16>
// CHECK: vector.load {{.*}} : memref<256xi16>, vector<16xi16>
// CHECK: vector.load {{.*}} : memref<256xi16>, vector<16xi16>
// CHECK: vector.load {{.*}} : memref<30xi8>, vector<4xi8>
// CHECK-NEXT: arith.extui {{.*}} : vector<4xi8> to vector<4xi16>
// CHECK-NEXT: "vector.shuffle"{{.*}}mask = array<i64: 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3>
// CHECK-NEXT: "llvm.intr.x86.avx2.pmadd.wd"{{.*}} : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// CHECK: scf.yield
// CHECK: "vector.create_mask"{{.*}} -> vector<4xi1>
// CHECK: "vector.maskedload"{{.*}} -> vector<4xi8>
// CHECK: "llvm.intr.x86.avx2.pmadd.wd"
// CHECK: mask = array<i64: 0, 2, 4, 6, 8, 10, 12, 14>
// CHECK-NEXT: mask = array<i64: 1, 3, 5, 7, 9, 11, 13, 15>
// CHECK: mask = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>{{.*}} -> vector<16xi32>
// CHECK: vector.store {{.*}} : memref<100xi32>, vector<16xi32>
// CHECK: scf.parallel
// CHECK: "vector.maskedstore"
// CHECK: } else {
// CHECK-NOT: pmadd
// CHECK: arith.extsi {{.*}} : vector<16xi16> to vector<16xi32>
// CHECK-NOT: kernel.matmul
func.func @qmm(%a: memref<5x6xi8>, %b: memref<2x2x16x4xi16>, %c: memref<5x20xi32>) {
  kernel.matmul ins(%a, %b : memref<5x6xi8>, memref<2x2x16x4xi16>) outs(%c : memref<5x20xi32>) {a_unsigned, b_quads = 16}
  return
}
