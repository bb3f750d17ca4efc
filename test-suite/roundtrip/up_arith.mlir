// upstream
// The arith dialect in the upstream spelling, with overflow and fastmath flags.
func.func @ints(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %0, %b overflow<nsw> : i32
  %2 = arith.muli %1, %a : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %a : i32
  %6 = arith.remui %5, %a : i32
  %7 = arith.andi %6, %a : i32
  %8 = arith.ori %7, %b : i32
  %9 = arith.xori %8, %a : i32
  %10 = arith.shli %9, %b : i32
  %11 = arith.shrsi %10, %b : i32
  %12 = arith.shrui %11, %b : i32
  %13 = arith.maxsi %12, %a : i32
  %14 = arith.minui %13, %b : i32
  %15 = arith.ceildivsi %14, %b : i32
  %16 = arith.floordivsi %15, %b : i32
  return %16 : i32
}

func.func @floats(%x: f64, %y: f64) -> f64 {
  %0 = arith.addf %x, %y : f64
  %1 = arith.subf %0, %y fastmath<fast> : f64
  %2 = arith.mulf %1, %x : f64
  %3 = arith.divf %2, %y : f64
  %4 = arith.remf %3, %x : f64
  %5 = arith.negf %4 : f64
  %6 = arith.maximumf %5, %x : f64
  %7 = arith.minnumf %6, %y : f64
  return %7 : f64
}

func.func @compares(%a: i64, %b: i64, %x: f32, %y: f32) -> i1 {
  %0 = arith.cmpi sge, %a, %b : i64
  %1 = arith.cmpf ult, %x, %y : f32
  %2 = arith.andi %0, %1 : i1
  %t = arith.constant true
  %3 = arith.select %2, %t, %0 : i1
  return %3 : i1
}

func.func @casts(%a: i8, %f: f32, %i: index) -> f64 {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i64
  %2 = arith.trunci %0 : i32 to i16
  %3 = arith.sitofp %2 : i16 to f32
  %4 = arith.uitofp %1 : i64 to f64
  %5 = arith.fptosi %f : f32 to i32
  %6 = arith.fptoui %3 : f32 to i8
  %7 = arith.extf %f : f32 to f64
  %8 = arith.truncf %7 : f64 to f32
  %9 = arith.bitcast %8 : f32 to i32
  %10 = arith.index_cast %i : index to i64
  %11 = arith.index_castui %5 : i32 to index
  %12 = arith.addf %4, %7 : f64
  return %12 : f64
}

func.func @constants() -> (i1, i8, i64, index, f32, f64, vector<3xi32>) {
  %0 = arith.constant false
  %1 = arith.constant -128 : i8
  %2 = arith.constant 9223372036854775807 : i64
  %3 = arith.constant 42 : index
  %4 = arith.constant 1.5e-3 : f32
  %5 = arith.constant -0.0 : f64
  %6 = arith.constant dense<[1, -2, 3]> : vector<3xi32>
  return %0, %1, %2, %3, %4, %5, %6 : i1, i8, i64, index, f32, f64, vector<3xi32>
}
