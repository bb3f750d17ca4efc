// error: 2:13: integer width 0 is out of range
func @f(%a: i0) -> i32 {
  %z = constant 0 : i32
  return %z : i32
}
