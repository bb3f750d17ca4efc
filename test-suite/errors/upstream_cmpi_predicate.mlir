// error: 3:19: unknown cmpi predicate 'lt'
func.func @f(%a: i32, %b: i32) -> i1 {
  %c = arith.cmpi lt, %a, %b : i32
  return %c : i1
}
