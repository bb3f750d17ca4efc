// error: 7:1: expected '}' to close the module
module {
  func.func @f(%a: i32) -> i32 {
    return %a : i32
  }

