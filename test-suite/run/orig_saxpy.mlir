// Memref arguments in the original spelling, called from C with expanded descriptors:
// y[i] = a * x[i] + y[i] over memref<?xf32>, and a 2-d row sum into an i64 memref.
// x = [1, 2, 3, 4, 5], y = [10, 10, 10, 10, 10], a = 2 -> y = [12, 14, 16, 18, 20]
// stdout: saxpy: 12 14 16 18 20
// m = [[1, 2, 3], [4, 5, 6]] -> row sums [6, 15]
// stdout: rows: 6 15

func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {
  %n = dim %x, 0 : memref<?xf32>
  for %i = 0 to %n {
    %xv = load %x[%i] : memref<?xf32>
    %yv = load %y[%i] : memref<?xf32>
    %p = mulf %a, %xv : f32
    %s = addf %p, %yv : f32
    store %s, %y[%i] : memref<?xf32>
  }
  return
}

func @row_sums(%m: memref<?x?xi64>, %out: memref<?xi64>) {
  %rows = dim %m, 0 : memref<?x?xi64>
  %cols = dim %m, 1 : memref<?x?xi64>
  %zero = constant 0 : i64
  for %i = 0 to %rows {
    store %zero, %out[%i] : memref<?xi64>
    for %j = 0 to %cols {
      %v = load %m[%i, %j] : memref<?x?xi64>
      %s = load %out[%i] : memref<?xi64>
      %t = addi %s, %v : i64
      store %t, %out[%i] : memref<?xi64>
    }
  }
  return
}
