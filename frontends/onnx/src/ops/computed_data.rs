//! Shape inputs computed by other nodes from input data, as a model's functions expand
//! (CenterCropPad: `pads = Concat(Div(Max(Shape(x), shape) - Shape(x), 2), ...)`): the elements
//! of a small integer tensor, followed back through integer arithmetic, Concat, Gather and the
//! reshapes to constants, dims and graph inputs' elements, as expressions the run computes
//! before anything else ([`DataExpr`]); a float graph input's elements cast to integers too
//! (OneHot's depth). The nodes themselves still run as usual; only their
//! results' values are known this way too.

use crate::data_dim::DataOp;
use crate::graph::*;
use crate::ops::shapes::input_elements;

/// The most elements a computed shape input may have (a shape, pads, axes: a handful).
const MAX_ELEMENTS: usize = 64;

/// The elements of tensor `name` as run-time values, when it is an integer tensor of rank 0 or 1
/// computed from constants, dims and graph inputs' elements by the operators listed here.
pub fn computed_data(g: &Graph, name: &str) -> OResult<Option<Vec<DataExpr>>> {
    if let Some(t) = g.consts.get(name) {
        return Ok(Some(t.to_i64().into_iter().map(DataExpr::num).collect()));
    }
    if let Some(v) = g.shape_values.get(name) {
        return Ok(Some(v.values.iter().cloned().map(DataExpr::Dim).collect()));
    }
    let Some(t) = g.types.get(name) else { return Ok(None) };
    if g.inputs.iter().any(|x| x == name) {
        return Ok(input_elements(g, name));
    }
    if t.is_dynamic() || t.shape.len() > 1 || t.numel() > MAX_ELEMENTS {
        return Ok(None);
    }
    let Some(node) = g.nodes.iter().find(|n| n.outputs.iter().any(|o| o == name)) else { return Ok(None) };
    // A real cast to an integer (toward zero) or to a bool (not zero): a trip count and its
    // condition computed in floats, as Range's function computes them.
    let from_real = node.op == "Cast" && g.ty(&node.inputs[0])?.dtype.is_float();
    if from_real && matches!(t.dtype, DType::I64 | DType::Bool) {
        let Some(reals) = real_data(g, &node.inputs[0])? else { return Ok(None) };
        let zero = DataExpr::num(0);
        let convert = |x: &DataExpr| match t.dtype {
            DType::Bool => x.real(DataOp::RealLt, &zero).max(&zero.real(DataOp::RealLt, x)),
            _ => truncated(x),
        };
        return Ok(Some(reals.iter().map(convert).collect()));
    }
    // Computed in 64 bits, as the run computes dims; an int32 result (an int32 Range's count)
    // wraps as int32 arithmetic would.
    if !matches!(t.dtype, DType::I64 | DType::I32) {
        return Ok(None);
    }
    // A string's element is its address: a Cast from strings parses them only when it runs.
    if node.inputs.iter().filter(|s| !s.is_empty()).any(|i| g.ty(i).is_ok_and(|t| t.dtype == DType::Str)) {
        return Ok(None);
    }
    let mut args = Vec::new();
    for input in node.inputs.iter().filter(|s| !s.is_empty()) {
        match computed_data(g, input)? {
            Some(v) => args.push(v),
            None => return Ok(None),
        }
    }
    let values = match node.op.as_str() {
        "Add" | "Sub" | "Mul" | "Div" | "Max" | "Min" => elementwise(g, &node.op, &args)?,
        "Neg" => args.first().map(|a| a.iter().map(|x| DataExpr::num(0).sub(x)).collect()),
        "Identity" | "Cast" | "Unsqueeze" | "Squeeze" | "Reshape" | "Flatten" => args.into_iter().next(),
        "Concat" => Some(args.concat()),
        "Gather" => gather(g, node, &args),
        "Slice" => slice(g, node, &args),
        "Split" => split(g, node, name, &args),
        _ => None,
    };
    let values = match t.dtype {
        DType::I32 => values.map(|v| v.iter().map(wrapped_to_i32).collect()),
        _ => values,
    };
    Ok(values.filter(|v| v.len() == t.numel()))
}

