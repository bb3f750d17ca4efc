// error: 10:3: does not dominate this use
// %t is defined in ^then, which does not dominate ^join.
func @f(%a: i32, %c: i1) -> i32 {
  cond_br %c, ^then, ^join
^then:
  %t = addi %a, %a : i32
  br ^join
^join:
  %one = constant 1 : i32
  %r = addi %t, %one : i32
  return %r : i32
}
