// error: 4:10: '%x' has only 2 result(s); #3 is out of range
func @f(%a: i16, %b: i16) -> i16 {
  %x:2 = "llvm.sadd.with.overflow.i16"(%a, %b) : (i16, i16) -> (i16, i1)
  return %x#3 : i16
}
