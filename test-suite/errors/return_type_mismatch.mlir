// error: 4:3: returns (i64) but the function '@f' returns (i32)
func @f(%a: i64) -> i32 {
  %b = addi %a, %a : i64
  return %b : i64
}
