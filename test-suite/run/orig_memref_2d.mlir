// A 2-d memref filled and read in a `for` nest with affine_apply subscripts.
// m[i][j] = 4 i + j for a 3x4 matrix; weighted row sums: rows are 6, 22, 38 ->
// 6*1 + 22*2 + 38*3 = 6 + 44 + 114 = 164
// run: @weighted() == 164
// Transposed copy t[j][i] = m[i][j], then t[3][2] = m[2][3] = 11 and t[1][0] = m[0][1] = 1:
// 11 * 100 + 1 = 1101
// run: @transposed() == 1101

#flat = (d0, d1) -> (d0 * 4 + d1)

func @weighted() -> i32 {
  %m = alloc() : memref<3x4xi32>
  for %i = 0 to 3 {
    for %j = 0 to 4 {
      %f = affine_apply #flat(%i, %j)
      %v = index_cast %f : index to i32
      store %v, %m[%i, %j] : memref<3x4xi32>
    }
  }
  %acc = alloc() : memref<1xi32>
  %c0 = constant 0 : index
  %zero = constant 0 : i32
  %one = constant 1 : i32
  store %zero, %acc[%c0] : memref<1xi32>
  for %i = 0 to 3 {
    for %j = 0 to 4 {
      %v = load %m[%i, %j] : memref<3x4xi32>
      %w0 = index_cast %i : index to i32
      %w = addi %w0, %one : i32
      %p = muli %v, %w : i32
      %s = load %acc[%c0] : memref<1xi32>
      %t = addi %s, %p : i32
      store %t, %acc[%c0] : memref<1xi32>
    }
  }
  %r = load %acc[%c0] : memref<1xi32>
  dealloc %m : memref<3x4xi32>
  dealloc %acc : memref<1xi32>
  return %r : i32
}

func @transposed() -> i32 {
  %m = alloc() : memref<3x4xi32>
  %t = alloc() : memref<4x3xi32>
  for %i = 0 to 3 {
    for %j = 0 to 4 {
      %f = affine_apply #flat(%i, %j)
      %v = index_cast %f : index to i32
      store %v, %m[%i, %j] : memref<3x4xi32>
    }
  }
  for %i = 0 to 3 {
    for %j = 0 to 4 {
      %v = load %m[%i, %j] : memref<3x4xi32>
      store %v, %t[%j, %i] : memref<4x3xi32>
    }
  }
  %c0 = constant 0 : index
  %c1 = constant 1 : index
  %c2 = constant 2 : index
  %c3 = constant 3 : index
  %a = load %t[%c3, %c2] : memref<4x3xi32>
  %b = load %t[%c1, %c0] : memref<4x3xi32>
  %hundred = constant 100 : i32
  %a100 = muli %a, %hundred : i32
  %r = addi %a100, %b : i32
  dealloc %m : memref<3x4xi32>
  dealloc %t : memref<4x3xi32>
  return %r : i32
}
