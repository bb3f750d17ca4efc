//! Elementwise operators: binary arithmetic and comparisons (numpy broadcasting, as ONNX's),
//! unary math, `select`, `cast` and `identity`.

use super::{dtype_named, Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("add", |cx| binary(cx, "Add"));
    r.insert("sub", |cx| binary(cx, "Sub"));
    r.insert("mul", |cx| binary(cx, "Mul"));
    r.insert("real_div", |cx| binary(cx, "Div"));
    r.insert("pow", |cx| binary(cx, "Pow"));
    r.insert("maximum", |cx| binary(cx, "Max"));
    r.insert("minimum", |cx| binary(cx, "Min"));
    r.insert("equal", |cx| binary(cx, "Equal"));
    r.insert("less", |cx| binary(cx, "Less"));
    r.insert("less_equal", |cx| binary(cx, "LessOrEqual"));
    r.insert("greater", |cx| binary(cx, "Greater"));
    r.insert("greater_equal", |cx| binary(cx, "GreaterOrEqual"));
    r.insert("logical_and", |cx| binary(cx, "And"));
    r.insert("logical_or", |cx| binary(cx, "Or"));
    r.insert("logical_xor", |cx| binary(cx, "Xor"));
    r.insert("not_equal", not_equal);
    r.insert("floor_div", floor_div);
    r.insert("mod", modulo);
    for (mil, onnx) in [
        ("abs", "Abs"),
        ("acos", "Acos"),
        ("asin", "Asin"),
        ("atan", "Atan"),
        ("atanh", "Atanh"),
        ("ceil", "Ceil"),
        ("cos", "Cos"),
        ("cosh", "Cosh"),
        ("erf", "Erf"),
        ("exp", "Exp"),
        ("floor", "Floor"),
        ("logical_not", "Not"),
        ("round", "Round"),
        ("sign", "Sign"),
        ("sin", "Sin"),
        ("sinh", "Sinh"),
        ("sqrt", "Sqrt"),
        ("tan", "Tan"),
        ("tanh", "Tanh"),
        ("identity", "Identity"),
    ] {
        r.insert(mil, unary_for(onnx));
    }
    r.insert("square", |cx| {
        let x = cx.input("x")?;
        cx.finish("Mul", vec![x.clone(), x], [])
    });
    r.insert("exp2", |cx| {
        let x = cx.input("x")?;
        let two = cx.scalar(2.0, DType::F32);
        cx.finish("Pow", vec![two, x], [])
    });
    r.insert("clip", |cx| {
        let x = cx.input("x")?;
        let (lo, hi) = (cx.float("alpha", 0.0)?, cx.float("beta", 0.0)?);
        let (lo, hi) = (cx.scalar(lo, DType::F32), cx.scalar(hi, DType::F32));
        cx.finish("Clip", vec![x, lo, hi], [])
    });
    r.insert("threshold", |cx| {
        let x = cx.input("x")?;
        let alpha = cx.float("alpha", 0.0)?;
        let alpha = cx.scalar(alpha, DType::F32);
        cx.finish("Max", vec![x, alpha], [])
    });
    // x + epsilon, then the function: MIL's guards against 0.
    r.insert("inverse", |cx| with_epsilon(cx, 1e-4, &["Reciprocal"]));
    r.insert("log", |cx| with_epsilon(cx, 1e-45, &["Log"]));
    r.insert("rsqrt", |cx| with_epsilon(cx, 1e-12, &["Sqrt", "Reciprocal"]));
    r.insert("select", |cx| {
        let (c, a, b) = (cx.input("cond")?, cx.input("a")?, cx.input("b")?);
        cx.finish("Where", vec![c, a, b], [])
    });
    r.insert("cast", |cx| {
        let x = cx.input("x")?;
        let to = dtype_named(&cx.string("dtype", "")?)?;
        cx.finish("Cast", vec![x], [("to", Attr::Int(to.onnx_code() as i64))])
    });
}

/// A unary operator's converter by ONNX name: the registry holds plain function pointers, so each
/// is a closure without captures, chosen by name here.
fn unary_for(onnx: &'static str) -> Convert {
    macro_rules! by_name {
        ($($op:literal),*) => {
            match onnx {
                $($op => |cx: &mut OpContext| { let x = cx.input("x")?; cx.finish($op, vec![x], []) },)*
                _ => unreachable!("every unary operator is listed"),
            }
        };
    }
    by_name!(
        "Abs", "Acos", "Asin", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Erf", "Exp", "Floor", "Not", "Round", "Sign",
        "Sin", "Sinh", "Sqrt", "Tan", "Tanh", "Identity"
    )
}

fn binary(cx: &mut OpContext, onnx: &str) -> Result<(), String> {
    let (x, y) = (cx.input("x")?, cx.input("y")?);
    cx.finish(onnx, vec![x, y], [])
}

fn not_equal(cx: &mut OpContext) -> Result<(), String> {
    let (x, y) = (cx.input("x")?, cx.input("y")?);
    let eq = cx.temp("Equal", vec![x, y], []);
    cx.finish("Not", vec![eq], [])
}

/// floor(x / y) on floats.
fn floor_div(cx: &mut OpContext) -> Result<(), String> {
    let (x, y) = (cx.input("x")?, cx.input("y")?);
    let q = cx.temp("Div", vec![x, y], []);
    cx.finish("Floor", vec![q], [])
}

/// x - floor(x / y) * y: the result takes the divisor's sign (Python's %).
fn modulo(cx: &mut OpContext) -> Result<(), String> {
    let (x, y) = (cx.input("x")?, cx.input("y")?);
    let q = cx.temp("Div", vec![x.clone(), y.clone()], []);
    let f = cx.temp("Floor", vec![q], []);
    let p = cx.temp("Mul", vec![f, y], []);
    cx.finish("Sub", vec![x, p], [])
}

fn with_epsilon(cx: &mut OpContext, default: f64, then: &[&str]) -> Result<(), String> {
    let x = cx.input("x")?;
    let eps = cx.float("epsilon", default)?;
    let eps = cx.scalar(eps, DType::F32);
    let mut v = cx.temp("Add", vec![x, eps], []);
    for (i, op) in then.iter().enumerate() {
        if i + 1 == then.len() {
            return cx.finish(op, vec![v], []);
        }
        v = cx.temp(op, vec![v], []);
    }
    Ok(())
}
