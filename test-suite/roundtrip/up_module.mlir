// upstream
// A named module with attributes, type and attribute aliases in the upstream form, and a gpu
// index operation inside a function.
!i = i32
!vec = vector<8xf32>
#tile = affine_map<(d0) -> (d0 floordiv 32, d0 mod 32)>
module @named attributes {test.flag, test.version = 3 : i64} {
  func.func @aliases(%a: !i, %v: !vec) -> !i {
    %x = arith.addi %a, %a : !i
    %r = vector.reduction <add>, %v : !vec into f32
    return %x : !i
  }
  func.func @kernel_index() -> index {
    %t = gpu.thread_id x
    %b = gpu.block_id y
    %d = gpu.block_dim z
    %s = arith.addi %t, %b : index
    %r = arith.muli %s, %d : index
    return %r : index
  }
}
