// error: 4:17: use of value '%b' expects type i32, but it has type i64
// addi's operands must both have the written type.
func @f(%a: i32, %b: i64) -> i32 {
  %c = addi %a, %b : i32
  return %c : i32
}
