// gcd via cf with arith.remsi; also a binary (Stein) gcd with shifts and unsigned ops.
// differential
// run: @gcd(48, 18) == 6
// run: @gcd(270, 192) == 6
// run: @gcd(17, 0) == 17
// run: @gcd(1071, 462) == 21
// Stein: gcd(48, 18) = 6; gcd(1024, 96) = 32; gcd(0, 5) = 5
// run: @stein(48, 18) == 6
// run: @stein(1024, 96) == 32
// run: @stein(0, 5) == 5

func.func @gcd(%a: i64, %b: i64) -> i64 {
  %zero = arith.constant 0 : i64
  cf.br ^head(%a, %b : i64, i64)
^head(%x: i64, %y: i64):
  %z = arith.cmpi eq, %y, %zero : i64
  cf.cond_br %z, ^done, ^step
^step:
  %r = arith.remsi %x, %y : i64
  cf.br ^head(%y, %r : i64, i64)
^done:
  return %x : i64
}

// Binary gcd on u32 values: k = ctz(a | b); a >>= ctz(a); loop { b >>= ctz(b); if a > b swap; b -= a } until b == 0.
// Written with a shift loop instead of ctz.
func.func @stein(%a: i32, %b: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %az = arith.cmpi eq, %a, %zero : i32
  cf.cond_br %az, ^ret(%b : i32), ^check_b
^check_b:
  %bz = arith.cmpi eq, %b, %zero : i32
  cf.cond_br %bz, ^ret(%a : i32), ^shift_common(%a, %b, %zero : i32, i32, i32)
^shift_common(%x: i32, %y: i32, %k: i32):
  %or = arith.ori %x, %y : i32
  %low = arith.andi %or, %one : i32
  %even = arith.cmpi eq, %low, %zero : i32
  %x1 = arith.shrui %x, %one : i32
  %y1 = arith.shrui %y, %one : i32
  %k1 = arith.addi %k, %one : i32
  cf.cond_br %even, ^shift_common(%x1, %y1, %k1 : i32, i32, i32), ^strip_a(%x, %y, %k : i32, i32, i32)
^strip_a(%p: i32, %q: i32, %kk: i32):
  %pl = arith.andi %p, %one : i32
  %pe = arith.cmpi eq, %pl, %zero : i32
  %p1 = arith.shrui %p, %one : i32
  cf.cond_br %pe, ^strip_a(%p1, %q, %kk : i32, i32, i32), ^loop(%p, %q : i32, i32)
^loop(%u: i32, %v: i32):
  %vl = arith.andi %v, %one : i32
  %ve = arith.cmpi eq, %vl, %zero : i32
  %v1 = arith.shrui %v, %one : i32
  cf.cond_br %ve, ^loop(%u, %v1 : i32, i32), ^order(%u, %v : i32, i32)
^order(%s: i32, %t: i32):
  %gt = arith.cmpi ugt, %s, %t : i32
  %lo = arith.select %gt, %t, %s : i32
  %hi = arith.select %gt, %s, %t : i32
  %d = arith.subi %hi, %lo : i32
  %dz = arith.cmpi eq, %d, %zero : i32
  cf.cond_br %dz, ^finish(%lo : i32), ^loop(%lo, %d : i32, i32)
^finish(%g: i32):
  %res = arith.shli %g, %kk : i32
  cf.br ^ret(%res : i32)
^ret(%out: i32):
  return %out : i32
}
