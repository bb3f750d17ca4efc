// The f32 exp, erf and tanh of math-polynomial-approximation over a sweep of about a million
// f32 values (every 4099th bit pattern: both signs, every exponent, subnormals, infinities and
// NaNs), each compared by the C harness with the C library's double-precision function rounded
// to f32. Bounds asserted (the harness prints the measured worst errors on stderr):
//   exp:  <= 4 ulp where the result is a normal f32; 0 for inputs below -87.33 (where the exact
//         result is subnormal, below 1.2e-38); +inf above 88.72;
//   erf:  <= 4 ulp, or 2e-7 absolute where |erf| >= 0.5 (near 1, where 1 - erf is small);
//   tanh: <= 4 ulp, or 2e-7 absolute where |tanh| >= 0.5;
// NaN in gives NaN out, and exp(-inf) = 0, exp(+inf) = +inf, erf(+-inf) = tanh(+-inf) = +-1.
// stdout: exp: ok
// stdout: erf: ok
// stdout: tanh: ok

func.func @exp_all(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %r = math.exp %v : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  return
}

func.func @erf_all(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %r = math.erf %v : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  return
}

// Vectors take the same path (the kernels' vectorized loops).
func.func @tanh_all(%x: memref<?xf32>, %y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c4 {
    %v = vector.load %x[%i] : memref<?xf32>, vector<4xf32>
    %r = math.tanh %v : vector<4xf32>
    vector.store %r, %y[%i] : memref<?xf32>, vector<4xf32>
  }
  return
}
