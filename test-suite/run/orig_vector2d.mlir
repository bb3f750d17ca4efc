// The spec's two-index extract_element on a 2-d vector.
// v = [[1, 2, 3], [4, 5, 6]]; w = v + v * 10 = [[11, 22, 33], [44, 55, 66]]
// run: @at(0, 0) == 11
// run: @at(0, 2) == 33
// run: @at(1, 0) == 44
// run: @at(1, 2) == 66

func @at(%i: index, %j: index) -> i32 {
  %v = constant dense<[[1, 2, 3], [4, 5, 6]]> : vector<2x3xi32>
  %ten = constant dense<10> : vector<2x3xi32>
  %t = muli %v, %ten : vector<2x3xi32>
  %w = addi %v, %t : vector<2x3xi32>
  %e = extract_element %w[%i, %j] : vector<2x3xi32>
  return %e : i32
}
