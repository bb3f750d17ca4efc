//! Elementwise operators, as data. Each [`ElementwiseOp`] states its element function twice,
//! side by side: as IR for the lowering (one `kernel.generic` over the output, every data input
//! read at its broadcast map) and on f64 for constant folding. The families: `math.rs` (unary
//! math), `activation.rs`, `arith.rs` (binary and variadic arithmetic), `bitwise.rs`, `logic.rs`
//! (comparisons, boolean ops, Where) and `cast.rs` (Cast, CastLike, Identity); Dropout has a file
//! of its own.

mod activation;
mod arith;
mod bitwise;
mod cast;
mod dropout;
mod logic;
mod math;
mod mt19937;
pub mod on_dims;

use crate::emit::{broadcast_map, compute_type, identity, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::schema::Schema;
use crate::ops::shapes::{broadcast, broadcast_dims_in, broadcast_index};
use xcc_ir::affine::AffineMap;
use xcc_ir::{Type, ValueId};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    for op in [math::OPS, activation::OPS, arith::OPS, bitwise::OPS, logic::OPS, cast::OPS].into_iter().flatten() {
        r.register(std::slice::from_ref(&op.name), op, op.schema);
    }
    for op in &cast::CASTS {
        r.register(&[op.name()], op, op.0.schema);
    }
    r.register(&["Dropout"], &dropout::Dropout, Schema::inputs(1, 3));
}

/// One element's context: the node (for attributes), the element type the operation computes
/// on, the result's element type, and the parameters (Clip's bounds): each known at compile
/// time, or read at run time from an input (`runtime[k]`: the element of that input).
pub struct Element<'a> {
    pub node: &'a Node,
    pub dtype: DType,
    pub out: DType,
    pub params: &'a [f64],
    pub runtime: &'a [Option<ValueId>],
}

impl Element<'_> {
    /// Parameter `k` as IR: the run-time value, or the compile-time constant.
    fn param(&self, e: &mut Emitter, k: usize) -> ValueId {
        match self.runtime.get(k).copied().flatten() {
            Some(v) => v,
            None => e.const_of(self.params[k], self.dtype),
        }
    }

    /// Whether parameter `k` constrains anything: a run-time value always may.
    fn param_given(&self, k: usize, unbounded: f64) -> bool {
        self.runtime.get(k).copied().flatten().is_some() || self.params[k] != unbounded
    }

    fn float(&self) -> bool {
        self.dtype.is_float()
    }

    fn attr(&self, name: &str, default: f32) -> f64 {
        self.node.float(name, default) as f64
    }

    /// The error for an operator met with an element type it does not take.
    fn unsupported<T>(&self) -> OResult<T> {
        err(format!("{} is not supported on {} tensors", self.node.op, self.dtype.name()))
    }
}

/// How an operator's element function is emitted.
pub enum Emit {
    /// A unary op (float only) applied to the one operand.
    Unary(&'static str),
    /// A binary op chosen by the element kind (`None`: not supported on it), folded over the
    /// operands from the left (one operand is the result itself).
    Fold {
        float: Option<&'static str>,
        signed: Option<&'static str>,
        unsigned: Option<&'static str>,
    },
    Custom(fn(&mut Emitter, &Element, &[ValueId]) -> OResult<ValueId>),
}

/// The result's element type.
#[derive(Clone, Copy)]
pub enum Output {
    /// The first data input's.
    Operand,
    Bool,
    /// Cast's `to` attribute.
    CastTo,
    /// Input `i`'s (CastLike's target, Where's branches).
    Input(usize),
}

pub struct ElementwiseOp {
    pub name: &'static str,
    /// How many inputs are data (read per element, broadcast); the others are parameters.
    data_inputs: Option<usize>,
    output: Output,
    /// Whether every data input must have the first one's element type.
    same_types: bool,
    /// The data input whose element type the operation computes on.
    operand: usize,
    emit: Emit,
    eval: fn(&Element, &[f64]) -> f64,
    /// The element function on dims, for integer shape arithmetic ([`ShapeValue`]); `None`
    /// for the operators that do not compute on shapes.
    on_dims: Option<DimFn>,
    /// The data input that divides (Div, Mod): with integers, a zero there fails the run.
    divisor: Option<usize>,
    /// The operator's ONNX schema (one input of numbers unless [`ElementwiseOp::schema`]).
    schema: Schema,
}

use on_dims::DimFn;

impl ElementwiseOp {
    pub const fn new(name: &'static str, emit: Emit, eval: fn(&Element, &[f64]) -> f64) -> ElementwiseOp {
        ElementwiseOp {
            name,
            data_inputs: None,
            output: Output::Operand,
            same_types: true,
            operand: 0,
            emit,
            eval,
            on_dims: None,
            divisor: None,
            schema: Schema::exactly(1),
        }
    }

