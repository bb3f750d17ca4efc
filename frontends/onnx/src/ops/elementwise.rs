//! Elementwise operators: unary math and activations, binary arithmetic and comparison with
//! broadcasting, variadic Max/Min/Sum/Mean, Where, Cast.

use super::{broadcast, broadcast_index};
use crate::graph::*;

/// Operators of one input (Clip's bounds, CastLike's target and Dropout's ratio are parameters).
pub const UNARY: &[&str] = &[
    "Neg",
    "Abs",
    "Sqrt",
    "Reciprocal",
    "Exp",
    "Log",
    "Erf",
    "Tanh",
    "Sigmoid",
    "Relu",
    "LeakyRelu",
    "Elu",
    "Selu",
    "HardSigmoid",
    "HardSwish",
    "Softplus",
    "Gelu",
    "Clip",
    "Floor",
    "Ceil",
    "Round",
    "Sign",
    "Not",
    "Cast",
    "CastLike",
    "Identity",
    "Dropout",
    "Sin",
    "Cos",
];

/// Operators of two inputs, broadcast.
pub const BINARY: &[&str] = &[
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Mod",
    "Equal",
    "Less",
    "LessOrEqual",
    "Greater",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "PRelu",
];

/// Operators of any number of inputs, broadcast.
pub const VARIADIC: &[&str] = &["Max", "Min", "Sum", "Mean", "Where"];

/// Every elementwise operator: one `kernel.generic` over the output's shape, each input read
/// at its broadcast map.
struct Elementwise;

impl super::OnnxOp for Elementwise {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        infer(node, g)
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        // Large float tensors (weights) are not worth folding element by element.
        let total: usize = inputs.iter().flatten().map(|t| t.ty.numel()).sum();
        (total <= 1 << 16).then(|| fold(node, inputs))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_elementwise(node, g)
    }
}

pub fn register(r: &mut super::Registry) {
    for names in [UNARY, BINARY, VARIADIC] {
        r.register(names, &Elementwise);
    }
}

pub fn is_comparison(op: &str) -> bool {
    matches!(op, "Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual" | "And" | "Or" | "Xor" | "Not")
}

/// Operands that are data (Clip's min/max and CastLike's target are parameters).
pub fn data_inputs(node: &Node) -> Vec<&str> {
    let n = match node.op.as_str() {
        "Clip" | "CastLike" | "Dropout" => 1,
        _ => node.inputs.len(),
    };
    node.inputs.iter().take(n).filter(|s| !s.is_empty()).map(String::as_str).collect()
}

pub fn result_dtype(node: &Node, g: &Graph) -> OResult<DType> {
    let first = g.ty(&node.inputs[0])?.dtype;
    Ok(match node.op.as_str() {
        op if is_comparison(op) => DType::Bool,
        "Cast" => {
            let to = node.int("to", 0) as i32;
            DType::from_onnx(to).ok_or_else(|| {
                OnnxError::msg(format!("Cast to element type {} ({to}) is not supported", DType::onnx_name(to)))
            })?
        }
        "CastLike" => g.ty(&node.inputs[1])?.dtype,
        "Where" => g.ty(&node.inputs[1])?.dtype,
        _ => first,
    })
}

