//! Parser, printer and verifier on small modules, through the public API.

use xcc_ir::parser::parse_module;
use xcc_ir::printer::print_module;
use xcc_ir::verifier::verify;

fn round_trip(src: &str) -> String {
    let m = parse_module(src).unwrap_or_else(|d| panic!("parse: {}", d.message));
    verify(&m).unwrap_or_else(|d| panic!("verify: {}", d.message));
    let text = print_module(&m);
    let again = parse_module(&text).unwrap_or_else(|d| panic!("reparse: {}\n{text}", d.message));
    verify(&again).unwrap_or_else(|d| panic!("reverify: {}", d.message));
    assert_eq!(print_module(&again), text, "printing is not a fixed point");
    text
}

fn verify_error(src: &str) -> String {
    let m = parse_module(src).unwrap_or_else(|d| panic!("parse: {}", d.message));
    verify(&m).expect_err("the verifier accepts it").message
}

#[test]
fn custom_forms_print_and_parse_back() {
    let text = round_trip(
        "func.func @f(%a: i32, %b: i32, %m: memref<4xf32>, %i: index) -> i1 {
           %c = arith.addi %a, %b : i32
           %x = arith.extsi %c : i32 to i64
           %v = memref.load %m[%i] : memref<4xf32>
           %w = math.sqrt %v : f32
           memref.store %w, %m[%i] : memref<4xf32>
           %p = arith.cmpi slt, %a, %b : i32
           return %p : i1
         }",
    );
    for line in [
        "%0 = arith.addi %arg0, %arg1 : i32",
        "%1 = arith.extsi %0 : i32 to i64",
        "%2 = memref.load %arg2[%arg3] : memref<4xf32>",
        "%3 = math.sqrt %2 : f32",
        "memref.store %3, %arg2[%arg3] : memref<4xf32>",
        "%4 = arith.cmpi slt, %arg0, %arg1 : i32",
        "func.return %4 : i1",
    ] {
        assert!(text.contains(line), "missing `{line}` in\n{text}");
    }
}

#[test]
fn structured_loops_print_their_headers() {
    let text = round_trip(
        "func.func @f(%n: index, %m: memref<?xf32>) {
           %c0 = arith.constant 0 : index
           %c1 = arith.constant 1 : index
           scf.parallel (%i) = (%c0) to (%n) step (%c1) {
             %z = arith.constant 0.0 : f32
             memref.store %z, %m[%i] : memref<?xf32>
             scf.reduce
           }
           scf.for %j = %c0 to %n step %c1 {
           }
           return
         }",
    );
    assert!(text.contains("scf.parallel (%2) = (%0) to (%arg0) step (%1) {"), "{text}");
    assert!(text.contains("scf.reduce"), "{text}");
    assert!(text.contains("scf.for %4 = %0 to %arg0 step %1 {"), "{text}");
}

#[test]
fn opaque_ops_of_other_dialects_are_kept() {
    let text = round_trip(r#"func.func @f(%a: i32) { "test.op"(%a) <{p = 1 : i32}> {q} : (i32) -> () return }"#);
    assert!(text.contains(r#""test.op"(%arg0) <{p = 1 : i32}> {q} : (i32) -> ()"#), "{text}");
}

#[test]
fn definitions_reject_malformed_generic_ops() {
    let cases = [
        (
            r#"func.func @f(%a: i32) -> i32 { %r = "arith.addi"(%a) : (i32) -> i32 return %r : i32 }"#,
            "'arith.addi': operands: expects 2, found 1",
        ),
        (
            r#"llvm.func @f(%a: i32) -> i32 { %r = "llvm.add"(%a) : (i32) -> i32 llvm.return %r : i32 }"#,
            "'llvm.add': operands: expects 2, found 1",
        ),
        (
            r#"func.func @f(%a: f32) -> f32 { %r = "math.absi"(%a) : (f32) -> f32 return %r : f32 }"#,
            "expects integer operands, found f32",
        ),
        (r#"func.func @f() { "scf.for"() : () -> () return }"#, "'scf.for': operands: expects at least 3, found 0"),
        (r#"func.func @f(%c: i1) { "cf.cond_br"(%c) : (i1) -> () }"#, "successors: expects 2, found 0"),
        (
            r#"func.func @f(%a: i32) -> i1 { %r = "arith.cmpi"(%a, %a) : (i32, i32) -> i1 return %r : i1 }"#,
            "needs the attribute 'predicate'",
        ),
        (r#""llvm.func"() ({}) : () -> ()"#, "needs the attribute 'sym_name'"),
        (r#"func.func @f() { %x = "arith.nope"() : () -> i32 return }"#, "unknown operation 'arith.nope'"),
    ];
    for (src, want) in cases {
        let msg = verify_error(src);
        assert!(msg.contains(want), "`{src}`: expected `{want}`, got `{msg}`");
    }
}

#[test]
fn intrinsic_calls_and_properties_parse() {
    round_trip(
        r#"llvm.func @f(%x: i32) -> i32 {
             %r = "llvm.intr.ctlz"(%x) <{is_zero_poison = false}> : (i32) -> i32
             %s = llvm.intr.ctpop(%r) : (i32) -> i32
             llvm.return %s : i32
           }"#,
    );
}
