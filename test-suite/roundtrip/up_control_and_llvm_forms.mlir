// upstream
// scf.while with its condition, scf.index_switch, cf.switch and llvm.switch, the index
// dialect, the memref and vector reshapes, vector transfers and contract, atomics (memref.atomic_rmw,
// llvm.cmpxchg, fence, atomicrmw, atomic loads and stores), and the llvm ops in
// the custom forms upstream prints: a global with a dense value, addressof, getelementptr, insertelement,
// extractelement and shufflevector, an indirect call.
llvm.mlir.global internal constant @table(dense<[1, 2, 3, 4]> : tensor<4xi32>) {addr_space = 0 : i32} : !llvm.array<4 x i32>

func.func @count_to(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.while (%i = %c0) : (i32) -> i32 {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i : i32
  } do {
  ^bb0(%j: i32):
    %next = arith.addi %j, %c1 : i32
    scf.yield %next : i32
  }
  return %r : i32
}

llvm.func @lanes(%v: vector<4xf32>, %x: f32, %i: i64) -> vector<4xf32> {
  %w = llvm.insertelement %x, %v[%i : i64] : vector<4xf32>
  %s = llvm.shufflevector %w, %v [0, 4, 1, 5] : vector<4xf32>
  %e = llvm.extractelement %s[%i : i64] : vector<4xf32>
  %r = llvm.insertelement %e, %s[%i : i64] : vector<4xf32>
  llvm.return %r : vector<4xf32>
}

