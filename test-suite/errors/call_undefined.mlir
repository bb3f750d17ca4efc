// error: 3:3: calls undefined function '@nope'
func @f(%a: i32) -> i32 {
  %b = call @nope(%a) : (i32) -> i32
  return %b : i32
}
