// error: 3:3: unknown operation 'arith.frobnicate'
func.func @f(%a: i32) -> i32 {
  %r = "arith.frobnicate"(%a) : (i32) -> i32
  return %r : i32
}
