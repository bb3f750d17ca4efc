// error: 3:3: branch operand #0 has type i64, but the target block's argument has type i32
func @f(%a: i64) -> i32 {
  br ^bb1(%a : i64)
^bb1(%x: i32):
  return %x : i32
}
