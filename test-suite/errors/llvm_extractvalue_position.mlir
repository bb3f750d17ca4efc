// error: 4:3: 'llvm.extractvalue': position [5] is out of range for !llvm.struct<(i32, f32)>
// A generic-form extractvalue with a position past the struct's fields.
llvm.func @f(%s: !llvm.struct<(i32, f32)>) -> i32 {
  %r = "llvm.extractvalue"(%s) <{position = array<i64: 5>}> : (!llvm.struct<(i32, f32)>) -> i32
  llvm.return %r : i32
}