llvm.func @second(%f: !llvm.ptr) -> i32 {
  %p = llvm.mlir.addressof @table : !llvm.ptr
  %q = llvm.getelementptr %p[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x i32>
  %v = llvm.load %q : !llvm.ptr -> i32
  %r = llvm.call %f(%v) : !llvm.ptr, (i32) -> i32
  llvm.return %r : i32
}

func.func @switches(%x: i32, %i: index) -> i32 {
  %c1 = arith.constant 1 : i32
  %r = scf.index_switch %i -> i32
  case 0 {
    scf.yield %c1 : i32
  }
  case 4 {
    scf.yield %x : i32
  }
  default {
    scf.yield %c1 : i32
  }
  cf.switch %x : i32, [
    default: ^bb1(%r : i32),
    -2: ^bb1(%c1 : i32),
    7: ^bb2
  ]
^bb1(%v: i32):
  return %v : i32
^bb2:
  return %x : i32
}

llvm.func @llvm_switch(%x: i64) -> i64 {
  llvm.switch %x : i64, ^bb1 [
    3: ^bb2(%x : i64)
  ]
^bb1:
  %z = llvm.mlir.constant(0 : i64) : i64
  llvm.return %z : i64
^bb2(%y: i64):
  llvm.return %y : i64
}

func.func @index_ops(%a: index, %b: index, %x: i32) -> (index, i1, i64) {
  %c = index.constant 7
  %s = index.add %a, %c
  %f = index.floordivs %s, %b
  %m = index.maxu %f, %a
  %lt = index.cmp sle(%m, %b)
  %t = index.bool.constant false
  %o = arith.ori %lt, %t : i1
  %i = index.casts %x : i32 to index
  %w = index.castu %i : index to i64
  %z = index.sizeof
  %r = index.mul %m, %z
  return %r, %o, %w : index, i1, i64
}

func.func @reshapes(%m: memref<2x3x4xf32>, %n: index) -> (memref<6x4xf32>, memref<?x4x2xf32>, index, index) {
  %c = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %f = memref.collapse_shape %m [[0, 1, 2]] : memref<2x3x4xf32> into memref<24xf32>
  %d = memref.cast %f : memref<24xf32> to memref<?xf32>
  %e = memref.expand_shape %d [[0, 1, 2]] output_shape [%n, 4, 2] : memref<?xf32> into memref<?x4x2xf32>
  %t = memref.transpose %m (d0, d1, d2) -> (d2, d1, d0) : memref<2x3x4xf32> to memref<4x3x2xf32, strided<[1, 4, 12]>>
  %w = memref.reinterpret_cast %f to offset: [4], sizes: [2, 2], strides: [4, 1] : memref<24xf32> to memref<2x2xf32, strided<[4, 1], offset: 4>>
  %r = memref.rank %m : memref<2x3x4xf32>
  %base, %off, %sizes:3, %strides:3 = memref.extract_strided_metadata %m : memref<2x3x4xf32> -> memref<f32>, index, index, index, index, index, index, index
  return %c, %e, %r, %off : memref<6x4xf32>, memref<?x4x2xf32>, index, index
}

func.func @vector_reshapes(%v: vector<4x4xf32>, %w: vector<2x2xf32>) -> (vector<16xf32>, vector<4x4xi32>, vector<2x2xf32>, vector<4x4xf32>) {
  %f = vector.shape_cast %v : vector<4x4xf32> to vector<16xf32>
  %b = vector.bitcast %v : vector<4x4xf32> to vector<4x4xi32>
  %s = vector.extract_strided_slice %v {offsets = [1, 2], sizes = [2, 2], strides = [1, 1]} : vector<4x4xf32> to vector<2x2xf32>
  %i = vector.insert_strided_slice %w, %v {offsets = [2, 0], strides = [1, 1]} : vector<2x2xf32> into vector<4x4xf32>
  return %f, %b, %s, %i : vector<16xf32>, vector<4x4xi32>, vector<2x2xf32>, vector<4x4xf32>
}

func.func @transfers(%m: memref<4x8xf32>, %i: index, %k: vector<4xi1>) -> vector<4xf32> {
  %p = arith.constant 0.0 : f32
  %a = vector.transfer_read %m[%i, %i], %p : memref<4x8xf32>, vector<4xf32>
  %b = vector.transfer_read %m[%i, %i], %p, %k {in_bounds = [true]} : memref<4x8xf32>, vector<4xf32>
  vector.transfer_write %a, %m[%i, %i] : vector<4xf32>, memref<4x8xf32>
  vector.transfer_write %b, %m[%i, %i], %k : vector<4xf32>, memref<4x8xf32>
  %c = vector.transfer_read %m[%i, %i], %p {in_bounds = [false, true]} : memref<4x8xf32>, vector<2x4xf32>
  vector.transfer_write %c, %m[%i, %i] : vector<2x4xf32>, memref<4x8xf32>
  return %b : vector<4xf32>
}

func.func @contract(%a: vector<2x3xf32>, %b: vector<3x4xf32>, %c: vector<2x4xf32>) -> vector<2x4xf32> {
  %r = vector.contract {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<2x3xf32>, vector<3x4xf32> into vector<2x4xf32>
  return %r : vector<2x4xf32>
}

func.func @atomics(%m: memref<4xf32>, %v: f32, %i: index, %p: !llvm.ptr, %c: i32, %n: i32) -> f32 {
  %a = memref.atomic_rmw maximumf %v, %m[%i] : (f32, memref<4xf32>) -> f32
  %r = llvm.cmpxchg weak volatile %p, %c, %n syncscope("agent") acq_rel monotonic {alignment = 4 : i64} : !llvm.ptr, i32
  llvm.fence syncscope("singlethread") release
  %x = llvm.atomicrmw volatile _xor %p, %c seq_cst : !llvm.ptr, i32
  %l = llvm.load volatile %p atomic syncscope("agent") acquire {alignment = 4 : i64} : !llvm.ptr -> i32
  llvm.store %l, %p atomic release {alignment = 4 : i64} : i32, !llvm.ptr
  return %a : f32
}

func.func @math_more(%x: f32, %v: vector<4xf64>, %n: i32, %k: i64) -> (f32, vector<4xi1>, i64) {
  %e = math.erfc %x : f32
  %p = math.fpowi %x, %n : f32, i32
  %q = math.ipowi %k, %k : i64
  %s, %c = math.sincos %e : f32
  %nan = math.isnan %v : vector<4xf64>
  %inf = math.isinf %x : f32
  %fin = math.isfinite %x : f32
  %nor = math.isnormal %v : vector<4xf64>
  return %s, %nor, %q : f32, vector<4xi1>, i64
}

func.func @arith_extended(%a: i32, %b: vector<2xi16>) -> (i32, i1, i32, vector<2xi16>) {
  %s, %c = arith.addui_extended %a, %a : i32, i1
  %l, %h = arith.mului_extended %a, %a : i32
  %vl, %vh = arith.mulsi_extended %b, %b : vector<2xi16>
  return %s, %c, %h, %vh : i32, i1, i32, vector<2xi16>
}

func.func @affine_min_max(%i: index, %n: index) -> (index, index) {
  %a = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%n]
  %b = affine.max affine_map<(d0, d1) -> (d0, d1 - 2)>(%i, %n)
  return %a, %b : index, index
}
