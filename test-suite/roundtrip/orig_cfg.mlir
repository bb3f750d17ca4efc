// Functions, blocks and branches in the original spelling: the spec's @count (attributes),
// @simple (unnamed arguments named by the entry block), @select, external declarations, calls
// and function values.
#layout_map0 = (d0, d1) -> (d0, d1)

// External function definitions.
func @abort()
func @scribble(i32, i64, memref<? x 128 x f32, #layout_map0>) -> f64

// A function that returns its argument twice:
func @count(%x: i64) -> (i64, i64)
  attributes {fruit: "banana"} {
  return %x, %x: i64, i64
}

func @simple(i64, i1) -> i64 {
^bb0(%a: i64, %cond: i1):
  cond_br %cond, ^bb1, ^bb2
^bb1:
  br ^bb3(%a: i64)
^bb2:
  %b = addi %a, %a : i64
  br ^bb3(%b: i64)
^bb3(%c: i64):
  br ^bb4(%c, %c : i64, i64)
^bb4(%d : i64, %e : i64):
  %0 = addi %d, %e : i64
  return %0 : i64
}

func @select(%a : i32, %b :i32, %flag : i1) -> i32 {
    cond_br %flag, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x : i32) :
    return %x : i32
}

func @caller(%x: i64) -> i64 {
  %p:2 = call @count(%x) : (i64) -> (i64, i64)
  %f = constant @simple : (i64, i1) -> i64
  %t = constant 1 : i1
  %r = call_indirect %f(%p#1, %t) : (i64, i1) -> i64
  "br"()[^done(%r : i64)] : () -> ()
^done(%v: i64):
  "return"(%v) : (i64) -> ()
}
