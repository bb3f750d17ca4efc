// RUN: --passes=kernel-fuse-planes-epilogue
// kernel-fuse-planes-epilogue: the elementwise generic reading a kernel.conv_planes' sums (here a
// requantization: a scale for all, a bias per output channel, rounding, the int8 clamp) becomes
// the convolution's epilogue_map, a private function of the sum and of the generic's other
// inputs, which follow the output among the convolution's operands. The convolution then
// stores bytes. Where the generic read the sums reshaped to rows of 5 columns and dropped the
// last (a convolution over planes computes columns past the output's), the bytes are reshaped
// the same way and a generic copies the columns kept; where it kept every column, the reshape
// writes the output itself. An input read per position (not one element, nor one per channel)
// keeps the generic.

// CHECK-LABEL: func.func @requantize
// CHECK: [[B:%[0-9]+]] = memref.alloc() {alignment = 64} : memref<1x4x15xi8>
// CHECK-NEXT: "kernel.conv_planes"(%arg0, %arg1, [[B]], %arg2, %arg3) {epilogue_map = @xcc_planes_epilogue1, {{.*}} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi8>, memref<f32>, memref<4x1x1xf32>) -> ()
// CHECK-NEXT: [[R:%[0-9]+]] = memref.alloc() {alignment = 64} : memref<1x4x3x5xi8>
// CHECK-NEXT: kernel.copy ins([[B]] : memref<1x4x15xi8>) outs([[R]] : memref<1x4x3x5xi8>)
// CHECK-NEXT: kernel.generic {{.*}} ins([[R]] : memref<1x4x3x5xi8>) outs(%arg4 : memref<1x4x3x4xi8>)
// CHECK-NEXT: ^bb{{[0-9]+}}([[E:%[0-9]+]]: i8, {{%[0-9]+}}: i8):
// CHECK-NEXT: kernel.yield [[E]] : i8
// CHECK-NOT: i32
// CHECK: func.return

// CHECK-LABEL: func.func @whole_rows
// CHECK: [[B:%[0-9]+]] = memref.alloc() {alignment = 64} : memref<1x4x15xi8>
// CHECK-NEXT: "kernel.conv_planes"(%arg0, %arg1, [[B]], %arg2, %arg3) {epilogue_map = @xcc_planes_epilogue2
// CHECK-NEXT: kernel.copy ins([[B]] : memref<1x4x15xi8>) outs(%arg4 : memref<1x4x3x5xi8>)
// CHECK-NEXT: func.return

// CHECK-LABEL: func.func @per_position
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic

// CHECK-LABEL: func.func @constant_scale
// CHECK-NOT: memref.alloc
// CHECK: "kernel.conv_planes"(%arg0, %arg1, %arg2) {epilogue_map = @xcc_planes_epilogue3
// CHECK-NOT: kernel.generic
// CHECK: func.return

// CHECK-LABEL: func.func @long_straight_line
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic

