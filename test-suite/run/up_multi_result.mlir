// Multiple results in the upstream spelling. (i64, i64) comes back as LLVM {i64, i64}, which is
// C's struct { int64_t a, b; }; (f64, f64) as {double, double}, C's struct { double x, y; }
// (xmm0:xmm1 on x86-64, d0:d1 on aarch64). Results are also bound as %r:2 inside MLIR.
// differential
// stdout: divmod(17, 5) = 3 2
// stdout: divmod(-17, 5) = -3 -2
// stdout: minmax(9, -4) = -4 9
// stdout: polar(3, 4) = 5 12
// stdout: sum_divmod(100, 7) = 16

func.func @divmod(%a: i64, %b: i64) -> (i64, i64) {
  %q = arith.divsi %a, %b : i64
  %r = arith.remsi %a, %b : i64
  return %q, %r : i64, i64
}

func.func @minmax(%a: i64, %b: i64) -> (i64, i64) {
  %lt = arith.cmpi slt, %a, %b : i64
  %min = arith.select %lt, %a, %b : i64
  %max = arith.select %lt, %b, %a : i64
  return %min, %max : i64, i64
}

// (hypotenuse, a * b) of a right triangle
func.func @polar(%a: f64, %b: f64) -> (f64, f64) {
  %a2 = arith.mulf %a, %a : f64
  %b2 = arith.mulf %b, %b : f64
  %s = arith.addf %a2, %b2 : f64
  %h = math.sqrt %s : f64
  %p = arith.mulf %a, %b : f64
  return %h, %p : f64, f64
}

// 100 / 7 = 14 rem 2 -> 16
func.func @sum_divmod(%a: i64, %b: i64) -> i64 {
  %r:2 = func.call @divmod(%a, %b) : (i64, i64) -> (i64, i64)
  %s = arith.addi %r#0, %r#1 : i64
  return %s : i64
}
