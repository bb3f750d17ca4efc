//! Matrix products: Gemm, MatMul and Conv, lowered to `kernel.matmul` and `kernel.conv` (whose
//! lowering is the register-tiled GEMM micro-kernel, and whose epilogue later takes the
//! activation and residual add that follow them, see `kernel-fuse-epilogue`).

use super::nn::{float_input, window::window_over};
use crate::dim::dims_text;
use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Group, Schema};
use crate::ops::shapes::{broadcast, image_dims};
use xcc_ir::dialects::kernel::EpilogueOperands;
use xcc_ir::parser::forms::i64_array;
use xcc_ir::{Attribute, Span, Type, ValueId};

struct Gemm;
struct MatMul;
struct Conv;

impl crate::ops::onnx_op::OnnxOp for Gemm {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let a = float_input(node, g)?;
        let b = g.ty(&node.inputs[1])?;
        if a.is_dynamic() || b.is_dynamic() {
            return gemm_rows_at_run_time(node, g, a, b);
        }
        if a.shape.len() != 2 || b.shape.len() != 2 {
            return err("Gemm takes 2-D A and B");
        }
        let (m, k) = if node.int("transA", 0) == 1 { (a.shape[1], a.shape[0]) } else { (a.shape[0], a.shape[1]) };
        let (k2, n) = if node.int("transB", 0) == 1 { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
        if k != k2 {
            return err(format!("inner dimensions differ: A gives {k}, B gives {k2}"));
        }
        if let Some(c) = node.input(2) {
            broadcast(&g.ty(c)?.shape, &[m, n])
                .map_err(|e| OnnxError::msg(format!("C cannot broadcast to [{m}, {n}]: {}", e.message)))?;
        }
        Ok(vec![TensorType::new(a.dtype, vec![m, n])])
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_gemm(node, g)
    }

    /// A's rows (M, a batch) known only at run time: see [`gemm_rows_at_run_time`].
    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

/// Gemm's shape rule when A's rows are known only at run time: A not transposed, K, B and C
/// static, and C one row (or a scalar) broadcast over the rows.
fn gemm_rows_at_run_time(node: &Node, g: &Graph, a: &TensorType, b: &TensorType) -> OResult<Vec<TensorType>> {
    let a_d = a.dims();
    if a_d.len() != 2 || b.shape.len() != 2 {
        return err("Gemm takes 2-D A and B");
    }
    if b.is_dynamic() || !a_d[1].is_fixed() || node.int("transA", 0) == 1 {
        return err(format!(
            "Gemm takes only A's rows at run time, with A not transposed; A is {} and B is {} (fix the dims with --dim)",
            a.describe(),
            b.describe()
        ));
    }
    let k = a.shape[1];
    let (k2, n) = if node.int("transB", 0) == 1 { (b.shape[1], b.shape[0]) } else { (b.shape[0], b.shape[1]) };
    if k != k2 {
        return err(format!("inner dimensions differ: A gives {k}, B gives {k2}"));
    }
    if let Some(c) = node.input(2) {
        let c_t = g.ty(c)?;
        if c_t.is_dynamic() || broadcast(&c_t.shape, &[1, n]).ok().as_deref() != Some(&[1, n][..]) {
            return Err(OnnxError::tensor(
                c,
                format!(
                    "with A's rows known only at run time, C must be one row of {n} values, not {}",
                    c_t.describe()
                ),
            ));
        }
    }
    Ok(vec![TensorType::with_dims(a.dtype, vec![a_d[0].clone(), Dim::fixed(n)])])
}

impl crate::ops::onnx_op::OnnxOp for MatMul {
    /// numpy's matmul: 1-D operands gain a dimension (removed again from the result), and the
    /// dims before the last two broadcast.
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (a, b) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        if a.is_dynamic() || b.is_dynamic() {
            return matmul_dims(g, a, b);
        }
        let (mut a_s, mut b_s) = (a.shape.clone(), b.shape.clone());
        let (a1, b1) = (a_s.len() == 1, b_s.len() == 1);
        if a1 {
            a_s.insert(0, 1);
        }
        if b1 {
            b_s.push(1);
        }
        if a_s.len() < 2 || b_s.len() < 2 {
            return err("MatMul operands must have rank >= 1");
        }
        let (m, k) = (a_s[a_s.len() - 2], a_s[a_s.len() - 1]);
        let (k2, n) = (b_s[b_s.len() - 2], b_s[b_s.len() - 1]);
        if k != k2 {
            return err(format!("inner dimensions differ: {:?} x {:?}", a.shape, b.shape));
        }
        let mut shape = broadcast(&a_s[..a_s.len() - 2], &b_s[..b_s.len() - 2])?;
        if !a1 {
            shape.push(m);
        }
        if !b1 {
            shape.push(n);
        }
        Ok(vec![TensorType::new(a.dtype, shape)])
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_matmul(node, g)
    }

