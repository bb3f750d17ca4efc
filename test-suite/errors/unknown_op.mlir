// error: 3:8: unknown operation 'frobnicate'
func @f(%a: i32) -> i32 {
  %b = frobnicate %a, %a : i32
  return %b : i32
}
