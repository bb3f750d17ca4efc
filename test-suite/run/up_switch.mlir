// Multi-way branches: cf.switch with block arguments on the default and on cases (two cases
// reaching one block with different values), negative case values, llvm.switch, and
// scf.index_switch with results and without.
// differential
// run: @classify(0) == 100
// run: @classify(1) == 11
// run: @classify(2) == 12
// run: @classify(-3) == 7
// run: @classify(9) == 109
// run: @days_in_month(2) == 28
// run: @days_in_month(4) == 30
// run: @days_in_month(12) == 31
// run: @days_in_month(13) == 0
// run: @llvm_pick(5) == 50
// run: @llvm_pick(6) == 60
// run: @llvm_pick(7) == -1
// run: @weight(0) == 1
// run: @weight(3) == 27
// run: @weight(10) == 1000
// run: @side_effect_count(2) == 5

// 0 -> 100 + x, 1 and 2 -> 10 + x through one block, -3 -> 7, otherwise 100 + x.
func.func @classify(%x: i32) -> i32 {
  %c10 = arith.constant 10 : i32
  %c100 = arith.constant 100 : i32
  %plus10 = arith.addi %x, %c10 : i32
  %plus100 = arith.addi %x, %c100 : i32
  %seven = arith.constant 7 : i32
  cf.switch %x : i32, [
    default: ^done(%plus100 : i32),
    1: ^done(%plus10 : i32),
    2: ^done(%plus10 : i32),
    -3: ^done(%seven : i32)
  ]
^done(%r: i32):
  return %r : i32
}

func.func @days_in_month(%m: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c28 = arith.constant 28 : i64
  %c30 = arith.constant 30 : i64
  %c31 = arith.constant 31 : i64
  %in = arith.cmpi ule, %m, %c0 : i64
  cf.switch %m : i64, [
    default: ^other,
    2: ^out(%c28 : i64),
    4: ^out(%c30 : i64),
    6: ^out(%c30 : i64),
    9: ^out(%c30 : i64),
    11: ^out(%c30 : i64)
  ]
^other:
  %c12 = arith.constant 12 : i64
  %big = arith.cmpi ugt, %m, %c12 : i64
  %bad = arith.ori %in, %big : i1
  %r = arith.select %bad, %c0, %c31 : i64
  cf.br ^out(%r : i64)
^out(%d: i64):
  return %d : i64
}

llvm.func @llvm_pick(%x: i32) -> i32 {
  %c10 = llvm.mlir.constant(10 : i32) : i32
  %m1 = llvm.mlir.constant(-1 : i32) : i32
  llvm.switch %x : i32, ^bb1(%m1 : i32) [
    5: ^bb2,
    6: ^bb2
  ]
^bb1(%r: i32):
  llvm.return %r : i32
^bb2:
  %p = llvm.mul %x, %c10 : i32
  llvm.br ^bb1(%p : i32)
}

// x cubed for 0, 3 and 10 by cases, else 0 by default.
func.func @weight(%i: index) -> i64 {
  %r = scf.index_switch %i -> i64
  case 0 {
    %one = arith.constant 1 : i64
    scf.yield %one : i64
  }
  case 3 {
    %v = arith.constant 27 : i64
    scf.yield %v : i64
  }
  case 10 {
    %v = arith.constant 1000 : i64
    scf.yield %v : i64
  }
  default {
    %z = arith.constant 0 : i64
    scf.yield %z : i64
  }
  return %r : i64
}

// A switch without results, its regions storing to a buffer: case 2 stores 5.
func.func @side_effect_count(%i: index) -> i64 {
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<1xi64>
  %zero = arith.constant 0 : i64
  memref.store %zero, %buf[%c0] : memref<1xi64>
  scf.index_switch %i
  case 2 {
    %five = arith.constant 5 : i64
    memref.store %five, %buf[%c0] : memref<1xi64>
    scf.yield
  }
  default {
    scf.yield
  }
  %r = memref.load %buf[%c0] : memref<1xi64>
  return %r : i64
}
