// error: 5:3: shapes [?x8] x [7x16] -> [?x16] do not multiply
// Dims known only at run time are not checked, the static ones still are: K is 8 in A and 7 in B.
func.func @f(%a: memref<?x8xf32>, %b: memref<7x16xf32>, %c: memref<?x16xf32>) {
  // one dim dynamic, the rest static
  kernel.matmul ins(%a, %b : memref<?x8xf32>, memref<7x16xf32>) outs(%c : memref<?x16xf32>)
  return
}
