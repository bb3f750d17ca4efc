// error: 8:10: use of undefined value '%x'
// Functions are isolated from above: %x of @g is not visible in @f.
func.func @g(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  return %x : i32
}
func.func @f() -> i32 {
  return %x : i32
}
