// error: 3:13: undefined type alias '!nope'
!int = type i32
func @f(%a: !nope) -> !int {
  %z = constant 0 : !int
  return %z : !int
}
