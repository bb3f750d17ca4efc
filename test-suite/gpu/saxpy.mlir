// y[i] = a * x[i] + y[i] over a 1-D grid.
func.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: index) attributes {gpu.kernel} {
  %tid = gpu.thread_id x
  %bid = gpu.block_id x
  %bdim = gpu.block_dim x
  %t0 = arith.muli %bid, %bdim : index
  %i = arith.addi %t0, %tid : index
  %in = arith.cmpi slt, %i, %n : index
  scf.if %in {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %xv : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  func.return
}
