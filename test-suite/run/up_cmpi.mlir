// Every arith.cmpi predicate on i64 and i8, upstream spelling (bare predicate keywords).
// differential
// i64: -1 vs 1
// run: @eq(-1, 1) == false
// run: @eq(3, 3) == true
// run: @ne(-1, 1) == true
// run: @slt(-1, 1) == true
// run: @sle(1, 1) == true
// run: @sgt(-1, 1) == false
// run: @sge(-1, -1) == true
// run: @ult(-1, 1) == false
// run: @ule(1, -1) == true
// run: @ugt(-1, 1) == true
// run: @uge(1, -1) == false
// i8: 200 is -56 signed
// run: @slt8(-56, 100) == true
// run: @ult8(-56, 100) == false
// run: @ult8(200, 100) == false

func.func @eq(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi eq, %a, %b : i64
  return %r : i1
}

func.func @ne(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi ne, %a, %b : i64
  return %r : i1
}

func.func @slt(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi slt, %a, %b : i64
  return %r : i1
}

func.func @sle(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi sle, %a, %b : i64
  return %r : i1
}

func.func @sgt(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi sgt, %a, %b : i64
  return %r : i1
}

func.func @sge(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi sge, %a, %b : i64
  return %r : i1
}

func.func @ult(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi ult, %a, %b : i64
  return %r : i1
}

func.func @ule(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi ule, %a, %b : i64
  return %r : i1
}

func.func @ugt(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi ugt, %a, %b : i64
  return %r : i1
}

func.func @uge(%a: i64, %b: i64) -> i1 {
  %r = arith.cmpi uge, %a, %b : i64
  return %r : i1
}

func.func @slt8(%a: i8, %b: i8) -> i1 {
  %r = arith.cmpi slt, %a, %b : i8
  return %r : i1
}

func.func @ult8(%a: i8, %b: i8) -> i1 {
  %r = arith.cmpi ult, %a, %b : i8
  return %r : i1
}
