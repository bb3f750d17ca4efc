// error: 4:3: branch passes 1 value(s), but the target block takes 2
func @f(%a: i32) -> i32 {
  %zero = constant 0 : i32
  br ^bb1(%a : i32)
^bb1(%x: i32, %y: i32):
  %s = addi %x, %y : i32
  return %s : i32
}
