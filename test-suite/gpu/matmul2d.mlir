// One thread per output element of C = A * B, with a 2-D thread index and a device function.
func.func private @dot(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %i: index, %j: index, %k: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %A[%i, %t] : memref<?x?xf32>
    %b = memref.load %B[%t, %j] : memref<?x?xf32>
    %f = math.fma %a, %b, %acc : f32
    scf.yield %f : f32
  }
  func.return %r : f32
}
func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {gpu.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %bx = gpu.block_id x
  %by = gpu.block_id y
  %dx = gpu.block_dim x
  %dy = gpu.block_dim y
  %j0 = arith.muli %bx, %dx : index
  %j = arith.addi %j0, %tx : index
  %i0 = arith.muli %by, %dy : index
  %i = arith.addi %i0, %ty : index
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  %ok_i = arith.cmpi ult, %i, %m : index
  %ok_j = arith.cmpi ult, %j, %n : index
  %ok = arith.andi %ok_i, %ok_j : i1
  scf.if %ok {
    %v = func.call @dot(%A, %B, %i, %j, %k) : (memref<?x?xf32>, memref<?x?xf32>, index, index, index) -> f32
    memref.store %v, %C[%i, %j] : memref<?x?xf32>
  }
  func.return
}
