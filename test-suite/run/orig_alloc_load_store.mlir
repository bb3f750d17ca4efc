// alloc / store / load / dealloc on a static memref, in the original spelling.
// The buffer ends as [10, 20, 30, 45] (index 3 is stored twice: 40, then 45).
// checksum = 10*1 + 20*2 + 30*3 + 45*4 = 10 + 40 + 90 + 180 = 320
// run: @checksum() == 320
// run: @roundtrip(-123456) == -123456
// run: @roundtrip(7) == 7

func @checksum() -> i32 {
  %m = alloc() : memref<4xi32>
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c2 = constant 2 : index
  %c3 = constant 3 : index
  %v10 = constant 10 : i32
  %v20 = constant 20 : i32
  %v30 = constant 30 : i32
  %v40 = constant 40 : i32
  %v45 = constant 45 : i32
  store %v10, %m[%c0] : memref<4xi32>
  store %v20, %m[%c1] : memref<4xi32>
  store %v30, %m[%c2] : memref<4xi32>
  store %v40, %m[%c3] : memref<4xi32>
  store %v45, %m[%c3] : memref<4xi32>
  %a = load %m[%c0] : memref<4xi32>
  %b = load %m[%c1] : memref<4xi32>
  %c = load %m[%c2] : memref<4xi32>
  %d = load %m[%c3] : memref<4xi32>
  %w2 = constant 2 : i32
  %w3 = constant 3 : i32
  %w4 = constant 4 : i32
  %b2 = muli %b, %w2 : i32
  %c3v = muli %c, %w3 : i32
  %d4 = muli %d, %w4 : i32
  %s1 = addi %a, %b2 : i32
  %s2 = addi %s1, %c3v : i32
  %s3 = addi %s2, %d4 : i32
  dealloc %m : memref<4xi32>
  return %s3 : i32
}

// A value stored to a 2-d buffer and loaded back.
func @roundtrip(%x: i64) -> i64 {
  %m = alloc() : memref<2x3xi64>
  %i = constant 1 : index
  %j = constant 2 : index
  store %x, %m[%i, %j] : memref<2x3xi64>
  %y = load %m[%i, %j] : memref<2x3xi64>
  dealloc %m : memref<2x3xi64>
  return %y : i64
}
