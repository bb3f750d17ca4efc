// math's class tests, isnan, isinf, isfinite and isnormal (LLVM's is.fpclass), on a NaN, both
// infinities, a normal number, a subnormal one and zero. Not differential: mlir-opt-22 lowers
// isnan and isfinite but has no lowering for isinf and isnormal.
// run: @classes() == 4231

// Over [NaN, +inf, -inf, 1.5, 1e-40 (subnormal), 0.0], written as upstream does (hex elements
// are bit patterns): isnan holds for 1, isinf for 2, isfinite for 3, isnormal for 1, weighted
// 1000, 100, 10 and 1: 1231; and isnan of a scalar NaN adds 3000.
func.func @classes() -> i32 {
  %v = arith.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, 1.5, 1.0e-40, 0.0]> : vector<6xf32>
  %nan = math.isnan %v : vector<6xf32>
  %inf = math.isinf %v : vector<6xf32>
  %fin = math.isfinite %v : vector<6xf32>
  %nor = math.isnormal %v : vector<6xf32>
  %a = arith.extui %nan : vector<6xi1> to vector<6xi32>
  %b = arith.extui %inf : vector<6xi1> to vector<6xi32>
  %c = arith.extui %fin : vector<6xi1> to vector<6xi32>
  %d = arith.extui %nor : vector<6xi1> to vector<6xi32>
  %sa = vector.reduction <add>, %a : vector<6xi32> into i32
  %sb = vector.reduction <add>, %b : vector<6xi32> into i32
  %sc = vector.reduction <add>, %c : vector<6xi32> into i32
  %sd = vector.reduction <add>, %d : vector<6xi32> into i32
  %k1000 = arith.constant 1000 : i32
  %k100 = arith.constant 100 : i32
  %k10 = arith.constant 10 : i32
  %t1 = arith.muli %sa, %k1000 : i32
  %t2 = arith.muli %sb, %k100 : i32
  %t3 = arith.muli %sc, %k10 : i32
  %s1 = arith.addi %t1, %t2 : i32
  %s2 = arith.addi %s1, %t3 : i32
  %s3 = arith.addi %s2, %sd : i32
  %scalar = arith.constant 0x7FC00000 : f32
  %snan = math.isnan %scalar : f32
  %bonus = arith.extui %snan : i1 to i32
  %k3000 = arith.constant 3000 : i32
  %b3000 = arith.muli %bonus, %k3000 : i32
  %r = arith.addi %s3, %b3000 : i32
  return %r : i32
}