// CHECK-LABEL: func.func private @xcc_planes_epilogue1(%arg0: i32, %arg1: f32, %arg2: f32) -> (i8)
// CHECK-NEXT: arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: arith.mulf {{.*}}, %arg1 : f32
// CHECK-NEXT: arith.addf {{.*}}, %arg2 : f32
// CHECK-NEXT: math.roundeven
// CHECK: arith.fptosi {{.*}} : f32 to i8
// CHECK-NEXT: func.return {{.*}} : i8
func.func @requantize(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %scale: memref<f32>, %bias: memref<4x1x1xf32>, %y: memref<1x4x3x4xi8>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  %r = memref.alloc() : memref<1x4x3x5xi32>
  kernel.copy ins(%s : memref<1x4x15xi32>) outs(%r : memref<1x4x3x5xi32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %scale, %bias : memref<1x4x3x5xi32>, memref<f32>, memref<4x1x1xf32>) outs(%y : memref<1x4x3x4xi8>) {
  ^bb0(%v: i32, %k: f32, %b: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %a = arith.addf %m, %b : f32
    %q = math.roundeven %a : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c = arith.maximumf %q, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptosi %d : f32 to i8
    kernel.yield %i : i8
  }
  return
}

func.func @whole_rows(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %scale: memref<f32>, %bias: memref<4x1x1xf32>, %y: memref<1x4x3x5xi8>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  %r = memref.alloc() : memref<1x4x3x5xi32>
  kernel.copy ins(%s : memref<1x4x15xi32>) outs(%r : memref<1x4x3x5xi32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %scale, %bias : memref<1x4x3x5xi32>, memref<f32>, memref<4x1x1xf32>) outs(%y : memref<1x4x3x5xi8>) {
  ^bb0(%v: i32, %k: f32, %b: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %a = arith.addf %m, %b : f32
    %q = math.roundeven %a : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c = arith.maximumf %q, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptosi %d : f32 to i8
    kernel.yield %i : i8
  }
  return
}

func.func @per_position(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %scale: memref<f32>, %bias: memref<1x4x3x4xf32>, %y: memref<1x4x3x4xi8>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  %r = memref.alloc() : memref<1x4x3x5xi32>
  kernel.copy ins(%s : memref<1x4x15xi32>) outs(%r : memref<1x4x3x5xi32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %scale, %bias : memref<1x4x3x5xi32>, memref<f32>, memref<1x4x3x4xf32>) outs(%y : memref<1x4x3x4xi8>) {
  ^bb0(%v: i32, %k: f32, %b: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %a = arith.addf %m, %b : f32
    %q = math.roundeven %a : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c = arith.maximumf %q, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptosi %d : f32 to i8
    kernel.yield %i : i8
  }
  return
}

// A scale and a zero point that are constants of one element become constants of the map
// (0.5 and -3), no longer operands loaded for every tile.
memref.global "private" constant @half : memref<f32> = dense<"0x0000003F"> : tensor<4xi8>
memref.global "private" constant @zero : memref<i8> = dense<"0xFD"> : tensor<1xi8>
func.func @constant_scale(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %y: memref<1x4x15xi8>) {
  %scale = memref.get_global @half : memref<f32>
  %zp = memref.get_global @zero : memref<i8>
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale, %zp : memref<1x4x15xi32>, memref<f32>, memref<i8>) outs(%y : memref<1x4x15xi8>) {
  ^bb0(%v: i32, %k: f32, %z: i8, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %q = math.roundeven %m : f32
    %zf = arith.sitofp %z : i8 to f32
    %a = arith.addf %q, %zf : f32
    %i = arith.fptosi %a : f32 to i8
    kernel.yield %i : i8
  }
  return
}

// CHECK-LABEL: func.func private @xcc_planes_epilogue3(%arg0: i32) -> (i8)
// CHECK-NEXT: arith.constant 0.5 : f32
// CHECK-NEXT: arith.constant -3 : i8

// Ten taps of one channel quad each: the tile is one straight line of products (its loops over
// quads run once), which an epilogue at its end would make spill; the generic stays.
func.func @long_straight_line(%x: memref<1x1x32x4xi8>, %w: memref<4x10x4xi8>, %scale: memref<f32>, %y: memref<1x4x15xf32>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9>, tap_quads = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>} : (memref<1x1x32x4xi8>, memref<4x10x4xi8>, memref<1x4x15xi32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale : memref<1x4x15xi32>, memref<f32>) outs(%y : memref<1x4x15xf32>) {
  ^bb0(%v: i32, %k: f32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    kernel.yield %m : f32
  }
  return
}

// A requantization to uint8 followed by the next operator's dequantization (a QDQ model's
// convolution feeding a float one): the clamped whole number is dequantized directly, the round
// trip through the byte (fptoui, then uitofp) no longer read. A round trip whose source may not be
// whole (no rounding) stays.
func.func @dequantized(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %scale: memref<f32>, %y: memref<1x4x15xf32>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale : memref<1x4x15xi32>, memref<f32>) outs(%y : memref<1x4x15xf32>) {
  ^bb0(%v: i32, %k: f32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %q = math.roundeven %m : f32
    %zp = arith.constant 3.0 : f32
    %a = arith.addf %q, %zp : f32
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %c = arith.maximumf %a, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptoui %d : f32 to i8
    %back = arith.uitofp %i : i8 to f32
    %z = arith.subf %back, %zp : f32
    %r = arith.mulf %z, %k : f32
    kernel.yield %r : f32
  }
  return
}

func.func @not_whole(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %scale: memref<f32>, %y: memref<1x4x15xf32>) {
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale : memref<1x4x15xi32>, memref<f32>) outs(%y : memref<1x4x15xf32>) {
  ^bb0(%v: i32, %k: f32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %c = arith.maximumf %m, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptoui %d : f32 to i8
    %back = arith.uitofp %i : i8 to f32
    kernel.yield %back : f32
  }
  return
}

// CHECK-LABEL: func.func private @xcc_planes_epilogue4(%arg0: i32, %arg1: f32) -> (f32)
// CHECK: [[CLAMPED:%[0-9]+]] = arith.minimumf {{%[0-9]+}}, {{%[0-9]+}} : f32
// CHECK-NEXT: arith.fptoui [[CLAMPED]] : f32 to i8
// CHECK-NEXT: arith.uitofp
// CHECK-NEXT: [[Z:%[0-9]+]] = arith.subf [[CLAMPED]], {{%[0-9]+}} : f32
// CHECK-NEXT: [[R:%[0-9]+]] = arith.mulf [[Z]], %arg1 : f32
// CHECK-NEXT: func.return [[R]] : f32

// CHECK-LABEL: func.func private @xcc_planes_epilogue5(%arg0: i32, %arg1: f32) -> (f32)
// CHECK: [[BYTE:%[0-9]+]] = arith.fptoui {{%[0-9]+}} : f32 to i8
// CHECK-NEXT: [[BACK:%[0-9]+]] = arith.uitofp [[BYTE]] : i8 to f32
// CHECK-NEXT: func.return [[BACK]] : f32

// With the scale a constant, the value clamped is bounded (an int32 sum times 0.5, rounded):
// never NaN, so each clamp is a compare and a select (one vmaxps / vminps on x86) instead of
// maximumf / minimumf, which must return a NaN operand. The select reads the select before it.
func.func @bounded_clamp(%x: memref<1x1x16x4xi8>, %w: memref<4x1x4xi8>, %y: memref<1x4x15xi8>) {
  %scale = memref.get_global @half : memref<f32>
  %s = memref.alloc() : memref<1x4x15xi32>
  "kernel.conv_planes"(%x, %w, %s) {tap_offsets = array<i64: 0>, tap_quads = array<i64: 0>} : (memref<1x1x16x4xi8>, memref<4x1x4xi8>, memref<1x4x15xi32>) -> ()
  kernel.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %scale : memref<1x4x15xi32>, memref<f32>) outs(%y : memref<1x4x15xi8>) {
  ^bb0(%v: i32, %k: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %m = arith.mulf %f, %k : f32
    %q = math.roundeven %m : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c = arith.maximumf %q, %lo : f32
    %d = arith.minimumf %c, %hi : f32
    %i = arith.fptosi %d : f32 to i8
    kernel.yield %i : i8
  }
  return
}

// CHECK-LABEL: func.func private @xcc_planes_epilogue6(%arg0: i32) -> (i8)
// CHECK: [[Q:%[0-9]+]] = math.roundeven
// CHECK: [[GT:%[0-9]+]] = arith.cmpf ogt, [[Q]], [[LO:%[0-9]+]] : f32
// CHECK-NEXT: [[UP:%[0-9]+]] = arith.select [[GT]], [[Q]], [[LO]] : f32
// CHECK: [[LT:%[0-9]+]] = arith.cmpf olt, [[UP]], [[HI:%[0-9]+]] : f32
// CHECK-NEXT: [[DOWN:%[0-9]+]] = arith.select [[LT]], [[UP]], [[HI]] : f32
// CHECK: arith.fptosi [[DOWN]] : f32 to i8
