// error: 3:8: unterminated string literal
func @f(%a: i32) -> i32 {
  %b = "foo.bar(%a) : (i32) -> i32
  return %a : i32
}