/// `x` wrapped into int32's range, as a 32-bit result keeps its low bits:
/// `x - 2^32 * floor((x + 2^31) / 2^32)`.
fn wrapped_to_i32(x: &DataExpr) -> DataExpr {
    let (half, whole) = (DataExpr::num(1 << 31), DataExpr::num(1 << 32));
    x.sub(&x.add(&half).floor_div(&whole).mul(&whole))
}

/// `op` over the arguments, broadcast (each has the result's length or one element); a Div by
/// zero is a run-time check.
fn elementwise(g: &Graph, op: &str, args: &[Vec<DataExpr>]) -> OResult<Option<Vec<DataExpr>>> {
    let n = args.iter().map(Vec::len).max().unwrap_or(0);
    if args.is_empty() || args.iter().any(|a| a.len() != n && a.len() != 1) {
        return Ok(None);
    }
    let at = |a: &Vec<DataExpr>, k: usize| a[if a.len() == 1 { 0 } else { k }].clone();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let mut acc = at(&args[0], k);
        for a in &args[1..] {
            let b = at(a, k);
            acc = match op {
                "Add" => acc.add(&b),
                "Sub" => acc.sub(&b),
                "Mul" => acc.mul(&b),
                "Max" => acc.max(&b),
                "Min" => acc.min(&b),
                _ => {
                    g.require(b.eq(&DataExpr::num(0)).not(), "an integer Div computing a shape divides by 0")?;
                    acc.trunc_div(&b)
                }
            };
        }
        out.push(acc);
    }
    Ok(Some(out))
}

/// A vector's elements from constant starts, ends and steps (opset 10 and later: inputs).
fn slice(g: &Graph, node: &Node, args: &[Vec<DataExpr>]) -> Option<Vec<DataExpr>> {
    let data = args.first()?;
    let constant = |i: usize| node.input(i).map(|n| g.consts.get(n).map(Tensor::to_i64));
    let one = |i: usize| -> Option<Option<i64>> {
        match constant(i) {
            None => Some(None),
            Some(Some(v)) if v.len() == 1 => Some(Some(v[0])),
            Some(_) => None,
        }
    };
    let (start, end, axis, step) = (one(1)??, one(2)??, one(3)?, one(4)?);
    if axis.is_some_and(|a| a != 0 && a != -1) || step.is_some_and(|s| s != 1) {
        return None;
    }
    let n = data.len() as i64;
    let clamp = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
    let (start, end) = (clamp(start), clamp(end));
    Some(data[start as usize..end.max(start) as usize].to_vec())
}

/// The part of a vector that Split writes to output `name`: constant sizes, or equal parts
/// (the last one shorter).
fn split(g: &Graph, node: &Node, name: &str, args: &[Vec<DataExpr>]) -> Option<Vec<DataExpr>> {
    let data = args.first()?;
    if !matches!(node.int("axis", 0), 0 | -1) {
        return None;
    }
    let k = node.outputs.iter().position(|o| o == name)?;
    let sizes: Vec<usize> = match (node.input(1), node.ints("split")) {
        (Some(s), _) => g.consts.get(s)?.to_i64().iter().map(|&v| usize::try_from(v).ok()).collect::<Option<_>>()?,
        (None, Some(s)) => s.iter().map(|&v| usize::try_from(v).ok()).collect::<Option<_>>()?,
        (None, None) => {
            let parts = node.outputs.len();
            let each = data.len().div_ceil(parts);
            (0..parts).map(|p| each.min(data.len().saturating_sub(p * each))).collect()
        }
    };
    let start: usize = sizes.get(..k)?.iter().sum();
    data.get(start..start + sizes.get(k)?).map(<[DataExpr]>::to_vec)
}

/// Gather along axis 0 of a vector at constant indices.
fn gather(g: &Graph, node: &Node, args: &[Vec<DataExpr>]) -> Option<Vec<DataExpr>> {
    let [data, _] = args else { return None };
    if node.int("axis", 0) != 0 {
        return None;
    }
    let indices = g.consts.get(node.input(1)?)?.to_i64();
    let n = data.len() as i64;
    indices.iter().map(|&i| data.get(if i < 0 { i + n } else { i } as usize).cloned()).collect()
}

