// The spec's target-specific operation: an LLVM intrinsic in generic form with two results,
// bound as `%x:2` and used as `%x#0` (the wrapped sum) and `%x#1` (the overflow flag).
// 100 + 200 = 300: no overflow.
// run: @sadd_sum(100, 200) == 300
// run: @sadd_overflows(100, 200) == false
// 30000 + 10000 = 40000 > 32767: overflow, wraps to 40000 - 65536 = -25536.
// run: @sadd_sum(30000, 10000) == -25536
// run: @sadd_overflows(30000, 10000) == true
// -32768 + -1 wraps to 32767.
// run: @sadd_sum(-32768, -1) == 32767
// run: @sadd_overflows(-32768, -1) == true
// 32767 + -32768 = -1: no overflow.
// run: @sadd_overflows(32767, -32768) == false
// -20000 + -20000 = -40000 < -32768: overflow; -20000 + 20000 = 0: none.
// run: @sadd_flag32(-20000, -20000) == 1
// run: @sadd_flag32(-20000, 20000) == 0

func @sadd_sum(%a: i16, %b: i16) -> i16 {
  %x:2 = "llvm.sadd.with.overflow.i16"(%a, %b) : (i16, i16) -> (i16, i1)
  return %x#0 : i16
}

func @sadd_overflows(%a: i16, %b: i16) -> i1 {
  %x:2 = "llvm.sadd.with.overflow.i16"(%a, %b) : (i16, i16) -> (i16, i1)
  return %x#1 : i1
}

// The flag widened to i32 with `select` (the original spelling has no zero-extension).
func @sadd_flag32(%a: i16, %b: i16) -> i32 {
  %x:2 = "llvm.sadd.with.overflow.i16"(%a, %b) : (i16, i16) -> (i16, i1)
  %one = constant 1 : i32
  %zero = constant 0 : i32
  %r = select %x#1, %one, %zero : i32
  return %r : i32
}
