// The spec's matrix multiply loop nest over dynamically sized memrefs, called from C with
// expanded memref arguments (allocated, aligned, offset, sizes..., strides...).
// A = [[1, 2, 3], [4, 5, 6]] (2x3), B = [[7, 8], [9, 10], [11, 12]] (3x2)
// C = [[1*7+2*9+3*11, 1*8+2*10+3*12], [4*7+5*9+6*11, 4*8+5*10+6*12]] = [[58, 64], [139, 154]]
// stdout: 58 64
// stdout: 139 154
// stdout: 2x3 * 3x2 done

func @multiply(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %m = dim %A, 0 : memref<?x?xf32>
  %n = dim %A, 1 : memref<?x?xf32>
  %p = dim %B, 1 : memref<?x?xf32>
  %zero = constant 0.0 : f32
  for %i = 0 to %m {
     for %j = 0 to %p {
        store %zero, %C[%i, %j] : memref<?x?xf32>
        for %k = 0 to %n {
           %a_v  = load %A[%i, %k] : memref<?x?xf32>
           %b_v  = load %B[%k, %j] : memref<?x?xf32>
           %prod = mulf %a_v, %b_v : f32
           %c_v  = load %C[%i, %j] : memref<?x?xf32>
           %sum  = addf %c_v, %prod : f32
           store %sum, %C[%i, %j] : memref<?x?xf32>
        }
     }
  }
  return
}
