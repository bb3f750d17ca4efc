// error: 3:11: use of value '%a' expects type i1, but it has type i32
func @f(%a: i32) -> i32 {
  cond_br %a, ^bb1, ^bb1
^bb1:
  return %a : i32
}