/// A real converted to an integer as Cast converts it: toward zero. (A NaN or a huge value
/// becomes -1, which the checks on sizes refuse.)
fn truncated(v: &DataExpr) -> DataExpr {
    let negative = v.real(DataOp::RealLt, &DataExpr::num(0));
    negative.select(&v.rounded(DataOp::Ceil), &v.rounded(DataOp::Floor))
}

/// The elements of a small floating-point tensor as reals the run computes first: a constant's
/// whole numbers, a float graph input's elements, integers computed as [`computed_data`]
/// follows them and then cast to a float type (a window function's size), and float32 or
/// float64 arithmetic on those (Add, Sub, Mul, Div, Neg, Ceil, Floor, Relu, a Cast that does not
/// narrow), computed in float64 as the run computes a Range's count from float bounds.
pub fn real_data(g: &Graph, name: &str) -> OResult<Option<Vec<DataExpr>>> {
    if let Some(t) = g.consts.get(name) {
        let v = t.to_f64();
        let whole = v.iter().all(|x| x.fract() == 0.0 && x.abs() < (1u64 << 53) as f64);
        return Ok(whole.then(|| v.iter().map(|&x| DataExpr::num(x as i64)).collect()));
    }
    if g.inputs.iter().any(|x| x == name) {
        let t = g.ty(name)?;
        let small = !t.is_dynamic() && t.shape.len() <= 1 && t.numel() <= MAX_ELEMENTS;
        return Ok(
            (t.dtype.is_float() && small).then(|| (0..t.numel()).map(|k| DataExpr::real_element(name, k)).collect())
        );
    }
    let Some(node) = g.nodes.iter().find(|n| n.outputs.iter().any(|o| o == name)) else { return Ok(None) };
    let wide = |d: DType| matches!(d, DType::F32 | DType::F64);
    let to = g.ty(name)?.dtype;
    let from = match node.input(0) {
        Some(x) => g.ty(x)?.dtype,
        None => return Ok(None),
    };
    match node.op.as_str() {
        "Identity" => real_data(g, &node.inputs[0]),
        "Cast" if !from.is_float() => computed_data(g, &node.inputs[0]),
        "Cast" if wide(from) && (to == DType::F64 || from == to) => real_data(g, &node.inputs[0]),
        // float16 and bfloat16 values are exact in float32: Range's function over them casts up.
        "Cast" if matches!(from, DType::F16 | DType::BF16) && wide(to) => real_data(g, &node.inputs[0]),
        "Add" | "Sub" | "Mul" | "Div" | "Neg" | "Ceil" | "Floor" | "Relu" if wide(to) => real_arithmetic(g, node),
        _ => Ok(None),
    }
}

/// [`real_data`] of a float32 or float64 arithmetic node, one element per argument.
fn real_arithmetic(g: &Graph, node: &Node) -> OResult<Option<Vec<DataExpr>>> {
    let mut args = Vec::new();
    for input in &node.inputs {
        match real_data(g, input)?.as_deref() {
            Some([x]) => args.push(x.clone()),
            _ => return Ok(None),
        }
    }
    let zero = DataExpr::num(0);
    let value = match (node.op.as_str(), args.as_slice()) {
        ("Add", [a, b]) => a.real(DataOp::RealAdd, b),
        ("Sub", [a, b]) => a.real(DataOp::RealSub, b),
        ("Mul", [a, b]) => a.real(DataOp::RealMul, b),
        ("Div", [a, b]) => a.real(DataOp::RealDiv, b),
        ("Neg", [a]) => zero.real(DataOp::RealSub, a),
        ("Ceil", [a]) => a.rounded(DataOp::Ceil),
        ("Floor", [a]) => a.rounded(DataOp::Floor),
        ("Relu", [a]) => a.real(DataOp::RealMax, &zero),
        _ => return Ok(None),
    };
    Ok(Some(vec![value]))
}
