// Every cmpi predicate in the original spelling ("slt" and friends as strings), on i32.
// -1 is 0xFFFFFFFF: unsigned, it is the largest value.
// run: @eq(-1, 1) == false
// run: @eq(5, 5) == true
// run: @ne(-1, 1) == true
// run: @ne(5, 5) == false
// run: @slt(-1, 1) == true
// run: @slt(1, -1) == false
// run: @slt(5, 5) == false
// run: @sle(5, 5) == true
// run: @sle(6, 5) == false
// run: @sgt(-1, 1) == false
// run: @sgt(1, -1) == true
// run: @sge(5, 5) == true
// run: @sge(-6, 5) == false
// run: @ult(-1, 1) == false
// run: @ult(1, -1) == true
// run: @ule(5, 5) == true
// run: @ule(-1, 0) == false
// run: @ugt(-1, 1) == true
// run: @ugt(1, 1) == false
// run: @uge(0, -1) == false
// run: @uge(-1, -1) == true
// The generic form with the integer predicate (2 = slt, 8 = ugt).
// run: @generic_slt(-3, 2) == true
// run: @generic_ugt(-3, 2) == true
// run: @generic_ugt(2, 3) == false

func @eq(%a: i32, %b: i32) -> i1 {
  %r = cmpi "eq", %a, %b : i32
  return %r : i1
}

func @ne(%a: i32, %b: i32) -> i1 {
  %r = cmpi "ne", %a, %b : i32
  return %r : i1
}

func @slt(%a: i32, %b: i32) -> i1 {
  %r = cmpi "slt", %a, %b : i32
  return %r : i1
}

func @sle(%a: i32, %b: i32) -> i1 {
  %r = cmpi "sle", %a, %b : i32
  return %r : i1
}

func @sgt(%a: i32, %b: i32) -> i1 {
  %r = cmpi "sgt", %a, %b : i32
  return %r : i1
}

func @sge(%a: i32, %b: i32) -> i1 {
  %r = cmpi "sge", %a, %b : i32
  return %r : i1
}

func @ult(%a: i32, %b: i32) -> i1 {
  %r = cmpi "ult", %a, %b : i32
  return %r : i1
}

func @ule(%a: i32, %b: i32) -> i1 {
  %r = cmpi "ule", %a, %b : i32
  return %r : i1
}

func @ugt(%a: i32, %b: i32) -> i1 {
  %r = cmpi "ugt", %a, %b : i32
  return %r : i1
}

func @uge(%a: i32, %b: i32) -> i1 {
  %r = cmpi "uge", %a, %b : i32
  return %r : i1
}

func @generic_slt(%a: i32, %b: i32) -> i1 {
  %r = "cmpi"(%a, %b){predicate: 2} : (i32, i32) -> i1
  return %r : i1
}

func @generic_ugt(%a: i32, %b: i32) -> i1 {
  %r = "cmpi"(%a, %b){predicate: 8} : (i32, i32) -> i1
  return %r : i1
}
