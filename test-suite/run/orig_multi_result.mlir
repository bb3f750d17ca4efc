// Functions with two i64 results (the spec's @count among them). They return an LLVM struct
// {i64, i64}, which matches C's `struct { int64_t a, b; }` (rax:rdx on x86-64, x0:x1 on aarch64);
// note that (i32, i32) would NOT match a C struct of two int32_t. @combine uses `%x:2` / `%x#i`.
// stdout: divmod(17, 5) = 3 2
// stdout: divmod(-17, 5) = -3 -2
// stdout: swap(1, 2) = 2 1
// stdout: count(42) = 42 42
// stdout: combine(17, 5) = 302
// stdout: combine(100, 7) = 1402

func @divmod(%a: i64, %b: i64) -> (i64, i64) {
  %q = divis %a, %b : i64
  %r = remis %a, %b : i64
  return %q, %r : i64, i64
}

func @swap(%a: i64, %b: i64) -> (i64, i64) {
  return %b, %a : i64, i64
}

// A function that returns its argument twice:
func @count(%x: i64) -> (i64, i64)
  attributes {fruit: "banana"} {
  return %x, %x: i64, i64
}

// q * 100 + r
func @combine(%a: i64, %b: i64) -> i64 {
  %x:2 = call @divmod(%a, %b) : (i64, i64) -> (i64, i64)
  %hundred = constant 100 : i64
  %t = muli %x#0, %hundred : i64
  %s = addi %t, %x#1 : i64
  return %s : i64
}
