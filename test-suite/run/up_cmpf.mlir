// arith.cmpf predicates, ordered vs unordered, with NaN.
// differential
// run: @oeq(1.0, 1.0) == true
// run: @oeq(nan, nan) == false
// run: @ueq(nan, 1.0) == true
// run: @one(1.0, 2.0) == true
// run: @one(nan, 2.0) == false
// run: @une(nan, 2.0) == true
// run: @une(2.0, 2.0) == false
// run: @olt(-1.5, 1.5) == true
// run: @olt(nan, 1.5) == false
// run: @ult(nan, 1.5) == true
// run: @ole(2.0, 2.0) == true
// run: @ogt(3.0, 2.0) == true
// run: @oge(-0.0, 0.0) == true
// run: @ord(1.0, 2.0) == true
// run: @ord(nan, 2.0) == false
// run: @uno(nan, 2.0) == true
// run: @uno(1.0, 2.0) == false
// f32 with infinities
// run: @olt32(-inf, 1.0) == true
// run: @ogt32(inf, 3.4e38) == true

func.func @oeq(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf oeq, %a, %b : f64
  return %r : i1
}

func.func @ueq(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf ueq, %a, %b : f64
  return %r : i1
}

func.func @one(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf one, %a, %b : f64
  return %r : i1
}

func.func @une(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf une, %a, %b : f64
  return %r : i1
}

func.func @olt(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf olt, %a, %b : f64
  return %r : i1
}

func.func @ult(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf ult, %a, %b : f64
  return %r : i1
}

func.func @ole(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf ole, %a, %b : f64
  return %r : i1
}

func.func @ogt(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf ogt, %a, %b : f64
  return %r : i1
}

func.func @oge(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf oge, %a, %b : f64
  return %r : i1
}

func.func @ord(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf ord, %a, %b : f64
  return %r : i1
}

func.func @uno(%a: f64, %b: f64) -> i1 {
  %r = arith.cmpf uno, %a, %b : f64
  return %r : i1
}

func.func @olt32(%a: f32, %b: f32) -> i1 {
  %r = arith.cmpf olt, %a, %b : f32
  return %r : i1
}

func.func @ogt32(%a: f32, %b: f32) -> i1 {
  %r = arith.cmpf ogt, %a, %b : f32
  return %r : i1
}
