// Masked vector loads and stores in the upstream spelling: vector.create_mask sets the lanes
// below its count (clamped to [0, lanes]); vector.maskedload reads those lanes and takes the
// pass-through elsewhere; vector.maskedstore writes only those lanes.
// differential
// src[i] = i + 1 for i in 0..16; dst starts at 100 + i. copy(at, n) copies the first n lanes of an
// 8-lane vector from src[at] to dst[at] and returns the loaded vector's sum, -1 per lane off.
// at 3, n 5: dst[3..8) = 4..8, loaded [4, 5, 6, 7, 8, -1, -1, -1], sum 30 - 3 = 27
// stdout: n=5 sum=27 dst: 100 101 102 4 5 6 7 8 108 109 110 111 112 113 114 115
// n 0 and n -2: no lane (the sum is 8 x -1), dst unchanged
// stdout: n=0 sum=-8 dst: 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115
// stdout: n=-2 sum=-8 dst: 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115
// n 100 is every lane: at 8, dst[8..16) = 9..16, sum 9 + ... + 16 = 100
// stdout: n=100 sum=100 dst: 100 101 102 103 104 105 106 107 9 10 11 12 13 14 15 16
// A 2-d memref: row 1, from column 2, 3 lanes of a 4-lane vector: 7 + 8 + 9 - 1 = 23
// stdout: 2d sum=23

func.func @copy(%src: memref<?xf32>, %dst: memref<?xf32>, %at: index, %n: index) -> f32 {
  %mask = vector.create_mask %n : vector<8xi1>
  %pass = arith.constant dense<-1.0> : vector<8xf32>
  %v = vector.maskedload %src[%at], %mask, %pass : memref<?xf32>, vector<8xi1>, vector<8xf32> into vector<8xf32>
  vector.maskedstore %dst[%at], %mask, %v : memref<?xf32>, vector<8xi1>, vector<8xf32>
  %s = vector.reduction <add>, %v : vector<8xf32> into f32
  return %s : f32
}

func.func @row_sum(%m: memref<3x4xf32>, %row: index, %col: index, %n: index) -> f32 {
  %mask = vector.create_mask %n : vector<4xi1>
  %pass = arith.constant dense<-1.0> : vector<4xf32>
  %v = vector.maskedload %m[%row, %col], %mask, %pass : memref<3x4xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  %s = vector.reduction <add>, %v : vector<4xf32> into f32
  return %s : f32
}