pub fn infer(node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
    let mut shape: Vec<usize> = Vec::new();
    let data = data_inputs(node);
    if data.is_empty() {
        return err("needs at least one input");
    }
    for (i, x) in data.iter().enumerate() {
        let t = g.ty(x)?;
        shape = if i == 0 {
            t.shape.clone()
        } else {
            broadcast(&shape, &t.shape)
                .map_err(|e| OnnxError::msg(format!("inputs '{}' and '{}': {}", data[0], x, e.message)))?
        };
    }
    if !matches!(node.op.as_str(), "Where" | "Cast" | "CastLike") && !is_comparison(&node.op) {
        let d0 = g.ty(data[0])?.dtype;
        for x in &data[1..] {
            let d = g.ty(x)?.dtype;
            if d != d0 && node.op != "Pow" {
                return err(format!(
                    "inputs '{}' ({}) and '{x}' ({}) have different element types",
                    data[0],
                    d0.name(),
                    d.name()
                ));
            }
        }
    }
    if node.op == "Dropout" {
        // Inference only: training mode (attribute before 12, input after) would drop values.
        let training = node.int("is_test", 1) == 0 && node.opset < 7
            || match node.input(2) {
                Some(name) => g.consts.get(name).is_none_or(|t| t.to_f64().first().copied().unwrap_or(0.0) != 0.0),
                None => false,
            };
        let ratio = match node.input(1) {
            Some(name) => g.consts.get(name).and_then(|t| t.to_f64().first().copied()),
            None => Some(node.float("ratio", 0.5) as f64),
        };
        // With ratio 0 training mode keeps every value: the result is the input.
        if training && ratio != Some(0.0) {
            return err("Dropout in training mode is not supported (xcc compiles inference graphs)");
        }
    }
    let mut out = vec![TensorType { dtype: result_dtype(node, g)?, shape }];
    if node.op == "Dropout" && node.outputs.len() > 1 {
        out.push(TensorType { dtype: DType::Bool, shape: out[0].shape.clone() });
    }
    Ok(out)
}

/// Scalar semantics in f64 (exact for the integers shape arithmetic uses), shared by folding.
pub fn scalar(node: &Node, dtype: DType, args: &[f64], params: &[f64]) -> f64 {
    let int = !dtype.is_float();
    let a = args[0];
    let b = args.get(1).copied().unwrap_or(0.0);
    let alpha = |d: f32| node.float("alpha", d) as f64;
    let r = match node.op.as_str() {
        "Neg" => -a,
        "Abs" => a.abs(),
        "Sqrt" => a.sqrt(),
        "Reciprocal" => 1.0 / a,
        "Exp" => a.exp(),
        "Log" => a.ln(),
        "Sin" => a.sin(),
        "Cos" => a.cos(),
        "Erf" => erf(a),
        "Tanh" => a.tanh(),
        "Sigmoid" => 1.0 / (1.0 + (-a).exp()),
        "Relu" => a.max(0.0),
        "LeakyRelu" => {
            if a < 0.0 {
                alpha(0.01) * a
            } else {
                a
            }
        }
        "Elu" => {
            if a < 0.0 {
                alpha(1.0) * (a.exp() - 1.0)
            } else {
                a
            }
        }
        "Selu" => {
            let g = node.float("gamma", 1.050_701) as f64;
            if a <= 0.0 {
                g * (alpha(1.673_263_2) * a.exp() - alpha(1.673_263_2))
            } else {
                g * a
            }
        }
        "HardSigmoid" => (alpha(0.2) * a + node.float("beta", 0.5) as f64).clamp(0.0, 1.0),
        "HardSwish" => a * (a / 6.0 + 0.5).clamp(0.0, 1.0),
        "Softplus" => (1.0 + a.exp()).ln(),
        "Gelu" => {
            if node.string("approximate") == Some("tanh") {
                0.5 * a * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (a + 0.044715 * a * a * a)).tanh())
            } else {
                0.5 * a * (1.0 + erf(a / std::f64::consts::SQRT_2))
            }
        }
        "Clip" => {
            let lo = params.first().copied().unwrap_or(f64::NEG_INFINITY);
            let hi = params.get(1).copied().unwrap_or(f64::INFINITY);
            a.max(lo).min(hi)
        }
        "Floor" => a.floor(),
        "Ceil" => a.ceil(),
        "Round" => a.round_ties_even(),
        "Sign" => {
            if a > 0.0 {
                1.0
            } else if a < 0.0 {
                -1.0
            } else {
                0.0
            }
        }
        "Not" => (a == 0.0) as i32 as f64,
        "Cast" | "CastLike" | "Identity" | "Dropout" => a,
        "Add" | "Sum" => args.iter().sum(),
        "Mean" => args.iter().sum::<f64>() / args.len() as f64,
        "Sub" => a - b,
        "Mul" => a * b,
        "Div" => {
            if int {
                if b == 0.0 {
                    0.0
                } else {
                    (a / b).trunc()
                }
            } else {
                a / b
            }
        }
        "Pow" => a.powf(b),
        "Mod" => {
            if node.int("fmod", 0) == 1 {
                a % b
            } else if b == 0.0 {
                0.0
            } else {
                let r = a % b;
                if r != 0.0 && ((r < 0.0) != (b < 0.0)) {
                    r + b
                } else {
                    r
                }
            }
        }
        "PRelu" => {
            if a < 0.0 {
                a * b
            } else {
                a
            }
        }
        "Max" => args.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        "Min" => args.iter().copied().fold(f64::INFINITY, f64::min),
        "Where" => {
            if a != 0.0 {
                b
            } else {
                args[2]
            }
        }
        "Equal" => (a == b) as i32 as f64,
        "Less" => (a < b) as i32 as f64,
        "LessOrEqual" => (a <= b) as i32 as f64,
        "Greater" => (a > b) as i32 as f64,
        "GreaterOrEqual" => (a >= b) as i32 as f64,
        "And" => (a != 0.0 && b != 0.0) as i32 as f64,
        "Or" => (a != 0.0 || b != 0.0) as i32 as f64,
        "Xor" => ((a != 0.0) != (b != 0.0)) as i32 as f64,
        _ => f64::NAN,
    };
    if int && dtype != DType::Bool {
        r.trunc()
    } else {
        r
    }
}

