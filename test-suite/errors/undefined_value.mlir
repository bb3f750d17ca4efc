// error: 3:17: use of undefined value '%nope'
func @f(%a: i32) -> i32 {
  %b = addi %a, %nope : i32
  return %b : i32
}