    /// The operator's ONNX schema, when it is not one input of numbers.
    pub const fn schema(self, schema: Schema) -> Self {
        ElementwiseOp { schema, ..self }
    }

    /// Data input `i` divides: an integer zero in it is an error (at compile time where it is
    /// a constant, else the run returns `XCC_ERROR_DIVISION_BY_ZERO`).
    pub const fn divides_by(self, i: usize) -> Self {
        ElementwiseOp { divisor: Some(i), ..self }
    }

    /// The operator also computes on shapes with run-time dims.
    pub const fn on_dims(self, f: DimFn) -> Self {
        ElementwiseOp { on_dims: Some(f), ..self }
    }

    /// Only the first input is data; the rest are parameters.
    pub const fn one_data_input(self) -> Self {
        ElementwiseOp { data_inputs: Some(1), ..self }
    }

    pub const fn output(self, output: Output) -> Self {
        ElementwiseOp { output, ..self }
    }

    /// The data inputs may have different element types (Pow's exponent, comparisons, Where).
    pub const fn mixed_types(self) -> Self {
        ElementwiseOp { same_types: false, ..self }
    }

    /// The operation computes on input `i`'s element type (Where: its branches).
    pub const fn computes_on(self, i: usize) -> Self {
        ElementwiseOp { operand: i, ..self }
    }

