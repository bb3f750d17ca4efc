// error: 4:3: the result must be a 1-D memref of i8 in #gpu.address_space<workgroup>
// A block's shared memory is in the workgroup memory space, as upstream's gpu dialect has it.
func.func @k() attributes {gpu.kernel} {
  %shared = gpu.dynamic_shared_memory : memref<256xi8>
  return
}
