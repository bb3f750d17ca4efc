// upstream
// vector: dense constants (list, splat, nested, bool, float), broadcast, fma, reduction,
// load/store, elementwise arith and compares on vectors.
func.func @vectors(%m: memref<16xf32>, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<0.5> : vector<4xf32>
  %k = arith.constant dense<[[1, 2], [3, 4]]> : vector<2x2xi32>
  %mask = arith.constant dense<[true, false, true, true]> : vector<4xi1>
  %bx = vector.broadcast %x : f32 to vector<4xf32>
  %f = vector.fma %a, %bx, %b : vector<4xf32>
  %s = arith.select %mask, %f, %a : vector<4xi1>, vector<4xf32>
  %gt = arith.cmpf ogt, %s, %b : vector<4xf32>
  %l = vector.load %m[%c0] : memref<16xf32>, vector<4xf32>
  %sum = arith.addf %l, %s : vector<4xf32>
  vector.store %sum, %m[%c0] : memref<16xf32>, vector<4xf32>
  %r = vector.reduction <add>, %sum : vector<4xf32> into f32
  %ki = vector.reduction <mul>, %a : vector<4xf32> into f32
  %out = arith.addf %r, %ki : f32
  return %out : f32
}
