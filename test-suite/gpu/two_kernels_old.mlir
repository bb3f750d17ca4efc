// Original spelling: two kernels in one module, integer work with a loop carried in block arguments.
func @scale(%x: memref<?xi32>, %n: index, %k: i32) attributes {nvvm.kernel} {
  %i = "gpu.thread_id"() {dimension = "x"} : () -> index
  %in = cmpi "slt", %i, %n : index
  cond_br %in, ^body, ^done
^body:
  %v = load %x[%i] : memref<?xi32>
  %w = muli %v, %k : i32
  store %w, %x[%i] : memref<?xi32>
  br ^done
^done:
  return
}
func @iota(%x: memref<?xi32>, %n: index) attributes {nvvm.kernel} {
  %i = "gpu.thread_id"() {dimension = "x"} : () -> index
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  br ^loop(%c0 : index)
^loop(%j: index):
  %more = cmpi "slt", %j, %i : index
  cond_br %more, ^step, ^out
^step:
  %j1 = addi %j, %c1 : index
  br ^loop(%j1 : index)
^out:
  %in = cmpi "slt", %i, %n : index
  cond_br %in, ^st, ^end
^st:
  %v = index_cast %j : index to i32
  store %v, %x[%i] : memref<?xi32>
  br ^end
^end:
  return
}
