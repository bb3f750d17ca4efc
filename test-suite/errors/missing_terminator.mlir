// error: 4:3: block does not end with a terminator
func @f(%a: i32) -> i32 {
  %b = addi %a, %a : i32
  %c = muli %b, %b : i32
}
