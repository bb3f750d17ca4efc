// error: 8:1: redefinition of symbol named 'f'
// Two definitions of one symbol: upstream rejects the module; a call could name either.
func.func @f(%a: i32) -> i32 {
  return %a : i32
}

// The second @f.
func.func @f(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  return %b : i32
}
