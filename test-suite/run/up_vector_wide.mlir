// Operations on vectors wider than 64 lanes, which xcc splits into loops over pieces of 16
// (split-wide-vectors): rows that are not a multiple of 16 end in a shorter piece, i1 results go
// through byte buffers, a loop carries a wide value, and other operations use wide values whole.
// differential
//
// div_lane: a[k] = 7k - 300 for k < 200; d = a / 3 (truncated), doubled where a < 0.
// k 0: -300 / 3 * 2 = -200; k 5: -265 / 3 = -88, * 2 = -176; k 43: 1 / 3 = 0;
// k 195 (in the last, shorter piece): 1065 / 3 = 355; k 199: 1093 / 3 = 364.
// run: @div_lane(0) == -200
// run: @div_lane(5) == -176
// run: @div_lane(43) == 0
// run: @div_lane(195) == 355
// run: @div_lane(199) == 364
// sqrt_sum: the square roots of k^2 for k < 100, summed whole: 0 + 1 + ... + 99 = 4950.
// run: @sqrt_sum() == 4950.0
// read_2d: m[i][j] = 100 i + j in a memref<5x30xf32>; a vector<4x40xf32> read at [2, 10]
// (padding -1 past row 4 and past column 29), written to a memref<4x40xf32> and read back.
// run: @read_2d(0, 0) == 210.0
// run: @read_2d(2, 19) == 429.0
// run: @read_2d(2, 20) == -1.0
// run: @read_2d(3, 0) == -1.0
// run: @read_2d(1, 35) == -1.0
// write_2d: 7.0 everywhere written as a vector<4x40xf32> at [3, 5] of the same memref (cut at
// row 5 and column 30): [3][5] and [4][29] are 7, [4][4] and [2][10] keep 404 and 210.
// run: @write_2d(3, 5) == 7.0
// run: @write_2d(4, 29) == 7.0
// run: @write_2d(4, 4) == 404.0
// run: @write_2d(2, 10) == 210.0
// masked: src[k] = k for k < 100; the first 37 lanes read (masked transfer; -1 elsewhere),
// then stored where the lane is below 37 or at least 90 (masked store) over dst[k] = 1000 + k.
// Lane 36: 36; lane 37: -1 read, not stored, 1037; lane 95: -1 read and stored.
// run: @masked(36) == 36.0
// run: @masked(37) == 1037.0
// run: @masked(95) == -1.0
// loop_acc: 1.5 added four times to every lane of a vector<80xf32> an scf.for carries: 6.
// run: @loop_acc(79) == 6.0

func.func @div_lane(%i: index) -> i64 {
  %a = memref.alloca() : memref<200xi64>
  %out = memref.alloca() : memref<200xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c200 = arith.constant 200 : index
  %seven = arith.constant 7 : i64
  %base = arith.constant 300 : i64
  scf.for %k = %c0 to %c200 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %t = arith.muli %ki, %seven : i64
    %v = arith.subi %t, %base : i64
    memref.store %v, %a[%k] : memref<200xi64>
  }
  %v = vector.load %a[%c0] : memref<200xi64>, vector<200xi64>
  %three = arith.constant dense<3> : vector<200xi64>
  %two = arith.constant dense<2> : vector<200xi64>
  %zero = arith.constant dense<0> : vector<200xi64>
  %d = arith.divsi %v, %three : vector<200xi64>
  %e = arith.muli %d, %two : vector<200xi64>
  %neg = arith.cmpi slt, %v, %zero : vector<200xi64>
  %s = arith.select %neg, %e, %d : vector<200xi1>, vector<200xi64>
  vector.store %s, %out[%c0] : memref<200xi64>, vector<200xi64>
  %r = memref.load %out[%i] : memref<200xi64>
  return %r : i64
}

func.func @sqrt_sum() -> f64 {
  %a = memref.alloca() : memref<100xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  scf.for %k = %c0 to %c100 step %c1 {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %sq = arith.mulf %kf, %kf : f64
    memref.store %sq, %a[%k] : memref<100xf64>
  }
  %v = vector.load %a[%c0] : memref<100xf64>, vector<100xf64>
  %r = math.sqrt %v : vector<100xf64>
  %sum = vector.reduction <add>, %r : vector<100xf64> into f64
  return %sum : f64
}

func.func @filled() -> memref<5x30xf32> {
  %m = memref.alloc() : memref<5x30xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c30 = arith.constant 30 : index
  %hundred = arith.constant 100 : index
  scf.for %i = %c0 to %c5 step %c1 {
    scf.for %j = %c0 to %c30 step %c1 {
      %t = arith.muli %i, %hundred : index
      %v = arith.addi %t, %j : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %m[%i, %j] : memref<5x30xf32>
    }
  }
  return %m : memref<5x30xf32>
}

func.func @read_2d(%r: index, %c: index) -> f32 {
  %m = call @filled() : () -> memref<5x30xf32>
  %out = memref.alloca() : memref<4x40xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%c2, %c10], %pad : memref<5x30xf32>, vector<4x40xf32>
  vector.transfer_write %v, %out[%c0, %c0] {in_bounds = [true, true]} : vector<4x40xf32>, memref<4x40xf32>
  %x = memref.load %out[%r, %c] : memref<4x40xf32>
  memref.dealloc %m : memref<5x30xf32>
  return %x : f32
}

func.func @write_2d(%r: index, %c: index) -> f32 {
  %m = call @filled() : () -> memref<5x30xf32>
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %seven = arith.constant 7.0 : f32
  %v = vector.broadcast %seven : f32 to vector<4x40xf32>
  vector.transfer_write %v, %m[%c3, %c5] : vector<4x40xf32>, memref<5x30xf32>
  %x = memref.load %m[%r, %c] : memref<5x30xf32>
  memref.dealloc %m : memref<5x30xf32>
  return %x : f32
}

func.func @masked(%i: index) -> f32 {
  %src = memref.alloca() : memref<100xf32>
  %dst = memref.alloca() : memref<100xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c37 = arith.constant 37 : index
  %c100 = arith.constant 100 : index
  %thousand = arith.constant 1000 : index
  scf.for %k = %c0 to %c100 step %c1 {
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    memref.store %kf, %src[%k] : memref<100xf32>
    %d = arith.addi %k, %thousand : index
    %di = arith.index_cast %d : index to i32
    %df = arith.sitofp %di : i32 to f32
    memref.store %df, %dst[%k] : memref<100xf32>
  }
  %pad = arith.constant -1.0 : f32
  %first = vector.create_mask %c37 : vector<100xi1>
  %v = vector.transfer_read %src[%c0], %pad, %first : memref<100xf32>, vector<100xf32>
  %c90 = arith.constant 90 : index
  %below90 = vector.create_mask %c90 : vector<100xi1>
  %all = arith.constant dense<true> : vector<100xi1>
  %from90 = arith.xori %below90, %all : vector<100xi1>
  %store = arith.ori %first, %from90 : vector<100xi1>
  vector.maskedstore %dst[%c0], %store, %v : memref<100xf32>, vector<100xi1>, vector<100xf32>
  %x = memref.load %dst[%i] : memref<100xf32>
  return %x : f32
}

func.func @loop_acc(%i: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %step = arith.constant 1.5 : f32
  %w = vector.broadcast %step : f32 to vector<80xf32>
  %z = arith.constant dense<0.0> : vector<80xf32>
  %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %z) -> (vector<80xf32>) {
    %n = arith.addf %acc, %w : vector<80xf32>
    scf.yield %n : vector<80xf32>
  }
  %x = vector.extract %r[%i] : f32 from vector<80xf32>
  return %x : f32
}