/// Abramowitz-Stegun 7.1.26 is not accurate enough; use the series/continued fraction split.
pub fn erf(x: f64) -> f64 {
    if x.abs() < 2.5 {
        // Maclaurin series, converges quickly for |x| < 2.5.
        let mut sum = x;
        let mut term = x;
        let x2 = x * x;
        for n in 1..80 {
            term *= -x2 / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // Continued fraction for erfc.
        let ax = x.abs();
        let mut f = 0.0;
        for n in (1..60).rev() {
            f = n as f64 / 2.0 / (ax + f);
        }
        let erfc = (-ax * ax).exp() / std::f64::consts::PI.sqrt() / (ax + f);
        (1.0 - erfc) * x.signum()
    }
}

pub fn fold(node: &Node, inputs: &[Option<&Tensor>]) -> OResult<Vec<Tensor>> {
    let n_data = match node.op.as_str() {
        "Clip" | "CastLike" | "Dropout" => 1,
        _ => inputs.len(),
    };
    let data: Vec<&Tensor> = inputs[..n_data].iter().flatten().copied().collect();
    let params: Vec<f64> = if node.op == "Clip" {
        let mut p = vec![node.float("min", f32::NEG_INFINITY) as f64, node.float("max", f32::INFINITY) as f64];
        for (i, t) in inputs.iter().enumerate().skip(1) {
            if let Some(t) = t {
                p[i - 1] = t.to_f64()[0];
            }
        }
        p
    } else {
        Vec::new()
    };
    let mut shape = data[0].ty.shape.clone();
    for t in &data[1..] {
        shape = broadcast(&shape, &t.ty.shape)?;
    }
    let dtype = match node.op.as_str() {
        op if is_comparison(op) => DType::Bool,
        "Cast" => {
            DType::from_onnx(node.int("to", 0) as i32).ok_or_else(|| OnnxError::msg("unsupported Cast target"))?
        }
        "CastLike" => inputs[1].map(|t| t.ty.dtype).unwrap_or(DType::F32),
        "Where" => data[1].ty.dtype,
        _ => data[0].ty.dtype,
    };
    let compute_dtype =
        if is_comparison(&node.op) || node.op == "Where" { data[data.len() - 1].ty.dtype } else { data[0].ty.dtype };
    let values: Vec<Vec<f64>> = data.iter().map(|t| t.to_f64()).collect();
    let numel: usize = shape.iter().product();
    let mut out = Vec::with_capacity(numel);
    let mut args = vec![0.0; data.len()];
    for i in 0..numel {
        for (k, t) in data.iter().enumerate() {
            args[k] = values[k][broadcast_index(&shape, &t.ty.shape, i)];
        }
        out.push(scalar(node, compute_dtype, &args, &params));
    }
    let out = if dtype.is_float() || dtype == DType::Bool { out } else { out.into_iter().map(f64::trunc).collect() };
    let mut result = vec![Tensor::from_f64(dtype, shape.clone(), &out)];
    if node.op == "Dropout" && node.outputs.len() > 1 {
        result.push(Tensor::from_f64(DType::Bool, shape, &vec![1.0; numel]));
    }
    Ok(result)
}

use crate::emit::LoopBuilder;
use crate::emit::{broadcast_map, compute_type, identity, Emitter};
use xcc_ir::affine::AffineMap;
use xcc_ir::types::FloatKind;
use xcc_ir::{Type, ValueId};

impl Emitter {
    pub fn emit_elementwise(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let out_t = g.ty(&node.outputs[0])?.clone();
        let data = data_inputs(node);
        let in_types: Vec<TensorType> = data.iter().map(|x| g.ty(x).cloned()).collect::<OResult<_>>()?;
        let params = clip_params(node, g)?;
        let operand_dtype = if node.op == "Where" { in_types[1].dtype } else { in_types[0].dtype };
        let shape = out_t.shape.clone();
        let inputs: Vec<(ValueId, AffineMap)> = data
            .iter()
            .zip(&in_types)
            .map(|(x, t)| Ok((self.buf(x)?, broadcast_map(&t.shape, &shape))))
            .collect::<OResult<_>>()?;
        let mut outputs = vec![(self.buf(&node.outputs[0])?, identity(shape.len()))];
        let mask = node.op == "Dropout" && node.outputs.get(1).is_some_and(|o| !o.is_empty());
        if mask {
            outputs.push((self.buf(&node.outputs[1])?, identity(shape.len())));
        }
        let n_in = inputs.len();
        self.generic(&inputs, &outputs, vec![true; shape.len()], |e, args| {
            // f16 elements compute in f32.
            let widened: Vec<ValueId> = args[..n_in]
                .iter()
                .map(|&a| {
                    if e.ty(a) == Type::Float(FloatKind::F16) {
                        e.value_op("arith.extf", &[a], Type::f32())
                    } else {
                        a
                    }
                })
                .collect();
            let v = e.scalar(node, operand_dtype, out_t.dtype, &widened, &params)?;
            let out_elem = out_t.dtype.ir_type();
            let v = if e.ty(v) != out_elem { e.value_op("arith.truncf", &[v], out_elem) } else { v };
            let mut results = vec![v];
            if mask {
                results.push(e.const_int(1, Type::i1()));
            }
            Ok(results)
        })
    }

    /// One element of `node`'s result from its operands' elements.
    pub fn scalar(
        &mut self,
        node: &Node,
        dtype: DType,
        out_dtype: DType,
        args: &[ValueId],
        params: &[f64],
    ) -> OResult<ValueId> {
        let t = compute_type(dtype);
        let float = dtype.is_float();
        let a = args[0];
        let b = args.get(1).copied().unwrap_or(a);
        let f = |e: &mut Self, name: &str, ops: &[ValueId]| e.value_op(name, ops, t.clone());
        let c = |e: &mut Self, v: f64| e.const_of(v, dtype);
        let alpha = node.float(
            "alpha",
            match node.op.as_str() {
                "LeakyRelu" => 0.01,
                "HardSigmoid" => 0.2,
                "Selu" => 1.673_263_2,
                _ => 1.0,
            },
        ) as f64;
        let v = match (node.op.as_str(), float) {
            ("Identity" | "Dropout", _) => a,
            ("Add", true) | ("Sum", true) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.addf", &[acc, x])),
            ("Add", false) | ("Sum", false) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.addi", &[acc, x])),
            ("Mean", true) => {
                let s = args[1..].iter().fold(a, |acc, &x| f(self, "arith.addf", &[acc, x]));
                let n = c(self, args.len() as f64);
                f(self, "arith.divf", &[s, n])
            }
            ("Sub", true) => f(self, "arith.subf", &[a, b]),
            ("Sub", false) => f(self, "arith.subi", &[a, b]),
            ("Mul", true) => f(self, "arith.mulf", &[a, b]),
            ("Mul", false) => f(self, "arith.muli", &[a, b]),
            ("Div", true) => f(self, "arith.divf", &[a, b]),
            ("Div", false) => f(self, if dtype == DType::U8 { "arith.divui" } else { "arith.divsi" }, &[a, b]),
            ("Pow", true) => {
                // The exponent may have another element type (Pow-15 allows int exponents).
                let b = if self.m.ty(b) != &t { self.convert(b, exponent_dtype(self.m.ty(b)), dtype) } else { b };
                f(self, "math.powf", &[a, b])
            }
            ("Pow", false) => {
                // Integer powers through f64, exact for every result an integer type can hold.
                let f64t = Type::Float(xcc_ir::types::FloatKind::F64);
                let af = self.convert(a, dtype, DType::F64);
                let bf = self.convert(b, exponent_dtype(self.m.ty(b)), DType::F64);
                let p = self.value_op("math.powf", &[af, bf], f64t);
                self.convert(p, DType::F64, dtype)
            }
            ("Mod", true) if node.int("fmod", 0) == 1 => f(self, "arith.remf", &[a, b]),
            ("Mod", false) if node.int("fmod", 0) == 1 => f(self, "arith.remsi", &[a, b]),
            ("Mod", _) => {
                // Without fmod, Mod takes the divisor's sign: r = a rem b; r != 0 && sign(r) != sign(b) ? r + b : r.
                let (rem, add) = if float { ("arith.remf", "arith.addf") } else { ("arith.remsi", "arith.addi") };
                let r = f(self, rem, &[a, b]);
                let zero = c(self, 0.0);
                let (nz, rn, bn) = if float {
                    (self.cmpf("une", r, zero), self.cmpf("olt", r, zero), self.cmpf("olt", b, zero))
                } else {
                    (self.cmpi("ne", r, zero), self.cmpi("slt", r, zero), self.cmpi("slt", b, zero))
                };
                let differ = self.value_op("arith.xori", &[rn, bn], Type::i1());
                let fix = self.value_op("arith.andi", &[nz, differ], Type::i1());
                let rb = f(self, add, &[r, b]);
                f(self, "arith.select", &[fix, rb, r])
            }
            ("Max", true) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.maximumf", &[acc, x])),
            ("Min", true) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.minimumf", &[acc, x])),
            ("Max", false) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.maxsi", &[acc, x])),
            ("Min", false) => args[1..].iter().fold(a, |acc, &x| f(self, "arith.minsi", &[acc, x])),
            ("Where", _) => self.value_op("arith.select", &[a, args[1], args[2]], compute_type(out_dtype)),
            ("Neg", true) => f(self, "arith.negf", &[a]),
            ("Neg", false) => {
                let z = c(self, 0.0);
                f(self, "arith.subi", &[z, a])
            }
            ("Abs", true) => f(self, "math.absf", &[a]),
            ("Abs", false) => {
                let z = c(self, 0.0);
                let n = f(self, "arith.subi", &[z, a]);
                f(self, "arith.maxsi", &[a, n])
            }
            ("Sqrt", true) => f(self, "math.sqrt", &[a]),
            ("Reciprocal", true) => {
                let one = c(self, 1.0);
                f(self, "arith.divf", &[one, a])
            }
            ("Exp", true) => f(self, "math.exp", &[a]),
            ("Log", true) => f(self, "math.log", &[a]),
            ("Sin", true) => f(self, "math.sin", &[a]),
            ("Cos", true) => f(self, "math.cos", &[a]),
            ("Erf", true) => f(self, "math.erf", &[a]),
            ("Tanh", true) => f(self, "math.tanh", &[a]),
            ("Floor", true) => f(self, "math.floor", &[a]),
            ("Ceil", true) => f(self, "math.ceil", &[a]),
            ("Round", true) => f(self, "math.roundeven", &[a]),
            ("Sigmoid", true) => {
                let n = f(self, "arith.negf", &[a]);
                let ex = f(self, "math.exp", &[n]);
                let one = c(self, 1.0);
                let d = f(self, "arith.addf", &[one, ex]);
                f(self, "arith.divf", &[one, d])
            }
            ("Relu", true) => {
                let z = c(self, 0.0);
                f(self, "arith.maximumf", &[a, z])
            }
            ("Relu", false) => {
                let z = c(self, 0.0);
                f(self, "arith.maxsi", &[a, z])
            }
            ("LeakyRelu", true) | ("Elu", true) | ("Selu", true) => {
                let z = c(self, 0.0);
                let al = c(self, alpha);
                let neg = match node.op.as_str() {
                    "LeakyRelu" => f(self, "arith.mulf", &[al, a]),
                    _ => {
                        let ex = f(self, "math.exp", &[a]);
                        let one = c(self, 1.0);
                        let em = f(self, "arith.subf", &[ex, one]);
                        f(self, "arith.mulf", &[al, em])
                    }
                };
                let lt = self.cmpf(if node.op == "Selu" { "ole" } else { "olt" }, a, z);
                let r = f(self, "arith.select", &[lt, neg, a]);
                if node.op == "Selu" {
                    let gm = c(self, node.float("gamma", 1.050_701) as f64);
                    f(self, "arith.mulf", &[gm, r])
                } else {
                    r
                }
            }
            ("HardSigmoid", true) | ("HardSwish", true) => {
                let (al, be) =
                    if node.op == "HardSwish" { (1.0 / 6.0, 0.5) } else { (alpha, node.float("beta", 0.5) as f64) };
                let alv = c(self, al);
                let bev = c(self, be);
                let m = f(self, "arith.mulf", &[alv, a]);
                let s = f(self, "arith.addf", &[m, bev]);
                let z = c(self, 0.0);
                let one = c(self, 1.0);
                let lo = f(self, "arith.maximumf", &[s, z]);
                let hs = f(self, "arith.minimumf", &[lo, one]);
                if node.op == "HardSwish" {
                    f(self, "arith.mulf", &[a, hs])
                } else {
                    hs
                }
            }
            ("Softplus", true) => {
                let ex = f(self, "math.exp", &[a]);
                let one = c(self, 1.0);
                let s = f(self, "arith.addf", &[one, ex]);
                f(self, "math.log", &[s])
            }
            ("Gelu", true) => {
                let half = c(self, 0.5);
                let one = c(self, 1.0);
                let inner = if node.string("approximate") == Some("tanh") {
                    let k = c(self, (2.0 / std::f64::consts::PI).sqrt());
                    let q = c(self, 0.044715);
                    let a3 = f(self, "arith.mulf", &[a, a]);
                    let a3 = f(self, "arith.mulf", &[a3, a]);
                    let t1 = f(self, "arith.mulf", &[q, a3]);
                    let t2 = f(self, "arith.addf", &[a, t1]);
                    let t3 = f(self, "arith.mulf", &[k, t2]);
                    f(self, "math.tanh", &[t3])
                } else {
                    let r = c(self, std::f64::consts::FRAC_1_SQRT_2);
                    let x = f(self, "arith.mulf", &[a, r]);
                    f(self, "math.erf", &[x])
                };
                let s = f(self, "arith.addf", &[one, inner]);
                let h = f(self, "arith.mulf", &[half, a]);
                f(self, "arith.mulf", &[h, s])
            }
            ("Clip", _) => {
                let mut v = a;
                if params[0] > f64::NEG_INFINITY {
                    let lo = c(self, params[0]);
                    v = f(self, if float { "arith.maximumf" } else { "arith.maxsi" }, &[v, lo]);
                }
                if params[1] < f64::INFINITY {
                    let hi = c(self, params[1]);
                    v = f(self, if float { "arith.minimumf" } else { "arith.minsi" }, &[v, hi]);
                }
                v
            }
            ("Sign", _) => {
                let z = c(self, 0.0);
                let one = c(self, 1.0);
                let m1 = c(self, -1.0);
                let (gt, lt) = if float {
                    (self.cmpf("ogt", a, z), self.cmpf("olt", a, z))
                } else {
                    (self.cmpi("sgt", a, z), self.cmpi("slt", a, z))
                };
                let s = f(self, "arith.select", &[lt, m1, z]);
                f(self, "arith.select", &[gt, one, s])
            }
            ("PRelu", true) => {
                let z = c(self, 0.0);
                let lt = self.cmpf("olt", a, z);
                let m = f(self, "arith.mulf", &[a, b]);
                f(self, "arith.select", &[lt, m, a])
            }
            ("Equal" | "Less" | "LessOrEqual" | "Greater" | "GreaterOrEqual", _) => {
                let (fp, ip) = match node.op.as_str() {
                    "Equal" => ("oeq", "eq"),
                    "Less" => ("olt", if dtype == DType::U8 { "ult" } else { "slt" }),
                    "LessOrEqual" => ("ole", if dtype == DType::U8 { "ule" } else { "sle" }),
                    "Greater" => ("ogt", if dtype == DType::U8 { "ugt" } else { "sgt" }),
                    _ => ("oge", if dtype == DType::U8 { "uge" } else { "sge" }),
                };
                if float {
                    self.cmpf(fp, a, b)
                } else {
                    self.cmpi(ip, a, b)
                }
            }
            ("And", _) => self.value_op("arith.andi", &[a, b], Type::i1()),
            ("Or", _) => self.value_op("arith.ori", &[a, b], Type::i1()),
            ("Xor", _) => self.value_op("arith.xori", &[a, b], Type::i1()),
            ("Not", _) => {
                let one = self.const_int(1, Type::i1());
                self.value_op("arith.xori", &[a, one], Type::i1())
            }
            ("Cast" | "CastLike", _) => self.convert(a, dtype, out_dtype),
            (op, _) => return err(format!("{op} is not supported on {} tensors", dtype.name())),
        };
        Ok(v)
    }

    /// Converts one element between element types, with ONNX Cast semantics.
    pub fn convert(&mut self, v: ValueId, from: DType, to: DType) -> ValueId {
        let (ft, tt) = (compute_type(from), compute_type(to));
        if ft == tt {
            return v;
        }
        let unsigned = |d: DType| matches!(d, DType::U8 | DType::Bool);
        match (from.is_float(), to.is_float()) {
            (true, true) => {
                let wider = tt.element_or_self().clone();
                let w = |t: &Type| match t {
                    Type::Float(k) => k.width(),
                    _ => 0,
                };
                self.value_op(if w(&wider) > w(&ft) { "arith.extf" } else { "arith.truncf" }, &[v], tt)
            }
            (false, true) => self.value_op(if unsigned(from) { "arith.uitofp" } else { "arith.sitofp" }, &[v], tt),
            (true, false) if to == DType::Bool => {
                let z = self.const_float(0.0, ft);
                self.cmpf("une", v, z)
            }
            (true, false) => self.value_op(if unsigned(to) { "arith.fptoui" } else { "arith.fptosi" }, &[v], tt),
            (false, false) if to == DType::Bool => {
                let z = self.const_int(0, ft);
                self.cmpi("ne", v, z)
            }
            (false, false) => {
                let (a, b) = (ft.int_width().unwrap_or(64), tt.int_width().unwrap_or(64));
                if b > a {
                    self.value_op(if unsigned(from) { "arith.extui" } else { "arith.extsi" }, &[v], tt)
                } else {
                    self.value_op("arith.trunci", &[v], tt)
                }
            }
        }
    }
}

/// The element type of a loaded exponent value, from its IR type.
fn exponent_dtype(t: &Type) -> DType {
    match t {
        Type::Float(xcc_ir::types::FloatKind::F64) => DType::F64,
        Type::Float(_) => DType::F32,
        Type::Integer { width: 8, .. } => DType::I8,
        Type::Integer { width: 16, .. } => DType::I16,
        Type::Integer { width: 32, .. } => DType::I32,
        _ => DType::I64,
    }
}

/// Clip's bounds: attributes before opset 11, optional constant inputs after.
fn clip_params(node: &Node, g: &Graph) -> OResult<Vec<f64>> {
    if node.op != "Clip" {
        return Ok(Vec::new());
    }
    let mut p = vec![node.float("min", f32::NEG_INFINITY) as f64, node.float("max", f32::INFINITY) as f64];
    for i in 1..3 {
        if let Some(name) = node.input(i) {
            let t =
                g.consts.get(name).ok_or_else(|| OnnxError::msg(format!("Clip bound '{name}' must be a constant")))?;
            p[i - 1] = t.to_f64()[0];
        }
    }
    Ok(p)
}
