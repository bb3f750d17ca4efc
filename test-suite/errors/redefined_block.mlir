// error: 6:1: redefinition of block '^bb1'
func @f(%a: i32) -> i32 {
  br ^bb1
^bb1:
  return %a : i32
^bb1:
  return %a : i32
}
