// RUN: --passes=split-wide-vectors
// split-wide-vectors: an operation on a vector of more than 64 lanes becomes a loop over pieces
// of 16 lanes (a shorter piece ending each row that is not a multiple), each wide value in a
// 64-byte aligned stack buffer; vectors of 64 lanes or fewer are left alone.

// A load, an exp and a store of 100 lanes: three loops of six pieces, each followed by the last
// piece of 4 lanes; the values live in two buffers.
// CHECK-LABEL: func.func @exp(
// CHECK: [[V:%[0-9]+]] = memref.alloca() {alignment = 64} : memref<100xf32>
// CHECK-NEXT: [[E:%[0-9]+]] = memref.alloca() {alignment = 64} : memref<100xf32>
// CHECK: [[UB:%[0-9]+]] = arith.constant 96 : index
// CHECK-NEXT: [[STEP:%[0-9]+]] = arith.constant 16 : index
// CHECK-NEXT: scf.for [[K:%[0-9]+]] = {{%[0-9]+}} to [[UB]] step [[STEP]] {
// CHECK: [[AT:%[0-9]+]] = arith.addi %arg2, [[K]] : index
// CHECK-NEXT: [[P:%[0-9]+]] = vector.load %arg0[[[AT]]] : memref<?xf32>, vector<16xf32>
// CHECK-NEXT: vector.store [[P]], [[V]][{{%[0-9]+}}] : memref<100xf32>, vector<16xf32>
// CHECK: vector.load %arg0[{{%[0-9]+}}] : memref<?xf32>, vector<4xf32>
// CHECK: scf.for
// CHECK: [[X:%[0-9]+]] = vector.load [[V]][{{%[0-9]+}}] : memref<100xf32>, vector<16xf32>
// CHECK-NEXT: [[Y:%[0-9]+]] = math.exp [[X]] : vector<16xf32>
// CHECK-NEXT: vector.store [[Y]], [[E]][{{%[0-9]+}}] : memref<100xf32>, vector<16xf32>
// CHECK: math.exp {{%[0-9]+}} : vector<4xf32>
// CHECK: scf.for
// CHECK: vector.store {{%[0-9]+}}, %arg1[{{%[0-9]+}}] : memref<?xf32>, vector<16xf32>
// CHECK: vector.store {{%[0-9]+}}, %arg1[{{%[0-9]+}}] : memref<?xf32>, vector<4xf32>
// CHECK-NOT: vector<100xf32>
// CHECK: func.return
func.func @exp(%a: memref<?xf32>, %b: memref<?xf32>, %i: index) {
  %v = vector.load %a[%i] : memref<?xf32>, vector<100xf32>
  %e = math.exp %v : vector<100xf32>
  vector.store %e, %b[%i] : memref<?xf32>, vector<100xf32>
  return
}

// CHECK-LABEL: func.func @narrow(
// CHECK-NEXT: vector.load %arg0[%arg1] : memref<?xf32>, vector<64xf32>
// CHECK-NEXT: math.exp {{%[0-9]+}} : vector<64xf32>
func.func @narrow(%a: memref<?xf32>, %i: index) -> vector<64xf32> {
  %v = vector.load %a[%i] : memref<?xf32>, vector<64xf32>
  %e = math.exp %v : vector<64xf32>
  return %e : vector<64xf32>
}

// A 2x40 comparison: the argument stored whole to its buffer, a loop over the 2 rows around a
// loop over 2 pieces and a last one of 8, the i1 lanes kept as bytes, the result loaded whole
// for the return.
// CHECK-LABEL: func.func @whole(
// CHECK: [[Z:%[0-9]+]] = memref.alloca() {alignment = 64} : memref<80xi32>
// CHECK-NEXT: [[A:%[0-9]+]] = memref.alloca() {alignment = 64} : memref<80xi32>
// CHECK-NEXT: [[C:%[0-9]+]] = memref.alloca() {alignment = 64} : memref<80xi8>
// CHECK-NEXT: [[FLAT:%[0-9]+]] = vector.shape_cast %arg0 : vector<2x40xi32> to vector<80xi32>
// CHECK: vector.store [[FLAT]], [[A]][{{%[0-9]+}}] : memref<80xi32>, vector<80xi32>
// CHECK: arith.constant dense<0> : vector<16xi32>
// CHECK: arith.constant dense<0> : vector<8xi32>
// CHECK: [[CMP:%[0-9]+]] = arith.cmpi slt, {{%[0-9]+}}, {{%[0-9]+}} : vector<16xi32>
// CHECK-NEXT: [[BYTES:%[0-9]+]] = arith.extui [[CMP]] : vector<16xi1> to vector<16xi8>
// CHECK-NEXT: vector.store [[BYTES]], [[C]][{{%[0-9]+}}] : memref<80xi8>, vector<16xi8>
// CHECK: arith.cmpi slt, {{%[0-9]+}}, {{%[0-9]+}} : vector<8xi32>
// CHECK: [[ALL:%[0-9]+]] = vector.load [[C]][{{%[0-9]+}}] : memref<80xi8>, vector<80xi8>
// CHECK-NEXT: [[BITS:%[0-9]+]] = arith.trunci [[ALL]] : vector<80xi8> to vector<80xi1>
// CHECK-NEXT: [[R:%[0-9]+]] = vector.shape_cast [[BITS]] : vector<80xi1> to vector<2x40xi1>
// CHECK-NEXT: func.return [[R]]
func.func @whole(%v: vector<2x40xi32>) -> vector<2x40xi1> {
  %z = arith.constant dense<0> : vector<2x40xi32>
  %c = arith.cmpi slt, %v, %z : vector<2x40xi32>
  return %c : vector<2x40xi1>
}
