// error: 3:1: redefinition of type alias '!t'
!t = i32
!t = i64
func.func @f(%a: !t) -> !t {
  return %a : !t
}
