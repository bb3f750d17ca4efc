// vector.transfer_read and transfer_write of 2-D vectors along a memref's last two dims, row by
// row: a read whose rows run past the last dim's end (padding), one whose second row is past
// the first dim's end (all padding), a write cut at both ends, and a masked read in bounds. The
// memref<3x5xf32> holds m[i][j] = 10 i + j.
// differential
// run: @read_tails() == 106.0
// run: @read_past_rows() == 82.0
// run: @write_cut() == 14.0
// run: @read_masked() == 9.0

func.func @filled() -> memref<3x5xf32> {
  %m = memref.alloc() : memref<3x5xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %ten = arith.constant 10 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      %t = arith.muli %i, %ten : index
      %v = arith.addi %t, %j : index
      %vi = arith.index_cast %v : index to i32
      %vf = arith.sitofp %vi : i32 to f32
      memref.store %vf, %m[%i, %j] : memref<3x5xf32>
    }
  }
  return %m : memref<3x5xf32>
}

// Rows 1 and 2 from column 2: [12, 13, 14, pad] and [22, 23, 24, pad]: 106.
func.func @read_tails() -> f32 {
  %m = call @filled() : () -> memref<3x5xf32>
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%c1, %c2], %pad : memref<3x5xf32>, vector<2x4xf32>
  %s = vector.shape_cast %v : vector<2x4xf32> to vector<8xf32>
  %r = vector.reduction <add>, %s : vector<8xf32> into f32
  memref.dealloc %m : memref<3x5xf32>
  return %r : f32
}

// Rows 2 and 3 (past the end) from column 0: [20, 21, 22, 23] and four paddings: 82.
func.func @read_past_rows() -> f32 {
  %m = call @filled() : () -> memref<3x5xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %pad = arith.constant -1.0 : f32
  %v = vector.transfer_read %m[%c2, %c0], %pad : memref<3x5xf32>, vector<2x4xf32>
  %s = vector.shape_cast %v : vector<2x4xf32> to vector<8xf32>
  %r = vector.reduction <add>, %s : vector<8xf32> into f32
  memref.dealloc %m : memref<3x5xf32>
  return %r : f32
}

// Sevens written at [2, 3] as a 2x3 block into zeros: only m[2][3] and m[2][4] land: 14.
func.func @write_cut() -> f32 {
  %m = memref.alloc() : memref<3x5xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c5 step %c1 {
      memref.store %zero, %m[%i, %j] : memref<3x5xf32>
    }
  }
  %sevens = arith.constant dense<7.0> : vector<2x3xf32>
  vector.transfer_write %sevens, %m[%c2, %c3] : vector<2x3xf32>, memref<3x5xf32>
  %acc = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %zero) -> (f32) {
    %row = scf.for %j = %c0 to %c5 step %c1 iter_args(%b = %a) -> (f32) {
      %x = memref.load %m[%i, %j] : memref<3x5xf32>
      %s = arith.addf %b, %x : f32
      scf.yield %s : f32
    }
    scf.yield %row : f32
  }
  memref.dealloc %m : memref<3x5xf32>
  return %acc : f32
}

// The diagonal of the top-left 2x2 block, the other lanes masked off: 0 + 11 - 1 - 1 = 9.
func.func @read_masked() -> f32 {
  %m = call @filled() : () -> memref<3x5xf32>
  %c0 = arith.constant 0 : index
  %pad = arith.constant -1.0 : f32
  %k = arith.constant dense<[[true, false], [false, true]]> : vector<2x2xi1>
  %v = vector.transfer_read %m[%c0, %c0], %pad, %k {in_bounds = [true, true]} : memref<3x5xf32>, vector<2x2xf32>
  %s = vector.shape_cast %v : vector<2x2xf32> to vector<4xf32>
  %r = vector.reduction <add>, %s : vector<4xf32> into f32
  memref.dealloc %m : memref<3x5xf32>
  return %r : f32
}
