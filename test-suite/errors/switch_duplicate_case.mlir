// error: 4:3: case value 1 appears twice
// Two cases of one cf.switch with the same value: which block runs would be ambiguous.
func.func @f(%x: i32) -> i32 {
  cf.switch %x : i32, [
    default: ^bb1,
    1: ^bb1,
    1: ^bb1
  ]
^bb1:
  return %x : i32
}
