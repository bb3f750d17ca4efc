// Vectors read back through memory (no reductions): vector.store / vector.load on memrefs,
// elementwise arith, vector.broadcast, vector.fma, compare + select on vectors.
// differential
// vector.store then memref.load lane 2 of (a + a) = 6
// run: @store_lane() == 6.0
// buf = [0, 0.5, 1, 1.5, 2, 2.5]; vector.load at 1 = [0.5, 1, 1.5, 2]; * 4 -> [2, 4, 6, 8], stored
// at 2: buf = [0, 0.5, 2, 4, 6, 8]; buf[1] + buf[5] = 8.5
// run: @load_scale_store() == 8.5
// fma(a, broadcast(x), a) lane 3 = 4 x + 4: x = 2.5 -> 14
// run: @fma_lane3(2.5) == 14.0
// max by compare + select: a = [1, 9, -3, 7], b = [5, 2, 8, -4] -> [5, 9, 8, 7]; lane i
// run: @max_lane(0) == 5
// run: @max_lane(2) == 8
// run: @max_lane(3) == 7

func.func @store_lane() -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %s = arith.addf %a, %a : vector<4xf32>
  %buf = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  vector.store %s, %buf[%c0] : memref<4xf32>, vector<4xf32>
  %r = memref.load %buf[%c2] : memref<4xf32>
  return %r : f32
}

func.func @load_scale_store() -> f32 {
  %buf = memref.alloca() : memref<6xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %half = arith.constant 0.5 : f32
  scf.for %i = %c0 to %c6 step %c1 {
    %iv = arith.index_cast %i : index to i32
    %f = arith.sitofp %iv : i32 to f32
    %v = arith.mulf %f, %half : f32
    memref.store %v, %buf[%i] : memref<6xf32>
  }
  %vec = vector.load %buf[%c1] : memref<6xf32>, vector<4xf32>
  %four = arith.constant dense<4.0> : vector<4xf32>
  %scaled = arith.mulf %vec, %four : vector<4xf32>
  vector.store %scaled, %buf[%c2] : memref<6xf32>, vector<4xf32>
  %a = memref.load %buf[%c1] : memref<6xf32>
  %b = memref.load %buf[%c5] : memref<6xf32>
  %r = arith.addf %a, %b : f32
  return %r : f32
}

func.func @fma_lane3(%x: f32) -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %bx = vector.broadcast %x : f32 to vector<4xf32>
  %f = vector.fma %a, %bx, %a : vector<4xf32>
  %buf = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  vector.store %f, %buf[%c0] : memref<4xf32>, vector<4xf32>
  %r = memref.load %buf[%c3] : memref<4xf32>
  return %r : f32
}

func.func @max_lane(%i: index) -> i32 {
  %a = arith.constant dense<[1, 9, -3, 7]> : vector<4xi32>
  %b = arith.constant dense<[5, 2, 8, -4]> : vector<4xi32>
  %gt = arith.cmpi sgt, %a, %b : vector<4xi32>
  %m = arith.select %gt, %a, %b : vector<4xi1>, vector<4xi32>
  %buf = memref.alloca() : memref<4xi32>
  %c0 = arith.constant 0 : index
  vector.store %m, %buf[%c0] : memref<4xi32>, vector<4xi32>
  %r = memref.load %buf[%i] : memref<4xi32>
  return %r : i32
}
