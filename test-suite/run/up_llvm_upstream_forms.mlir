// The llvm dialect as mlir-opt-22 and mlir-translate-22 write it: globals and addressof in
// their custom forms (a scalar, a string, a dense array of f32, a 2-D i32 array, a splat, a
// zero-initialized one written to), intrinsics with immarg properties (ctlz, abs, memcpy),
// an indirect call, extractelement/insertelement/shufflevector, and getelementptr with
// `inbounds|nuw`. The differential run checks the same file through upstream.
// differential
// run: @scalar() == 42
// run: @third_char() == 108
// run: @sum_f32() == 10.0
// run: @element_1_2() == 12
// run: @splat_sum() == 21
// run: @count_up(5) == 15
// run: @leading_zeros(1) == 31
// run: @leading_zeros(0) == 32
// run: @magnitude(-7) == 7
// run: @copied_sum() == 10.0
// run: @through_pointer(20) == 21
// run: @lanes(1.0, 2.0) == 4.0

llvm.mlir.global internal constant @answer(42 : i32) {addr_space = 0 : i32} : i32
llvm.mlir.global private constant @hello("hello\00") {addr_space = 0 : i32}
llvm.mlir.global private constant @quarters(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) {addr_space = 0 : i32, alignment = 16 : i64} : !llvm.array<4 x f32>
llvm.mlir.global internal constant @grid(dense<[[0, 1, 2], [10, 11, 12]]> : tensor<2x3xi32>) : !llvm.array<2 x array<3 x i32>>
llvm.mlir.global internal constant @sevens(dense<7> : tensor<3xi64>) : !llvm.array<3 x i64>
llvm.mlir.global internal @counter(0 : i64) : i64

llvm.func @scalar() -> i32 {
  %p = llvm.mlir.addressof @answer : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> i32
  llvm.return %v : i32
}

llvm.func @third_char() -> i32 {
  %p = llvm.mlir.addressof @hello : !llvm.ptr
  %q = llvm.getelementptr inbounds|nuw %p[0, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<6 x i8>
  %c = llvm.load %q : !llvm.ptr -> i8
  %r = llvm.zext %c : i8 to i32
  llvm.return %r : i32
}

llvm.func @sum_f32() -> f32 {
  %p = llvm.mlir.addressof @quarters : !llvm.ptr
  %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
  %r = llvm.call @lane_sum(%v) : (vector<4xf32>) -> f32
  llvm.return %r : f32
}

llvm.func @lane_sum(%v: vector<4xf32>) -> f32 {
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i1 = llvm.mlir.constant(1 : i32) : i32
  %i2 = llvm.mlir.constant(2 : i32) : i32
  %i3 = llvm.mlir.constant(3 : i32) : i32
  %a = llvm.extractelement %v[%i0 : i32] : vector<4xf32>
  %b = llvm.extractelement %v[%i1 : i32] : vector<4xf32>
  %c = llvm.extractelement %v[%i2 : i32] : vector<4xf32>
  %d = llvm.extractelement %v[%i3 : i32] : vector<4xf32>
  %ab = llvm.fadd %a, %b : f32
  %cd = llvm.fadd %c, %d : f32
  %r = llvm.fadd %ab, %cd : f32
  llvm.return %r : f32
}

llvm.func @element_1_2() -> i32 {
  %p = llvm.mlir.addressof @grid : !llvm.ptr
  %q = llvm.getelementptr %p[0, 1, 2] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x array<3 x i32>>
  %v = llvm.load %q : !llvm.ptr -> i32
  llvm.return %v : i32
}

llvm.func @splat_sum() -> i64 {
  %p = llvm.mlir.addressof @sevens : !llvm.ptr
  %v = llvm.load %p : !llvm.ptr -> !llvm.array<3 x i64>
  %a = llvm.extractvalue %v[0] : !llvm.array<3 x i64>
  %b = llvm.extractvalue %v[1] : !llvm.array<3 x i64>
  %c = llvm.extractvalue %v[2] : !llvm.array<3 x i64>
  %ab = llvm.add %a, %b : i64
  %r = llvm.add %ab, %c : i64
  llvm.return %r : i64
}

// Adds 1..n to a global that starts at 0 and returns it.
llvm.func @count_up(%n: i64) -> i64 {
  %p = llvm.mlir.addressof @counter : !llvm.ptr
  %zero = llvm.mlir.constant(0 : i64) : i64
  llvm.store %zero, %p : i64, !llvm.ptr
  %one = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^loop(%one : i64)
^loop(%i: i64):
  %done = llvm.icmp "sgt" %i, %n : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %old = llvm.load %p : !llvm.ptr -> i64
  %new = llvm.add %old, %i : i64
  llvm.store %new, %p : i64, !llvm.ptr
  %next = llvm.add %i, %one : i64
  llvm.br ^loop(%next : i64)
^exit:
  %r = llvm.load %p : !llvm.ptr -> i64
  llvm.return %r : i64
}

llvm.func @leading_zeros(%x: i32) -> i32 {
  %r = "llvm.intr.ctlz"(%x) <{is_zero_poison = false}> : (i32) -> i32
  llvm.return %r : i32
}

llvm.func @magnitude(%x: i32) -> i32 {
  %r = "llvm.intr.abs"(%x) <{is_int_min_poison = false}> : (i32) -> i32
  llvm.return %r : i32
}

// memcpy of the four quarters into a stack buffer, then their sum.
llvm.func @copied_sum() -> f32 {
  %n = llvm.mlir.constant(4 : i64) : i64
  %buf = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %src = llvm.mlir.addressof @quarters : !llvm.ptr
  %bytes = llvm.mlir.constant(16 : i64) : i64
  "llvm.intr.memcpy"(%buf, %src, %bytes) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
  %v = llvm.load %buf : !llvm.ptr -> vector<4xf32>
  %r = llvm.call @lane_sum(%v) : (vector<4xf32>) -> f32
  llvm.return %r : f32
}

llvm.func @increment(%x: i64) -> i64 {
  %one = llvm.mlir.constant(1 : i64) : i64
  %r = llvm.add %x, %one : i64
  llvm.return %r : i64
}

llvm.func @through_pointer(%x: i64) -> i64 {
  %f = llvm.mlir.addressof @increment : !llvm.ptr
  %r = llvm.call %f(%x) : !llvm.ptr, (i64) -> i64
  llvm.return %r : i64
}

// <a, b> shuffled to <b, a, b, a>: returns lane 0 + 2 * lane 1, b + 2a.
llvm.func @lanes(%a: f32, %b: f32) -> f32 {
  %u = llvm.mlir.undef : vector<2xf32>
  %i0 = llvm.mlir.constant(0 : i32) : i32
  %i1 = llvm.mlir.constant(1 : i64) : i64
  %v0 = llvm.insertelement %a, %u[%i0 : i32] : vector<2xf32>
  %v = llvm.insertelement %b, %v0[%i1 : i64] : vector<2xf32>
  %s = llvm.shufflevector %v, %v [1, 0, 1, 0] : vector<2xf32>
  %x = llvm.extractelement %s[%i0 : i32] : vector<4xf32>
  %y = llvm.extractelement %s[%i1 : i64] : vector<4xf32>
  %y2 = llvm.fadd %y, %y : f32
  %r = llvm.fadd %x, %y2 : f32
  llvm.return %r : f32
}