    fn data<'n>(&self, node: &'n Node) -> Vec<&'n str> {
        let n = self.data_inputs.unwrap_or(node.inputs.len());
        node.inputs.iter().take(n).filter(|s| !s.is_empty()).map(String::as_str).collect()
    }

    fn output_dtype(&self, node: &Node, input: impl Fn(usize) -> OResult<DType>) -> OResult<DType> {
        Ok(match self.output {
            Output::Operand => input(0)?,
            Output::Bool => DType::Bool,
            Output::Input(i) => input(i)?,
            Output::CastTo => {
                let to = node.int("to", 0) as i32;
                DType::from_onnx(to).ok_or_else(|| {
                    OnnxError::msg(format!("Cast to element type {} ({to}) is not supported", DType::onnx_name(to)))
                })?
            }
        })
    }

    /// The broadcast shape of the data inputs and the result's element type.
    fn output_type(&self, node: &Node, g: &Graph) -> OResult<TensorType> {
        let data = self.data(node);
        let Some(&first) = data.first() else { return err("needs at least one input") };
        let mut dims = g.ty(first)?.dims();
        for x in &data[1..] {
            dims = broadcast_dims_in(g, &dims, &g.ty(x)?.dims())
                .map_err(|e| OnnxError::msg(format!("inputs '{first}' and '{x}': {}", e.message)))?;
        }
        if self.same_types {
            let d0 = g.ty(first)?.dtype;
            if let Some(x) = data[1..].iter().find(|x| g.ty(x).is_ok_and(|t| t.dtype != d0)) {
                let d = g.ty(x)?.dtype;
                return err(format!(
                    "inputs '{first}' ({}) and '{x}' ({}) have different element types",
                    d0.name(),
                    d.name()
                ));
            }
        }
        // Clip's bounds, read by `params` below, are one value each (CastLike's second input, the
        // other operator with inputs past its data, only gives a type).
        let bounds = if node.op == "Clip" { &node.inputs[data.len().min(node.inputs.len())..] } else { &[] };
        for name in bounds.iter().filter(|s| !s.is_empty()) {
            let t = g.ty(name)?;
            if t.is_dynamic() || t.numel() != 1 {
                return err(format!("{}'s parameter '{name}' must be a single value, not {}", node.op, t.describe()));
            }
        }
        let dtype = self.output_dtype(node, |i| Ok(g.ty(&node.inputs[i])?.dtype))?;
        Ok(TensorType::with_dims(dtype, dims))
    }

    /// Evaluates the element function over constant inputs.
    fn fold_values(&self, node: &Node, inputs: &[Option<&Tensor>]) -> OResult<Vec<Tensor>> {
        let n_data = self.data_inputs.unwrap_or(inputs.len());
        let data: Vec<&Tensor> = inputs[..n_data].iter().flatten().copied().collect();
        let Params { values: params, .. } = params(node, inputs)?;
        let mut shape = data[0].ty.shape.clone();
        for t in &data[1..] {
            shape = broadcast(&shape, &t.ty.shape)?;
        }
        let dtype = self.output_dtype(node, |i| {
            inputs.get(i).copied().flatten().map(|t| t.ty.dtype).ok_or_else(|| OnnxError::msg("a missing input"))
        })?;
        let el = Element { node, dtype: data[self.operand].ty.dtype, out: dtype, params: &params, runtime: &[] };
        let values: Vec<Vec<f64>> = data.iter().map(|t| t.to_f64()).collect();
        let numel: usize = shape.iter().product();
        let mut args = vec![0.0; data.len()];
        let integral = !el.dtype.is_real() && el.dtype != DType::Bool;
        let mut out: Vec<f64> = Vec::with_capacity(numel);
        for i in 0..numel {
            for (k, t) in data.iter().enumerate() {
                args[k] = values[k][broadcast_index(&shape, &t.ty.shape, i)];
            }
            let r = (self.eval)(&el, &args);
            if integral && r.is_nan() {
                // The element functions' mark for an undefined integer result.
                return Err(OnnxError::msg(format!(
                    "{} of constant integers divides by zero (element {i} of the result)",
                    node.op
                )));
            }
            out.push(if integral || !(dtype.is_real() || dtype == DType::Bool) { r.trunc() } else { r });
        }
        Ok(vec![Tensor::from_f64(dtype, shape, &out)])
    }

    /// One `kernel.generic` over the output's shape; with `mask`, it also writes `true` to the
    /// second output (Dropout's mask).
    fn lower_with(&self, node: &Node, g: &Graph, e: &mut Emitter, mask: bool) -> OResult<()> {
        let out_t = g.ty(&node.outputs[0])?.clone();
        let data = self.data(node);
        let in_types: Vec<&TensorType> = data.iter().map(|x| g.ty(x)).collect::<OResult<_>>()?;
        let consts: Vec<Option<&Tensor>> = node.inputs.iter().map(|i| g.consts.get(i)).collect();
        let Params { values: params, runtime } = params(node, &consts)?;
        let shape = &out_t.shape;
        // Parameters read at run time are extra operands after the data, broadcast like it.
        let operands: Vec<&str> = data.iter().copied().chain(runtime.iter().map(|(_, x)| x.as_str())).collect();
        let inputs: Vec<(ValueId, AffineMap)> =
            operands.iter().map(|x| Ok((e.buf(x)?, broadcast_map(&g.ty(x)?.shape, shape)))).collect::<OResult<_>>()?;
        let mut outputs = vec![(e.buf(&node.outputs[0])?, identity(shape.len()))];
        if mask {
            outputs.push((e.buf(&node.outputs[1])?, identity(shape.len())));
        }
        let (n_data, n_in) = (data.len(), inputs.len());
        let dtype = in_types[self.operand].dtype;
        if let Some(k) = self.divisor.filter(|_| !dtype.is_float() && dtype != DType::Bool) {
            check_divisor(node, g, e, data[k])?;
        }
        e.generic(&inputs, &outputs, vec![true; shape.len()], |e, args| {
            // Float16 elements compute in float32.
            let widened: Vec<ValueId> = args[..n_in].iter().map(|&a| e.widen_f16(a)).collect();
            let mut values = vec![None; params.len()];
            for (&(k, _), &v) in runtime.iter().zip(&widened[n_data..]) {
                values[k] = Some(v);
            }
            let dtype = in_types[self.operand].dtype;
            let el = Element { node, dtype, out: out_t.dtype, params: &params, runtime: &values };
            let v = self.emit_element(e, &el, &widened[..n_data])?;
            let v = e.narrow_to(v, &out_t.dtype.ir_type());
            let mut results = vec![v];
            if mask {
                results.push(e.const_int(1, Type::i1()));
            }
            Ok(results)
        })
    }

    fn emit_element(&self, e: &mut Emitter, el: &Element, args: &[ValueId]) -> OResult<ValueId> {
        match self.emit {
            Emit::Custom(f) => f(e, el, args),
            Emit::Unary(name) if el.float() => Ok(e.value_op(name, &args[..1], compute_type(el.dtype))),
            Emit::Unary(_) => el.unsupported(),
            Emit::Fold { float, signed, unsigned } => {
                let name = match el.dtype {
                    d if d.is_float() => float,
                    d if d.is_unsigned() => unsigned,
                    _ => signed,
                };
                let Some(name) = name else { return el.unsupported() };
                let t = compute_type(el.dtype);
                Ok(args[1..].iter().fold(args[0], |acc, &x| e.value_op(name, &[acc, x], t.clone())))
            }
        }
    }
}

