// error: 8:3: does not match '@g' of type (i32, i32) -> i32
func @g(%a: i32, %b: i32) -> i32 {
  %s = addi %a, %b : i32
  return %s : i32
}

func @f(%a: i32) -> i32 {
  %b = call @g(%a) : (i32) -> i32
  return %b : i32
}
