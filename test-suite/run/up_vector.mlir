// Vectors in the upstream spelling: dense constants (list and splat), elementwise arith on
// vector<4xf32> and vector<8xi32>, vector.broadcast, vector.fma, results reduced with
// vector.reduction (see up_vector_memory.mlir for vectors read back through memory).
// differential
// a = [1, 2, 3, 4], b = [10, 20, 30, 40]: sum(a + b) = 110; sum(a * b) = 10+40+90+160 = 300
// run: @dot() == 300.0
// run: @sum_add() == 110.0
// broadcast x then fma(a, bx, a) = a * x + a, summed = 10 (x + 1): x = 2.5 -> 35
// run: @fma_bcast(2.5) == 35.0
// i32: [1..8] * 3 - 1 = [2, 5, ..., 23], sum = 3 * 36 - 8 = 100; max lane = 23
// run: @int_sum() == 100
// run: @int_max() == 23
// vector compare + select, lanes reduced to a bit mask: a = [1, 5, -3, 7], b = [2, 5, 4, -8];
// slt -> [1, 0, 1, 0] -> 1 + 4 = 5
// run: @vec_mask() == 5

func.func @dot() -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : vector<4xf32>
  %p = arith.mulf %a, %b : vector<4xf32>
  %r = vector.reduction <add>, %p : vector<4xf32> into f32
  return %r : f32
}

func.func @sum_add() -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : vector<4xf32>
  %s = arith.addf %a, %b : vector<4xf32>
  %r = vector.reduction <add>, %s : vector<4xf32> into f32
  return %r : f32
}

func.func @fma_bcast(%x: f32) -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %bx = vector.broadcast %x : f32 to vector<4xf32>
  %f = vector.fma %a, %bx, %a : vector<4xf32>
  %r = vector.reduction <add>, %f : vector<4xf32> into f32
  return %r : f32
}

func.func @int_sum() -> i32 {
  %v = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : vector<8xi32>
  %three = arith.constant dense<3> : vector<8xi32>
  %one = arith.constant dense<1> : vector<8xi32>
  %m = arith.muli %v, %three : vector<8xi32>
  %s = arith.subi %m, %one : vector<8xi32>
  %r = vector.reduction <add>, %s : vector<8xi32> into i32
  return %r : i32
}

func.func @int_max() -> i32 {
  %v = arith.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : vector<8xi32>
  %three = arith.constant dense<3> : vector<8xi32>
  %one = arith.constant dense<1> : vector<8xi32>
  %m = arith.muli %v, %three : vector<8xi32>
  %s = arith.subi %m, %one : vector<8xi32>
  %r = vector.reduction <maxsi>, %s : vector<8xi32> into i32
  return %r : i32
}

func.func @vec_mask() -> i32 {
  %a = arith.constant dense<[1, 5, -3, 7]> : vector<4xi32>
  %b = arith.constant dense<[2, 5, 4, -8]> : vector<4xi32>
  %c = arith.cmpi slt, %a, %b : vector<4xi32>
  %ones = arith.constant dense<[1, 2, 4, 8]> : vector<4xi32>
  %zeros = arith.constant dense<0> : vector<4xi32>
  %bits = arith.select %c, %ones, %zeros : vector<4xi1>, vector<4xi32>
  %r = vector.reduction <add>, %bits : vector<4xi32> into i32
  return %r : i32
}
