// Arithmetic of the original standard dialect, custom and generic forms.
func @int_ops(%a: i32, %b: i32) -> i32 {
  %0 = addi %a, %b : i32
  %1 = subi %0, %b : i32
  %2 = muli %1, %a : i32
  %3 = divis %2, %b : i32
  %4 = diviu %3, %b : i32
  %5 = remis %4, %a : i32
  %6 = remiu %5, %a : i32
  %7 = "addi"(%6, %a) : (i32, i32) -> i32
  return %7 : i32
}

func @float_ops(%x: f32, %y: f32) -> f32 {
  %0 = addf %x, %y : f32
  %1 = subf %0, %y : f32
  %2 = mulf %1, %x : f32
  %3 = divf %2, %y : f32
  %4 = constant 2.5 : f32
  %5 = mulf %3, %4 : f32
  return %5 : f32
}

func @compare_select(%a: i64, %b: i64) -> i64 {
  %lt = cmpi "slt", %a, %b : i64
  %ge = "cmpi"(%a, %b){predicate: 5} : (i64, i64) -> i1
  %m = select %lt, %a, %b : i64
  %n = "select"(%ge, %a, %m) : (i1, i64, i64) -> i64
  %c = constant 42 : i64
  %t = constant 1 : i1
  %r = select %t, %n, %c : i64
  return %r : i64
}

func @casts(%i: index) -> i16 {
  %0 = index_cast %i : index to i16
  %1 = constant -7 : i16
  %2 = addi %0, %1 : i16
  return %2 : i16
}
