// error: 4:5: 'func.return': must be directly inside 'func.func', not 'scf.if'
func.func @f(%c: i1, %a: i32) -> i32 {
  scf.if %c {
    func.return %a : i32
  }
  return %a : i32
}
