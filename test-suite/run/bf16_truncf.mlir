// arith.truncf to bf16 rounds the f32 bits to the nearest bf16, ties to even, in integer
// operations (LLVM's fptrunc to bfloat would call __truncsfbf2, missing from older libgccs).
// Expected bits worked out by hand from each value's f32 bits.
// 0.48033667 = 0x3ef5eeb0: the dropped half 0xeeb0 is above 0x8000, up to 0x3ef6
// run: @bits(0.48033667) == 16118
// 1.00390625 = 0x3f808000: a tie, 0x3f80 is even and stays
// run: @bits(1.00390625) == 16256
// 1.01171875 = 0x3f818000: a tie, 0x3f81 is odd, up to 0x3f82
// run: @bits(1.01171875) == 16258
// -2.0 = 0xc0000000: exact, 0xc000 (negative as i16)
// run: @bits(-2.0) == -16384
// 1e-40 = 0x000116c2, subnormal: 0x0001
// run: @bits(1e-40) == 1
// An f64 goes through f32 first: 0.48033667 as f64 -> 0x3ef6
// run: @bits64(0.48033667) == 16118

func.func @bits(%x: f32) -> i16 {
  %b = arith.truncf %x : f32 to bf16
  %r = arith.bitcast %b : bf16 to i16
  return %r : i16
}

func.func @bits64(%x: f64) -> i16 {
  %b = arith.truncf %x : f64 to bf16
  %r = arith.bitcast %b : bf16 to i16
  return %r : i16
}
