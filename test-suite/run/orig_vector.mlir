// Vector constants (dense), elementwise addf/mulf/addi/cmpi/select on vectors, extract_element.
// s = a + b = [11, 22, 33, 44]; p = s * a = [11, 44, 99, 176]
// run: @lane(0) == 11.0
// run: @lane(1) == 44.0
// run: @lane(3) == 176.0
// max(a, b) with cmpi "sgt" + select: a = [1, 9, -3, 7], b = [5, 2, 8, -4] -> [5, 9, 8, 7]
// then + [100, 200, 300, 400] -> [105, 209, 308, 407]
// run: @max_lane(0) == 105
// run: @max_lane(1) == 209
// run: @max_lane(2) == 308
// run: @max_lane(3) == 407

func @lane(%i: index) -> f32 {
  %a = constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = constant dense<[10.0, 20.0, 30.0, 40.0]> : vector<4xf32>
  %s = addf %a, %b : vector<4xf32>
  %p = mulf %s, %a : vector<4xf32>
  %e = extract_element %p[%i] : vector<4xf32>
  return %e : f32
}

func @max_lane(%i: index) -> i32 {
  %a = constant dense<[1, 9, -3, 7]> : vector<4xi32>
  %b = constant dense<[5, 2, 8, -4]> : vector<4xi32>
  %gt = cmpi "sgt", %a, %b : vector<4xi32>
  %m = select %gt, %a, %b : vector<4xi32>
  %k = constant dense<[100, 200, 300, 400]> : vector<4xi32>
  %r = addi %m, %k : vector<4xi32>
  %e = extract_element %r[%i] : vector<4xi32>
  return %e : i32
}
