// RUN: --passes=kernel-fuse-activation
// kernel-fuse-activation: a generic that computes only from a matmul's (or conv's) output, with
// arith and math, becomes that op's epilogue_map: its body a private function of one element
// (here SiLU, x * 1 / (1 + exp(-x)), reading the output twice), and the matmul writes the
// generic's output. A generic that also reads another buffer, or an output with another reader,
// stays.

// CHECK-LABEL: func.func @silu
// CHECK-NOT: memref.alloc
// CHECK: kernel.matmul ins(%arg0, %arg1 : memref<4x8xf32>, memref<8x16xf32>) outs(%arg2 : memref<4x16xf32>) {epilogue_map = @xcc_epilogue_map1}
// CHECK-NOT: kernel.generic
// CHECK: func.return
func.func @silu(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %t : memref<4x16xf32>, memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %x2: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x2 : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %one, %d : f32
    %r = arith.mulf %x, %s : f32
    kernel.yield %r : f32
  }
  memref.dealloc %t : memref<4x16xf32>
  return
}

// CHECK-LABEL: func.func @scaled_by_another
// CHECK: kernel.matmul ins(%arg0, %arg1 : memref<4x8xf32>, memref<8x16xf32>) outs([[T:%[0-9]+]] : memref<4x16xf32>)
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic
func.func @scaled_by_another(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %k: memref<4x16xf32>, %y: memref<4x16xf32>) {
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %k : memref<4x16xf32>, memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %e = math.exp %x : f32
    %r = arith.mulf %e, %s : f32
    kernel.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func @read_again
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic
func.func @read_again(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>, %z: memref<4x16xf32>) {
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    kernel.yield %r : f32
  }
  kernel.copy ins(%t : memref<4x16xf32>) outs(%z : memref<4x16xf32>)
  return
}

// Kept: a body using a value defined outside the generic, and a constant read at a loop index
// (which would make the generic write only one column).
// CHECK-LABEL: func.func @outer_value
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic
func.func @outer_value(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  %half = arith.constant 0.5 : f32
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %half : f32
    kernel.yield %r : f32
  }
  return
}
memref.global "private" constant @two : memref<1xf32> = dense<"0x00000040"> : tensor<4xi8>
// CHECK-LABEL: func.func @indexed_constant
// CHECK-NOT: epilogue_map
// CHECK: kernel.generic
func.func @indexed_constant(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  %two = memref.get_global @two : memref<1xf32>
  %t = memref.alloc() : memref<4x16xf32>
  kernel.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%t : memref<4x16xf32>)
  kernel.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%t, %two : memref<4x16xf32>, memref<1xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %r = arith.mulf %x, %c : f32
    kernel.yield %r : f32
  }
  return
}

// CHECK-LABEL: func.func private @xcc_epilogue_map1(%arg0: f32) -> (f32)
// CHECK-NEXT: [[ONE:%[0-9]+]] = arith.constant 1.0{{.*}} : f32
// CHECK-NEXT: [[N:%[0-9]+]] = arith.negf %arg0 : f32
// CHECK-NEXT: [[E:%[0-9]+]] = math.exp [[N]] : f32
// CHECK-NEXT: [[D:%[0-9]+]] = arith.addf [[ONE]], [[E]] : f32
// CHECK-NEXT: [[S:%[0-9]+]] = arith.divf [[ONE]], [[D]] : f32
// CHECK-NEXT: [[R:%[0-9]+]] = arith.mulf %arg0, [[S]] : f32
// CHECK-NEXT: func.return [[R]] : f32
