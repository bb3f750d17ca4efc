// RUN: --passes=lower-affine
// lower-affine: the upper bound is the min of its map's results, the step a constant, the
// applied map d0 * 2 + s0 and the access map d0 + 1 become index arithmetic, and affine accesses
// become memref accesses.

// CHECK-LABEL: func.func @f(%arg0: index, %arg1: memref<100xf32>)
// CHECK: [[LB:%[0-9]+]] = arith.constant 0 : index
// CHECK-NEXT: [[TEN:%[0-9]+]] = arith.constant 10 : index
// CHECK-NEXT: [[UB:%[0-9]+]] = arith.minsi %arg0, [[TEN]] : index
// CHECK-NEXT: [[STEP:%[0-9]+]] = arith.constant 2 : index
// CHECK-NEXT: scf.for [[I:%[0-9]+]] = [[LB]] to [[UB]] step [[STEP]] {
// CHECK: [[TWICE:%[0-9]+]] = arith.muli [[I]], {{%[0-9]+}} : index
// CHECK-NEXT: [[X:%[0-9]+]] = arith.addi [[TWICE]], {{%[0-9]+}} : index
// CHECK: [[NEXT:%[0-9]+]] = arith.addi [[I]], {{%[0-9]+}} : index
// CHECK-NEXT: [[V:%[0-9]+]] = memref.load %arg1[[[NEXT]]] : memref<100xf32>
// CHECK-NEXT: memref.store [[V]], %arg1[[[X]]] : memref<100xf32>
// CHECK-NOT: affine.
#map = affine_map<(d0)[s0] -> (d0 * 2 + s0)>
func.func @f(%n: index, %m: memref<100xf32>) {
  %c3 = arith.constant 3 : index
  affine.for %i = 0 to min affine_map<()[s0] -> (s0, 10)>()[%n] step 2 {
    %x = affine.apply #map(%i)[%c3]
    %v = affine.load %m[%i + 1] : memref<100xf32>
    affine.store %v, %m[%x] : memref<100xf32>
  }
  return
}
