// RUN: --passes=cpu-dispatch
// cpu-dispatch after outline-wide-signatures: the optnone wrapper keeps its code and is neither
// copied nor dispatched (it calls the body by name); the internal body marked
// xcc.dispatch_entry becomes the dispatcher, with a copy per CPU and a baseline copy.

// CHECK-LABEL: llvm.func @w(%arg0: i64) -> (i64) attributes {passthrough = ["noinline", "optnone"]} {
// CHECK: llvm.call @w.body({{%[0-9]+}}) : (!llvm.ptr) -> i64
// CHECK-LABEL: llvm.func internal @w.body(%arg0: !llvm.ptr) -> (i64) attributes {xcc.dispatch_entry} {
// CHECK-NEXT: [[L:%[0-9]+]] = llvm.call @xcc_cpu_level() : () -> i32
// CHECK: llvm.call @w.body.x86_64_v4(%arg0) : (!llvm.ptr) -> i64
// CHECK: llvm.call @w.body.x86_64_v3(%arg0) : (!llvm.ptr) -> i64
// CHECK: llvm.call @w.body.base(%arg0) : (!llvm.ptr) -> i64
// CHECK-NOT: @w.x86_64
// CHECK-LABEL: llvm.func internal @w.body.x86_64_v4(%arg0: !llvm.ptr) -> (i64) attributes {target_cpu = "x86-64-v4"
// CHECK-LABEL: llvm.func internal @w.body.base(%arg0: !llvm.ptr) -> (i64) attributes {passthrough = ["optsize"], xcc.dispatch_entry} {
llvm.func @w(%x: i64) -> i64 attributes {passthrough = ["noinline", "optnone"]} {
  %n = llvm.mlir.constant(1 : i64) : i64
  %s = llvm.alloca %n x i64 : (i64) -> !llvm.ptr
  llvm.store %x, %s : i64, !llvm.ptr
  %r = llvm.call @w.body(%s) : (!llvm.ptr) -> i64
  llvm.return %r : i64
}
llvm.func internal @w.body(%s: !llvm.ptr) -> i64 attributes {xcc.dispatch_entry} {
  %x = llvm.load %s : !llvm.ptr -> i64
  %y = llvm.add %x, %x : i64
  llvm.return %y : i64
}
