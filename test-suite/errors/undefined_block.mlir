// error: 3:6: reference to an undefined block '^nowhere'
func @f(%a: i32) -> i32 {
  br ^nowhere(%a : i32)
^exit(%x: i32):
  return %x : i32
}
