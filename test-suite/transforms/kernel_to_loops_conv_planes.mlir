// RUN: --mcpu=znver4 --mattr=+avx512vnni --passes=kernel-to-loops
// kernel.conv_planes on a CPU with AVX-512 VNNI: tiles of 4 output channels by 4 groups of 16
// positions (16 vector<16xi32> accumulators), one parallel loop over (image, block of 64
// positions, row tile), here 1 x 1 x 2. Each of the 2 taps is its own loop over its channel
// quads (2), carrying the 16 sums: 4 loads of 64 input bytes at the tap's offset, a weight word
// per row, 16 vpdpbusd (the input unsigned, the weights signed). The 100 positions past the
// block (36: groups of 16, 16 and 4) are a second loop, its last group stored under a mask.

// CHECK-LABEL: func.func @conv
// CHECK: scf.parallel
// CHECK: scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// CHECK: vector.load {{.*}} vector<64xi8>
// CHECK: llvm.intr.x86.avx512.vpdpbusd.512
// CHECK: scf.for
// CHECK: llvm.intr.x86.avx512.vpdpbusd.512
// CHECK: vector.store
// CHECK: scf.parallel
// CHECK: vector.create_mask
// CHECK: vector.maskedstore
// CHECK-NOT: kernel.conv_planes
func.func @conv(%x: memref<1x4x136x4xi8>, %w: memref<8x2x8xi8>, %y: memref<1x8x100xi32>) {
  "kernel.conv_planes"(%x, %w, %y) {tap_offsets = array<i64: 0, 9>, tap_quads = array<i64: 0, 2>, input_unsigned} : (memref<1x4x136x4xi8>, memref<8x2x8xi8>, memref<1x8x100xi32>) -> ()
  return
}