    /// Matrices of rank 2 or more (no 1-D operand) with run-time dims: `kernel.matmul` takes
    /// them as they are.
    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

/// MatMul's shape rule over dims known only at run time, for operands of rank 2 or more.
fn matmul_dims(g: &Graph, a: &TensorType, b: &TensorType) -> OResult<Vec<TensorType>> {
    let (a_d, b_d) = (a.dims(), b.dims());
    if a_d.len() < 2 || b_d.len() < 2 {
        return err(format!(
            "MatMul of a vector with run-time dims ({} x {}) is not supported yet",
            dims_text(&a_d),
            dims_text(&b_d)
        ));
    }
    let (m, k) = (&a_d[a_d.len() - 2], &a_d[a_d.len() - 1]);
    let (k2, n) = (&b_d[b_d.len() - 2], &b_d[b_d.len() - 1]);
    if !crate::ops::shapes::same_dim_in(g, k, k2)? {
        return err(format!("inner dimensions differ: {} x {}", dims_text(&a_d), dims_text(&b_d)));
    }
    let mut dims = crate::ops::shapes::broadcast_dims_in(g, &a_d[..a_d.len() - 2], &b_d[..b_d.len() - 2])?;
    dims.extend([m.clone(), n.clone()]);
    Ok(vec![TensorType::with_dims(a.dtype, dims)])
}

impl crate::ops::onnx_op::OnnxOp for Conv {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = float_input(node, g)?;
        let w = g.ty(&node.inputs[1])?;
        if x.shape.len() < 3 || w.shape.len() != x.shape.len() {
            return err(format!(
                "Conv needs N x C x spatial input and matching weights, got {:?} and {:?}",
                x.shape, w.shape
            ));
        }
        let x_dims = image_dims(&node.inputs[0], x)?;
        if w.is_dynamic() {
            return Err(OnnxError::tensor(
                &node.inputs[1],
                format!("the weights' dims must be static, not {}", w.describe()),
            ));
        }
        let group = node.int("group", 1);
        if group < 1 {
            return err(format!("group must be at least 1, not {group}"));
        }
        let group = group as usize;
        if x.shape[1] != w.shape[1] * group || w.shape[0] % group != 0 {
            return err(format!("channels do not match: input {:?}, weights {:?}, group {group}", x.shape, w.shape));
        }
        if let Some(b) = node.input(2) {
            if g.ty(b)?.shape != [w.shape[0]] {
                return Err(OnnxError::tensor(
                    b,
                    format!("the bias needs one value per output channel ({})", w.shape[0]),
                ));
            }
        }
        let (_, spatial) = window_over(node, g, &x_dims[2..], w.shape[2..].to_vec())?;
        let mut dims = vec![x_dims[0].clone(), Dim::fixed(w.shape[0])];
        dims.extend(spatial);
        Ok(vec![TensorType::with_dims(x.dtype, dims)])
    }
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        e.emit_conv(node, g)
    }

    /// A batch and spatial dims known only at run time; the weights and the channels are
    /// static.
    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["Gemm"], &Gemm, Schema::inputs(2, 3).same_type(Group::All));
    r.register(&["MatMul"], &MatMul, Schema::exactly(2).same_type(Group::All));
    r.register(&["Conv"], &Conv, Schema::inputs(2, 3).same_type(Group::All));
}

fn float(v: f64) -> Attribute {
    Attribute::Float { value: v, ty: Type::f32() }
}

