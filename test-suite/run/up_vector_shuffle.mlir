// vector.shuffle picks lanes of two vectors by a constant mask: lanes 0-7 from the first,
// 8-15 from the second.
// differential
// a = [1..8], b = [10, 20, ..., 80]; mask [0, 9, 2, 11, 15, 6] -> [1, 20, 3, 40, 80, 7]
// run: @pick(0) == 1.0
// run: @pick(1) == 20.0
// run: @pick(3) == 40.0
// run: @pick(4) == 80.0
// run: @pick(5) == 7.0
// The even lanes of a and b, as a stride-2 gather does: 1 + 3 + 5 + 7 + 20 + 40 + 60 + 80 = 216
// run: @evens() == 216.0

func.func @pick(%i: index) -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]> : vector<8xf32>
  %s = vector.shuffle %a, %b [0, 9, 2, 11, 15, 6] : vector<8xf32>, vector<8xf32>
  %e = vector.extract %s[%i] : f32 from vector<6xf32>
  return %e : f32
}

func.func @evens() -> f32 {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : vector<8xf32>
  %b = arith.constant dense<[10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0]> : vector<8xf32>
  %s = vector.shuffle %a, %b [0, 2, 4, 6, 9, 11, 13, 15] : vector<8xf32>, vector<8xf32>
  %r = vector.reduction <add>, %s : vector<8xf32> into f32
  return %r : f32
}
