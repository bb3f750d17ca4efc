// The overflow intrinsics in today's spelling: "llvm.intr.sadd.with.overflow" returns an
// !llvm.struct<(i16, i1)> taken apart with llvm.extractvalue; the flag widened with arith.extui.
// differential
// run: @sadd_sum(100, 200) == 300
// run: @sadd_flag(100, 200) == 0
// 30000 + 10000 = 40000 -> -25536, overflow
// run: @sadd_sum(30000, 10000) == -25536
// run: @sadd_flag(30000, 10000) == 1
// run: @sadd_flag(-32768, -1) == 1
// umul on i32: 65536 * 65536 = 2^32 -> 0 with overflow; 65535 * 65537 = 2^32 - 1, no overflow
// run: @umul_flag(65536, 65536) == 1
// run: @umul_flag(65535, 65537) == 0

func.func @sadd_sum(%a: i16, %b: i16) -> i16 {
  %r = "llvm.intr.sadd.with.overflow"(%a, %b) : (i16, i16) -> !llvm.struct<(i16, i1)>
  %s = llvm.extractvalue %r[0] : !llvm.struct<(i16, i1)>
  return %s : i16
}

func.func @sadd_flag(%a: i16, %b: i16) -> i32 {
  %r = "llvm.intr.sadd.with.overflow"(%a, %b) : (i16, i16) -> !llvm.struct<(i16, i1)>
  %o = llvm.extractvalue %r[1] : !llvm.struct<(i16, i1)>
  %w = arith.extui %o : i1 to i32
  return %w : i32
}

func.func @umul_flag(%a: i32, %b: i32) -> i32 {
  %r = "llvm.intr.umul.with.overflow"(%a, %b) : (i32, i32) -> !llvm.struct<(i32, i1)>
  %o = llvm.extractvalue %r[1] : !llvm.struct<(i32, i1)>
  %w = arith.extui %o : i1 to i32
  return %w : i32
}
