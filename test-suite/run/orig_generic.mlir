// Operations written in the generic form of the original spec: "op"(operands)[successors]
// {attributes} : function-type, including terminators with successor operands.
// absdiff(a, b) = |a - b| (slt picks the branch); plus the generic constant 1000.
// run: @absdiff(3, 10) == 1007
// run: @absdiff(10, 3) == 1007
// run: @absdiff(-4, -4) == 1000

func @absdiff(%a: i32, %b: i32) -> i32 {
  %k = "constant"(){value: 1000 : i32} : () -> i32
  %c = "cmpi"(%a, %b){predicate: 2} : (i32, i32) -> i1
  "cond_br"(%c)[^lt, ^ge] : (i1) -> ()
^lt:
  %d = "subi"(%b, %a) : (i32, i32) -> i32
  "br"()[^done(%d : i32)] : () -> ()
^ge:
  %e = "subi"(%a, %b) : (i32, i32) -> i32
  "br"()[^done(%e : i32)] : () -> ()
^done(%r: i32):
  %s = "addi"(%r, %k) : (i32, i32) -> i32
  "return"(%s) : (i32) -> ()
}
