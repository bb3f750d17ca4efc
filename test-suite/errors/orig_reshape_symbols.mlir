// error: 5:3: 'std.reshape': the result's layout map takes 1 symbol(s), but 2 are given
// A reshape passes one value per symbol of the result's layout map.
#imapDR = (i, j, k)[S0] -> (i, j * S0 + k)
func @f(%D: memref<16x8xf32>, %n: index) {
  %DR = reshape %D : memref<16x8xf32> (%n)[%n, %n] to (memref<16x8xf32> -> memref<16x4x?xf32, #imapDR>)
  return
}
