// error: 4:3: redefinition of value '%b'
func @f(%a: i32) -> i32 {
  %b = addi %a, %a : i32
  %b = muli %a, %a : i32
  return %b : i32
}