impl Emitter {
    /// `Y = alpha * A' x B' + beta * C` (A', B' transposed by transA, transB; C broadcast).
    fn emit_gemm(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let a = self.buf(&node.inputs[0])?;
        let b = self.buf(&node.inputs[1])?;
        let out = self.buf(&node.outputs[0])?;
        let bias = match node.input(2) {
            Some(c) => {
                // C as the [M or 1, N or 1] matrix the kernel takes.
                let s = g.ty(c)?.shape.clone();
                let as_2d = match s.len() {
                    0 => vec![1, 1],
                    1 => vec![1, s[0]],
                    _ => s,
                };
                let v = self.buf(c)?;
                Some(self.reshaped(v, &as_2d))
            }
            None => None,
        };
        let ops = EpilogueOperands { a, b, bias, residual: None, output: out };
        let mut spec = ops.into_spec("kernel.matmul", Span::UNKNOWN);
        if node.int("transA", 0) == 1 {
            spec = spec.attr("transpose_a", Attribute::Unit);
        }
        if node.int("transB", 0) == 1 {
            spec = spec.attr("transpose_b", Attribute::Unit);
        }
        let (alpha, beta) = (node.float("alpha", 1.0) as f64, node.float("beta", 1.0) as f64);
        if alpha != 1.0 {
            spec = spec.attr("alpha", float(alpha));
        }
        if beta != 1.0 && bias.is_some() {
            spec = spec.attr("beta", float(beta));
        }
        self.op(spec);
        Ok(())
    }

    /// Numpy's matmul: 1-D operands are promoted to matrices (and the added dim dropped from
    /// the result), batch dims broadcast.
    fn emit_matmul(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        self.emit_matmul_with(node, g, &[])
    }

    /// MatMul's `kernel.matmul` with `attrs` added (an integer matmul's signedness).
    pub(crate) fn emit_matmul_with(&mut self, node: &Node, g: &Graph, attrs: &[(&str, Attribute)]) -> OResult<()> {
        let with = |spec: xcc_ir::OpSpec| attrs.iter().fold(spec, |s, (k, v)| s.attr(*k, v.clone()));
        let (a_t, b_t, out_t) =
            (g.ty(&node.inputs[0])?.clone(), g.ty(&node.inputs[1])?.clone(), g.ty(&node.outputs[0])?.clone());
        let mut a = self.buf(&node.inputs[0])?;
        let mut b = self.buf(&node.inputs[1])?;
        let mut out = self.buf(&node.outputs[0])?;
        if a_t.is_dynamic() || b_t.is_dynamic() {
            // Both of rank 2 or more (matmul_dims): the kernel takes them as they are.
            let ops = EpilogueOperands { a, b, bias: None, residual: None, output: out };
            self.op(with(ops.into_spec("kernel.matmul", Span::UNKNOWN)));
            return Ok(());
        }
        if a_t.shape.len() == 1 {
            a = self.reshaped(a, &[1, a_t.shape[0]]);
        }
        if b_t.shape.len() == 1 {
            b = self.reshaped(b, &[b_t.shape[0], 1]);
        }
        let (m, n) = (
            if a_t.shape.len() == 1 { 1 } else { a_t.shape[a_t.shape.len() - 2] },
            if b_t.shape.len() == 1 { 1 } else { b_t.shape[b_t.shape.len() - 1] },
        );
        let a_lead = if a_t.shape.len() > 2 { &a_t.shape[..a_t.shape.len() - 2] } else { &[] };
        let b_lead = if b_t.shape.len() > 2 { &b_t.shape[..b_t.shape.len() - 2] } else { &[] };
        let mut full = crate::ops::shapes::broadcast(a_lead, b_lead)?;
        full.extend([m, n]);
        if out_t.shape != full {
            out = self.reshaped(out, &full);
        }
        let ops = EpilogueOperands { a, b, bias: None, residual: None, output: out };
        self.op(with(ops.into_spec("kernel.matmul", Span::UNKNOWN)));
        Ok(())
    }

    fn emit_conv(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let x_t = g.ty(&node.inputs[0])?.clone();
        let w_t = g.ty(&node.inputs[1])?.clone();
        if x_t.shape.len() < 3 {
            return err("Conv needs an input of rank 3 or more (N, C, spatial...)");
        }
        let (win, _) = window_over(node, g, &x_t.dims()[2..], w_t.shape[2..].to_vec())?;
        let bias: Option<ValueId> = match node.input(2) {
            Some(name) => Some(self.buf(name)?),
            None => None,
        };
        let ops = EpilogueOperands {
            a: self.buf(&node.inputs[0])?,
            b: self.buf(&node.inputs[1])?,
            bias,
            residual: None,
            output: self.buf(&node.outputs[0])?,
        };
        let as_i64 = |v: &[usize]| i64_array(&v.iter().map(|&x| x as i64).collect::<Vec<_>>());
        let spec = ops
            .into_spec("kernel.conv", Span::UNKNOWN)
            .attr("strides", as_i64(&win.strides))
            .attr("pads", as_i64(&win.pads))
            .attr("dilations", as_i64(&win.dilations))
            .attr("group", Attribute::i64(node.int("group", 1)));
        self.op(spec);
        Ok(())
    }
}
