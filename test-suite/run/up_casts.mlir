// Casts: sitofp, uitofp, fptosi, fptoui, extsi, extui, trunci, extf, truncf, bitcast.
// differential
// run: @sitofp(-3) == -3.0
// run: @uitofp(-1) == 4294967295.0
// fptosi truncates toward zero: -2.75 -> -2, 2.75 -> 2
// run: @fptosi(-2.75) == -2
// run: @fptosi(2.75) == 2
// run: @fptoui(300.9) == 300
// extsi(i8 -1) = -1 as i32; extui(i8 -1) = 255
// run: @extsi(-1) == -1
// run: @extui(-1) == 255
// run: @extsi16(-32768) == -32768
// trunci keeps the low bits: 0x12345678 -> 0x78 = 120; 511 -> 0xFF = -1 as i8
// run: @trunci(305419896) == 120
// run: @trunci(511) == -1
// run: @trunc1(6) == false
// run: @trunc1(7) == true
// extf/truncf: 0.1f32 widened is 0.100000001490116...; 1/3 as f64 -> f32 -> 0.333333343
// run: @cast_extf(0.1) == 0.10000000149011612
// run: @cast_truncf(0.3333333333333333) == 0.3333333432674408
// bitcast f32 1.0 = 0x3F800000 = 1065353216; i32 0x40490FDB = 3.14159274
// run: @bits(1.0) == 1065353216
// run: @from_bits(1078530011) == 3.1415927410125732
// int -> float -> int round trip through f64: 123456789 * 2 = 246913578
// run: @roundtrip(123456789) == 246913578

func.func @sitofp(%x: i32) -> f64 {
  %r = arith.sitofp %x : i32 to f64
  return %r : f64
}
func.func @uitofp(%x: i32) -> f64 {
  %r = arith.uitofp %x : i32 to f64
  return %r : f64
}
func.func @fptosi(%x: f64) -> i32 {
  %r = arith.fptosi %x : f64 to i32
  return %r : i32
}
func.func @fptoui(%x: f32) -> i16 {
  %r = arith.fptoui %x : f32 to i16
  return %r : i16
}
func.func @extsi(%x: i8) -> i32 {
  %r = arith.extsi %x : i8 to i32
  return %r : i32
}
func.func @extui(%x: i8) -> i32 {
  %r = arith.extui %x : i8 to i32
  return %r : i32
}
func.func @extsi16(%x: i16) -> i64 {
  %r = arith.extsi %x : i16 to i64
  return %r : i64
}
func.func @trunci(%x: i32) -> i8 {
  %r = arith.trunci %x : i32 to i8
  return %r : i8
}
func.func @trunc1(%x: i32) -> i1 {
  %r = arith.trunci %x : i32 to i1
  return %r : i1
}
func.func @cast_extf(%x: f32) -> f64 {
  %r = arith.extf %x : f32 to f64
  return %r : f64
}
func.func @cast_truncf(%x: f64) -> f32 {
  %r = arith.truncf %x : f64 to f32
  return %r : f32
}
func.func @bits(%x: f32) -> i32 {
  %r = arith.bitcast %x : f32 to i32
  return %r : i32
}
func.func @from_bits(%x: i32) -> f32 {
  %r = arith.bitcast %x : i32 to f32
  return %r : f32
}
func.func @roundtrip(%x: i32) -> i64 {
  %f = arith.sitofp %x : i32 to f64
  %two = arith.constant 2.0 : f64
  %d = arith.mulf %f, %two : f64
  %r = arith.fptosi %d : f64 to i64
  return %r : i64
}
