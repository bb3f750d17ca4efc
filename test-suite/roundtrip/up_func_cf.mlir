// upstream
// func and cf: visibility, declarations, argument and result attributes, function attributes,
// calls, function values, branches with block arguments and both edges to one block.
func.func private @ext(i32) -> i32
func.func private @ext_noargs()

func.func @attrs(%a: memref<?xf32> {llvm.noalias}, %n: i32 {llvm.signext}) -> (i32 {llvm.zeroext}) attributes {llvm.emit_c_interface, fruit = "banana"} {
  %r = func.call @ext(%n) : (i32) -> i32
  func.call @ext_noargs() : () -> ()
  return %r : i32
}

func.func @values(%x: i32) -> i32 {
  %f = func.constant @ext : (i32) -> i32
  %r = func.call_indirect %f(%x) : (i32) -> i32
  return %r : i32
}

func.func @branches(%a: i32, %b: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  %z = arith.constant 0 : i32
  %lt = arith.cmpi slt, %x, %z : i32
  cf.cond_br %lt, ^neg, ^done(%x, %x : i32, i32)
^neg:
  %n = arith.subi %z, %x : i32
  cf.br ^done(%n, %x : i32, i32)
^done(%r: i32, %orig: i32):
  return %r : i32
}

func.func @multi(%x: i64) -> (i64, i64) {
  return %x, %x : i64, i64
}

func.func @use_multi(%x: i64) -> i64 {
  %r:2 = call @multi(%x) : (i64) -> (i64, i64)
  %s = arith.addi %r#0, %r#1 : i64
  return %s : i64
}