impl OnnxOp for ElementwiseOp {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        Ok(vec![self.output_type(node, g)?])
    }

    /// Integer shape arithmetic on scalars and vectors (a scalar broadcasts).
    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        let f = self.on_dims?;
        let n = self.data_inputs.unwrap_or(node.inputs.len());
        let data: Vec<&ShapeValue> = inputs[..n].iter().map(Option::as_ref).collect::<Option<_>>()?;
        let dtype = self.output_dtype(node, |i| Ok(data[i].dtype)).ok()?;
        // Dims cast to a float type and back stay dims (`Cast(Shape)` to float before a Range or
        // a division in float, then back); float arithmetic on them is left to the kernels.
        if dtype.is_float() && !(self.name == "Cast" && matches!(dtype, DType::F32 | DType::F64)) {
            return None;
        }
        // Mod's fmod = 1 (the remainder takes the dividend's sign) is left to the kernels.
        if self.name == "Mod" && node.int("fmod", 0) != 0 {
            return None;
        }
        let ranges = |s: &str| g.symbol_range(s);
        let len = data.iter().map(|v| v.values.len()).max()?;
        if data.iter().any(|v| v.values.len() != len && v.values.len() != 1) {
            return None;
        }
        let values = (0..len)
            .map(|i| {
                let x = f(&data.iter().map(|v| &v.values[i.min(v.values.len() - 1)]).collect::<Vec<_>>(), &ranges);
                g.dim_of(&x, found_dim_name(&node.outputs[0], i))
            })
            .collect();
        let shape = if data.iter().all(|v| v.shape.is_empty()) { vec![] } else { vec![len] };
        Some(Ok(vec![ShapeValue { dtype, shape, values }]))
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        // Identity of a constant is the constant, whatever its size (a weight passed through
        // Identity must stay a constant, for the weight packing).
        if self.name == "Identity" {
            return inputs[0].map(|x| Ok(vec![x.clone()]));
        }
        // A FLOAT8E8M0 constant is encoded rounding up: other round modes are left to the run.
        let rounds_otherwise = node.string("round_mode").is_some_and(|m| m != "up");
        let to_e8m0 =
            node.int("to", 0) == 24 || inputs.get(1).copied().flatten().is_some_and(|t| t.ty.dtype == DType::F8E8M0);
        if rounds_otherwise && to_e8m0 {
            return None;
        }
        // Large tensors (weights) are not worth folding element by element.
        let total: usize = inputs.iter().flatten().map(|t| t.ty.numel()).sum();
        (total <= 1 << 16).then(|| self.fold_values(node, inputs))
    }

    /// Sum, Max and Min of more than [`MAX_FOLDED_INPUTS`] inputs become a tree of such nodes
    /// of at most that many inputs each: one loop reading thousands of buffers per element made
    /// LLVM's cost grow with their square (a Sum of 1,000 inputs took 22 s).
    fn expand(&self, node: &Node, _g: &Graph) -> Option<OResult<Vec<Node>>> {
        let associative = matches!(self.name, "Sum" | "Max" | "Min");
        if !associative || node.inputs.len() <= MAX_FOLDED_INPUTS {
            return None;
        }
        let mut x = crate::ops::expansion::Expansion::new(node);
        let mut level: Vec<String> = node.inputs.clone();
        while level.len() > MAX_FOLDED_INPUTS {
            let chunks: Vec<Vec<String>> = level.chunks(MAX_FOLDED_INPUTS).map(<[String]>::to_vec).collect();
            level = chunks
                .iter()
                .map(|c| if c.len() == 1 { c[0].clone() } else { x.op(self.name, &refs(c), &[]) })
                .collect();
        }
        x.op_to(self.name, &refs(&level), &[], &[&node.outputs[0]]);
        Some(Ok(x.finish()))
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        self.lower_with(node, g, e, false)
    }

    /// Loops are sized from the buffers, and a broadcast dim is a static 1.
    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

