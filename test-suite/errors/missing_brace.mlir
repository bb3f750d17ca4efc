// error: 6:1: expected '}'
func @f(%a: i32) -> i32 {
  %b = addi %a, %a : i32
  return %b : i32

