// error: 3:3: operation 'arith.addi' produces 1 result(s), but 2 name(s) are bound
func @f(%a: i32) -> i32 {
  %x, %y = addi %a, %a : i32
  return %x : i32
}
