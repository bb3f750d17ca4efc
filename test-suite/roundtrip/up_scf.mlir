// upstream
// scf: for with iter_args (index and i32 induction variables), nested loops, if with and
// without results and else regions.
func.func @loops(%n: index, %m: i32) -> (i64, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero, %b = %zero) -> (i64, i64) {
    %v = arith.index_cast %i : index to i64
    %s = arith.addi %a, %v : i64
    scf.yield %s, %a : i64, i64
  }
  %lb = arith.constant 0 : i32
  %st = arith.constant 2 : i32
  %q = scf.for %j = %lb to %m step %st iter_args(%acc = %lb) -> (i32) : i32 {
    %t = arith.addi %acc, %j : i32
    scf.yield %t : i32
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %i to %n step %c1 {
    }
  }
  return %r#0, %q : i64, i32
}

func.func @conditionals(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    %y = arith.addf %x, %x : f32
    scf.yield %y : f32
  } else {
    scf.yield %x : f32
  }
  scf.if %c {
    %z = arith.mulf %r, %r : f32
  }
  %p:2 = scf.if %c -> (f32, i1) {
    scf.yield %x, %c : f32, i1
  } else {
    scf.yield %r, %c : f32, i1
  }
  return %p#0 : f32
}
