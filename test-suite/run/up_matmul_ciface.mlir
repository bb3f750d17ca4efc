// llvm.emit_c_interface: C calls _mlir_ciface_NAME with pointers to descriptor structs
// {allocated, aligned, offset, sizes[N], strides[N]}. Also a memref result through the C interface
// (returned through a pointer passed first), released again by an MLIR function.
// differential
// stdout: 58 64
// stdout: 139 154
// stdout: iota(5): 0 1 4 9 16 (size 5, stride 1)
// stdout: total 30

func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = memref.dim %A, %c0 : memref<?x?xf32>
  %K = memref.dim %A, %c1 : memref<?x?xf32>
  %N = memref.dim %B, %c1 : memref<?x?xf32>
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %M step %c1 {
    scf.for %j = %c0 to %N step %c1 {
      %sum = scf.for %k = %c0 to %K step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%i, %k] : memref<?x?xf32>
        %b = memref.load %B[%k, %j] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %C[%i, %j] : memref<?x?xf32>
    }
  }
  return
}

// squares[i] = i * i, allocated here and returned.
func.func @iota_squares(%n: index) -> memref<?xi64> attributes {llvm.emit_c_interface} {
  %m = memref.alloc(%n) : memref<?xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = arith.index_cast %i : index to i64
    %sq = arith.muli %v, %v : i64
    memref.store %sq, %m[%i] : memref<?xi64>
  }
  return %m : memref<?xi64>
}

func.func @total(%m: memref<?xi64>) -> i64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %m, %c0 : memref<?xi64>
  %zero = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i64) {
    %v = memref.load %m[%i] : memref<?xi64>
    %s = arith.addi %acc, %v : i64
    scf.yield %s : i64
  }
  return %r : i64
}

func.func @release(%m: memref<?xi64>) attributes {llvm.emit_c_interface} {
  memref.dealloc %m : memref<?xi64>
  return
}