/// The most inputs one Sum, Max or Min reads in one loop ([`ElementwiseOp::expand`]).
const MAX_FOLDED_INPUTS: usize = 32;

fn refs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}

/// An integer divisor has no zero: a constant one is checked now; one read at run time is read
/// once before the division, a zero making the run return `XCC_ERROR_DIVISION_BY_ZERO` (the
/// division itself divides by 1 there, so it never traps; the check stays out of the element
/// function, which must stay pure for fusion).
fn check_divisor(node: &Node, g: &Graph, e: &mut Emitter, name: &str) -> OResult<()> {
    if let Some(t) = g.consts.get(name) {
        return match t.to_f64().iter().position(|&v| v == 0.0) {
            Some(i) => err(format!(
                "{}'s divisor '{name}' is a constant with a 0 (element {i}): an integer division by zero",
                node.op
            )),
            None => Ok(()),
        };
    }
    let divisor = e.buf(name)?;
    let flat = e.flat(divisor);
    let n = e.extent_of(flat, 0);
    let elem = (*e.ty(flat).as_memref().expect("a memref").elem).clone();
    let zero = e.const_int(0, elem);
    let none = e.const_int(0, Type::i1());
    let any_zero = e.for_acc_over(n, none, |e, i, acc| {
        let v = e.load(flat, &[i]);
        let is_zero = e.cmpi("eq", v, zero);
        e.value_op("arith.ori", &[acc, is_zero], Type::i1())
    });
    e.fail_run_if(any_zero, xcc_runtime_c::status::DIVISION_BY_ZERO);
    Ok(())
}

/// An operator's parameters: the compile-time values, and the ones an input gives at run time
/// (parameter index, input name).
struct Params {
    values: Vec<f64>,
    runtime: Vec<(usize, String)>,
}

/// Clip's bounds: attributes before opset 11, optional inputs after, constant (`consts` holds
/// the node's constant inputs) or read at run time. Other operators have none.
fn params(node: &Node, consts: &[Option<&Tensor>]) -> OResult<Params> {
    let mut p = Params { values: Vec::new(), runtime: Vec::new() };
    if node.op != "Clip" {
        return Ok(p);
    }
    p.values = vec![node.float("min", f32::NEG_INFINITY) as f64, node.float("max", f32::INFINITY) as f64];
    for k in 0..2 {
        let Some(name) = node.input(k + 1) else { continue };
        match consts.get(k + 1).copied().flatten() {
            Some(t) if t.ty.numel() == 1 => p.values[k] = t.to_f64()[0],
            Some(_) => return err(format!("Clip bound '{name}' must be a scalar")),
            None => p.runtime.push((k, name.to_string())),
        }
    }
    Ok(p)
}

/// Shorthands for the op tables.
const fn arith(float: &'static str, int: &'static str) -> Emit {
    Emit::Fold { float: Some(float), signed: Some(int), unsigned: Some(int) }
}

/// A constant of the element's compute type.
fn c(e: &mut Emitter, el: &Element, v: f64) -> ValueId {
    e.const_of(v, el.dtype)
}

/// An op whose result has the element's compute type.
fn op(e: &mut Emitter, el: &Element, name: &str, args: &[ValueId]) -> ValueId {
    e.value_op(name, args, compute_type(el.dtype))
}
