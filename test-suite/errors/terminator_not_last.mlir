// error: 4:3: 'func.return' is a terminator and must be the last operation of its block
func @f(%a: i32) -> i32 {
  %b = addi %a, %a : i32
  return %b : i32
  %c = muli %b, %b : i32
  return %c : i32
}
