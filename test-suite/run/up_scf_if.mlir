// scf.if with and without results, nested, and with an else-less side effect on a memref.
// differential
// run: @iabs(-5) == 5
// run: @iabs(7) == 7
// run: @iabs(0) == 0
// sign3: -1, 0, 1 via nested scf.if
// run: @sign3(-42) == -1
// run: @sign3(0) == 0
// run: @sign3(42) == 1
// count_positive: v_i = (5 i mod 7) - 3 for i < 6 = [-3, 2, 0, -2, 3, 1]: 3 positives
// run: @count_positive() == 3

func.func @iabs(%x: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %neg = arith.cmpi slt, %x, %zero : i32
  %r = scf.if %neg -> (i32) {
    %n = arith.subi %zero, %x : i32
    scf.yield %n : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
}

func.func @sign3(%x: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %m1 = arith.constant -1 : i64
  %neg = arith.cmpi slt, %x, %zero : i64
  %r = scf.if %neg -> (i64) {
    scf.yield %m1 : i64
  } else {
    %pos = arith.cmpi sgt, %x, %zero : i64
    %s = scf.if %pos -> (i64) {
      scf.yield %one : i64
    } else {
      scf.yield %zero : i64
    }
    scf.yield %s : i64
  }
  return %r : i64
}

func.func @count_positive() -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %cnt = memref.alloca() : memref<i32>
  memref.store %zero, %cnt[] : memref<i32>
  scf.for %i = %c0 to %c6 step %c1 {
    %p = arith.muli %i, %c5 : index
    %m = arith.remui %p, %c7 : index
    %v = arith.subi %m, %c3 : index
    %vi = arith.index_cast %v : index to i32
    %pos = arith.cmpi sgt, %vi, %zero : i32
    scf.if %pos {
      %old = memref.load %cnt[] : memref<i32>
      %new = arith.addi %old, %one : i32
      memref.store %new, %cnt[] : memref<i32>
    }
  }
  %r = memref.load %cnt[] : memref<i32>
  return %r : i32
}
