// error: 7:8: 2 operand(s) but 1 type(s)
func.func @g(%a: i32) -> i32 {
  return %a : i32
}

func.func @f(%a: i32) -> i32 {
  %r = func.call @g(%a, %a) : (i32) -> i32
  return %r : i32
}
