// RUN: --mcpu=x86-64-v3 --passes=kernel-to-loops
// kernel.conv_planes with an epilogue_map (what kernel-fuse-planes-epilogue makes of a
// requantization): a tile loads the one scale, and each row its channel's bias, broadcast to
// the sums' 8 lanes, and computes the map on the vectors (the sums to floats, scaled, biased,
// rounded, clamped, to bytes; the rows' operations interleaved) before storing 8 bytes each;
// the last 4 positions under a mask.
// The map's function is gone afterwards. The fallback for CPUs without AVX2 maps 16 lanes.

// CHECK-LABEL: func.func @conv
// CHECK: scf.if
// CHECK: scf.parallel
// CHECK: "llvm.intr.x86.avx2.pmadd.wd"
// CHECK: [[SCALE:%[0-9]+]] = memref.load {{.*}} : memref<1xf32>
// CHECK-NEXT: [[S:%[0-9]+]] = vector.broadcast [[SCALE]] : f32 to vector<8xf32>
// CHECK: [[BIAS:%[0-9]+]] = memref.load {{.*}} : memref<6xf32>
// CHECK-NEXT: vector.broadcast [[BIAS]] : f32 to vector<8xf32>
// CHECK-NOT: memref.load {{.*}} : memref<1xf32>
// CHECK: arith.sitofp {{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.mulf {{.*}}, [[S]] : vector<8xf32>
// CHECK: arith.addf
// CHECK: math.roundeven {{.*}} : vector<8xf32>
// CHECK: arith.fptosi {{.*}} : vector<8xf32> to vector<8xi8>
// CHECK: vector.store {{.*}} : memref<600xi8>, vector<8xi8>
// CHECK: scf.parallel
// CHECK: "vector.maskedstore"{{.*}} (memref<600xi8>, index, vector<8xi1>, vector<8xi8>) -> ()
// CHECK: } else {
// CHECK: arith.fptosi {{.*}} : vector<16xf32> to vector<16xi8>
// CHECK-NOT: kernel.conv_planes
// CHECK-NOT: xcc_planes_epilogue
func.func @conv(%x: memref<1x4x136x4xi8>, %w: memref<6x2x8xi16>, %y: memref<1x6x100xi8>, %scale: memref<f32>, %bias: memref<6x1x1xf32>) {
  "kernel.conv_planes"(%x, %w, %y, %scale, %bias) {epilogue_map = @xcc_planes_epilogue1, tap_offsets = array<i64: 0, 9>, tap_quads = array<i64: 0, 2>, input_unsigned} : (memref<1x4x136x4xi8>, memref<6x2x8xi16>, memref<1x6x100xi8>, memref<f32>, memref<6x1x1xf32>) -> ()
  return
}

func.func private @xcc_planes_epilogue1(%sum: i32, %k: f32, %b: f32) -> i8 {
  %f = arith.sitofp %sum : i32 to f32
  %m = arith.mulf %f, %k : f32
  %a = arith.addf %m, %b : f32
  %q = math.roundeven %a : f32
  %lo = arith.constant -128.0 : f32
  %hi = arith.constant 127.0 : f32
  %c = arith.maximumf %q, %lo : f32
  %d = arith.minimumf %c, %hi : f32
  %i = arith.fptosi %d : f32 to i8
  return %i : i8
}
