// error: 7:3: the entry block of a region cannot be a branch target
func @f(i32) -> i32 {
^bb0(%a: i32):
  %b = addi %a, %a : i32
  br ^bb1
^bb1:
  br ^bb0(%b : i32)
}
