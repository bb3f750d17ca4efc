// error: 3:13: unknown cmpi predicate 'less'
func @f(%a: i32, %b: i32) -> i1 {
  %c = cmpi "less", %a, %b : i32
  return %c : i1
}
