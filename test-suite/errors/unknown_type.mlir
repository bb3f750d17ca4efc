// error: 2:13: unknown type 'int32'
func @f(%a: int32) -> i32 {
  %z = constant 0 : i32
  return %z : i32
}
