// error: 3:17: integer 300 does not fit in i8
func @f() -> i8 {
  %c = constant 300 : i8
  return %c : i8
}
