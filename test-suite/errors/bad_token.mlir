// error: 3:26: unexpected character '~'
func @f(%a: i32) -> i32 {
  %b = addi %a, %a : i32 ~
  return %b : i32
}
