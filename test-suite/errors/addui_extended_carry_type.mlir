// error: 4:3: 'arith.addui_extended': the carry must be i1, not i32
// The carry is an i1 (of the operands' shape).
func.func @f(%a: i32) -> i32 {
  %s, %c = arith.addui_extended %a, %a : i32, i32
  return %s : i32
}
