// RUN: --passes=convert-scf-to-cf
// scf to cf: a parallel loop runs as a serial nest (outer loop first, each a header that
// compares and a body that steps), and scf.for's carried value becomes a block argument of its
// header and of the block after the loop.

// CHECK-LABEL: func.func @sum
// CHECK: cf.br ^bb1([[ZERO:%[0-9]+]] : index)
// CHECK-NEXT: ^bb1([[I:%[0-9]+]]: index):
// CHECK-NEXT: [[IN:%[0-9]+]] = arith.cmpi slt, [[I]], %arg0 : index
// CHECK-NEXT: cf.cond_br [[IN]], ^bb2([[I]] : index), ^bb6
// CHECK-NEXT: ^bb2([[OUTER:%[0-9]+]]: index):
// CHECK-NEXT: cf.br ^bb3([[ZERO]] : index)
// CHECK-NEXT: ^bb3([[J:%[0-9]+]]: index):
// CHECK-NEXT: arith.cmpi slt, [[J]], {{%[0-9]+}} : index
// CHECK: ^bb4([[INNER:%[0-9]+]]: index):
// CHECK-NEXT: memref.store {{%[0-9]+}}, %arg1[[[OUTER]], [[INNER]]] : memref<?x4xf32>
// CHECK-NEXT: [[NEXT:%[0-9]+]] = arith.addi [[INNER]], {{%[0-9]+}} : index
// CHECK-NEXT: cf.br ^bb3([[NEXT]] : index)
// CHECK: ^bb7([[K:%[0-9]+]]: index, [[ACC:%[0-9]+]]: f32):
// CHECK: cf.cond_br {{%[0-9]+}}, ^bb8([[K]], [[ACC]] : index, f32), ^bb9([[ACC]] : f32)
// CHECK: ^bb9([[RESULT:%[0-9]+]]: f32):
// CHECK-NEXT: func.return [[RESULT]] : f32
// CHECK-NOT: scf.
func.func @sum(%n: index, %m: memref<?x4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c4) step (%c1, %c1) {
    memref.store %z, %m[%i, %j] : memref<?x4xf32>
    scf.reduce
  }
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %v = memref.load %m[%k, %c0] : memref<?x4xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  return %r : f32
}
