// vector.transfer_read / transfer_write along a memref's last dim: lanes past the dim's end read
// the padding and are not written, lanes off in a mask likewise, and in_bounds reads plainly.
// The buffers hold 1, 2, 3, ... (1-D) or 10 i + j (2-D).
// differential
// run: @read_sum(0) == 10.0
// run: @read_sum(6) == 13.0
// run: @read_sum(8) == -4.0
// run: @read_row_end() == 47.0
// run: @read_masked() == 2.0
// run: @read_in_bounds() == 18.0
// run: @write_cut() == 3.0
// run: @write_masked() == 5.0

func.func @ones_to_eight(%m: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    %one = arith.constant 1.0 : f32
    %v = arith.addf %f, %one : f32
    memref.store %v, %m[%i] : memref<8xf32>
  }
  return
}

func.func @zeros(%m: memref<8xf32>) {
  %z = arith.constant dense<0.0> : vector<8xf32>
  %c0 = arith.constant 0 : index
  vector.store %z, %m[%c0] : memref<8xf32>, vector<8xf32>
  return
}

func.func @lane_sum(%v: vector<4xf32>) -> f32 {
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  return %r : f32
}

// Four lanes from j, -1 past the end.
func.func @read_sum(%j: index) -> f32 {
  %m = memref.alloca() : memref<8xf32>
  call @ones_to_eight(%m) : (memref<8xf32>) -> ()
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%j], %pad : memref<8xf32>, vector<4xf32>
  %r = call @lane_sum(%v) : (vector<4xf32>) -> f32
  return %r : f32
}

// Row 2 of a 3x5 buffer from column 3: 23 + 24, then two lanes of padding 0.
func.func @read_row_end() -> f32 {
  %m = memref.alloca() : memref<3x5xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %ten = arith.constant 10 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %t = arith.muli %i, %ten : index
      %s = arith.addi %t, %j : index
      %k = arith.index_cast %s : index to i32
      %f = arith.sitofp %k : i32 to f32
      memref.store %f, %m[%i, %j] : memref<3x5xf32>
    }
  }
  %c2 = arith.constant 2 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c2, %c3], %pad : memref<3x5xf32>, vector<4xf32>
  %r = call @lane_sum(%v) : (vector<4xf32>) -> f32
  return %r : f32
}

// Lanes 0 and 2 of [1, 2, 3, 4]; the others read -1: 1 - 1 + 3 - 1.
func.func @read_masked() -> f32 {
  %m = memref.alloca() : memref<8xf32>
  call @ones_to_eight(%m) : (memref<8xf32>) -> ()
  %mask = arith.constant dense<[true, false, true, false]> : vector<4xi1>
  %pad = arith.constant -1.0 : f32
  %c0 = arith.constant 0 : index
  %v = vector.transfer_read %m[%c0], %pad, %mask : memref<8xf32>, vector<4xf32>
  %r = call @lane_sum(%v) : (vector<4xf32>) -> f32
  return %r : f32
}

func.func @read_in_bounds() -> f32 {
  %m = memref.alloca() : memref<8xf32>
  call @ones_to_eight(%m) : (memref<8xf32>) -> ()
  %pad = arith.constant -1.0 : f32
  %c2 = arith.constant 2 : index
  %v = vector.transfer_read %m[%c2], %pad {in_bounds = [true]} : memref<8xf32>, vector<4xf32>
  %r = call @lane_sum(%v) : (vector<4xf32>) -> f32
  return %r : f32
}

// [1, 2, 3, 4] written at 4 of a 6-element view of an 8-element buffer of zeros: only 1 and 2
// land (at 4 and 5); the buffer's last two stay 0, so it sums to 3.
func.func @write_cut() -> f32 {
  %m = memref.alloca() : memref<8xf32>
  call @zeros(%m) : (memref<8xf32>) -> ()
  %view = memref.subview %m[0] [6] [1] : memref<8xf32> to memref<6xf32, strided<[1]>>
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %c4 = arith.constant 4 : index
  vector.transfer_write %v, %view[%c4] : vector<4xf32>, memref<6xf32, strided<[1]>>
  %c0 = arith.constant 0 : index
  %all = vector.load %m[%c0] : memref<8xf32>, vector<8xf32>
  %r = vector.reduction <add>, %all : vector<8xf32> into f32
  return %r : f32
}

// Lanes 1 and 2 of [1, 2, 3, 4] written into zeros: 2 + 3.
func.func @write_masked() -> f32 {
  %m = memref.alloca() : memref<8xf32>
  call @zeros(%m) : (memref<8xf32>) -> ()
  %v = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %mask = arith.constant dense<[false, true, true, false]> : vector<4xi1>
  %c0 = arith.constant 0 : index
  vector.transfer_write %v, %m[%c0], %mask {in_bounds = [true]} : vector<4xf32>, memref<8xf32>
  %all = vector.load %m[%c0] : memref<8xf32>, vector<8xf32>
  %r = vector.reduction <add>, %all : vector<8xf32> into f32
  return %r : f32
}
