//! LinearAttention (opset 27), expanded ([`crate::ops::expansion`]): attention as a recurrence
//! over a state `S` of `[batch, kv_heads, d_k, d_v]` per step `t` (ONNX's definition):
//!
//! ```text
//! linear:       S = S + k ⊗ v
//! gated:        S = exp(g) * S + k ⊗ v
//! delta:        S = S + β k ⊗ (v - Sᵀk)
//! gated_delta:  S = exp(g) * S;  S = S + β k ⊗ (v - Sᵀk)
//! o = scale * qᵀ S        (each query head reads its KV head's state: GQA)
//! ```
//!
//! The steps are written one after another, as the sequence length is known at compile time
//! (a prefill of T tokens is T steps of small matrix products; a decoder's call is one). The
//! arithmetic runs in f32 for 16-bit types. `q`, `k`, `v`, the decay `g` and the rate `β` come
//! packed `[batch, T, heads * d]`; the decay is per key dim (`heads * d_k`) or per head, the
//! rate per head or one for all.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct LinearAttention;

/// The recurrence's shape: heads and head dims.
struct Dims {
    steps: usize,
    q_heads: usize,
    kv_heads: usize,
    d_k: usize,
    d_v: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Rule {
    Linear,
    Gated,
    Delta,
    GatedDelta,
}

impl Rule {
    fn parse(s: &str) -> OResult<Rule> {
        Ok(match s {
            "linear" => Rule::Linear,
            "gated" => Rule::Gated,
            "delta" => Rule::Delta,
            "gated_delta" => Rule::GatedDelta,
            _ => return err(format!("update_rule must be linear, gated, delta or gated_delta, not '{s}'")),
        })
    }

    fn gated(self) -> bool {
        matches!(self, Rule::Gated | Rule::GatedDelta)
    }

    fn delta(self) -> bool {
        matches!(self, Rule::Delta | Rule::GatedDelta)
    }
}

impl Expanded for LinearAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let rule = Rule::parse(node.string("update_rule").unwrap_or("gated_delta"))?;
        let dims = dims(node, g)?;
        let q_t = super::float_input(node, g)?;
        let c = if q_t.dtype == DType::F64 { DType::F64 } else { DType::F32 };
        for (i, role) in [(4, "decay"), (5, "beta")] {
            let needed = if i == 4 { rule.gated() } else { rule.delta() };
            if needed && node.input(i).is_none() {
                return err(format!(
                    "update_rule '{}' needs the {role} input",
                    node.string("update_rule").unwrap_or("")
                ));
            }
        }
        // Each packed input as [batch, T, heads, d] in the compute type.
        let mut split = |i: usize, heads: i64, last: i64| -> OResult<Option<String>> {
            let Some(name) = node.input(i) else { return Ok(None) };
            let v = x.cast(name, g.ty(name)?.dtype, c);
            Ok(Some(x.reshape(&v, &[0, dims.steps as i64, heads, last])))
        };
        let (hq, hkv) = (dims.q_heads as i64, dims.kv_heads as i64);
        let q = split(0, hq, dims.d_k as i64)?.unwrap_or_default();
        let k = split(1, hkv, dims.d_k as i64)?.unwrap_or_default();
        let v = split(2, hkv, dims.d_v as i64)?.unwrap_or_default();
        let decay = if rule.gated() { split(4, hkv, -1)? } else { None };
        let beta = if rule.delta() { split(5, -1, 1)? } else { None };
        let mut state = initial_state(node, g, x, &dims, c)?;
        let scale = match node.float("scale", 0.0) {
            s if s != 0.0 => s as f64,
            _ => 1.0 / (dims.d_k as f64).sqrt(),
        };
        let scale = x.scalar(scale, c);
        let mut outputs = Vec::with_capacity(dims.steps);
        for t in 0..dims.steps {
            let at = |x: &mut Expansion, v: &str| {
                let index = x.constant(Tensor::from_i64(vec![], &[t as i64]));
                x.op("Gather", &[v, &index], &[("axis", Attr::Int(1))])
            };
            let (q_t, k_t, v_t) = (at(x, &q), at(x, &k), at(x, &v));
            if let Some(decay) = &decay {
                let g_t = at(x, decay);
                let gate = x.op("Exp", &[&g_t], &[]);
                let gate = x.unsqueeze(&gate, &[-1]);
                state = x.op("Mul", &[&state, &gate], &[]);
            }
            let k_col = x.unsqueeze(&k_t, &[-1]);
            let write = match &beta {
                Some(beta) => {
                    let transposed = x.transpose(&state, &[0, 1, 3, 2]);
                    let retrieved = x.op("MatMul", &[&transposed, &k_col], &[]);
                    let axis = x.ints(&[-1]);
                    let retrieved = x.op("Squeeze", &[&retrieved, &axis], &[]);
                    let diff = x.op("Sub", &[&v_t, &retrieved], &[]);
                    let b_t = at(x, beta);
                    x.op("Mul", &[&b_t, &diff], &[])
                }
                None => v_t,
            };
            let write_row = x.unsqueeze(&write, &[-2]);
            let outer = x.op("MatMul", &[&k_col, &write_row], &[]);
            state = x.op("Add", &[&state, &outer], &[]);
            outputs.push(read(x, &dims, &state, &q_t, &scale));
        }
        let refs: Vec<&str> = outputs.iter().map(String::as_str).collect();
        let joined =
            if refs.len() == 1 { refs[0].to_string() } else { x.op("Concat", &refs, &[("axis", Attr::Int(1))]) };
        let packed = x.reshape(&joined, &[0, dims.steps as i64, hq * dims.d_v as i64]);
        let y = x.cast(&packed, c, q_t.dtype);
        x.output(&y, Some(&node.outputs[0]));
        let state_type = node.input(3).map_or(Ok(q_t.dtype), |p| g.ty(p).map(|t| t.dtype))?;
        let present = x.cast(&state, c, state_type);
        x.output(&present, node.outputs.get(1).map(String::as_str));
        Ok(())
    }
}

/// The heads and head dims, checked against every input's shape.
fn dims(node: &Node, g: &Graph) -> OResult<Dims> {
    let (hq, hkv) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
    if hq <= 0 || hkv <= 0 || hq % hkv != 0 {
        return err(format!("q_num_heads ({hq}) must be a positive multiple of kv_num_heads ({hkv})"));
    }
    let (hq, hkv) = (hq as usize, hkv as usize);
    let packed = |i: usize| -> OResult<&TensorType> {
        let t = g.ty(&node.inputs[i])?;
        if t.shape.len() != 3 || !t.dims()[1].is_fixed() {
            return err(format!(
                "'{}' must be [batch, T, heads * d] with T known at compile time, not {}",
                node.inputs[i],
                t.describe()
            ));
        }
        Ok(t)
    };
    let (q, k, v) = (packed(0)?, packed(1)?, packed(2)?);
    let steps = q.shape[1];
    let d_k = q.shape[2] / hq;
    let d_v = v.shape[2] / hkv;
    if q.shape[2] != d_k * hq || k.shape[2] != d_k * hkv || v.shape[2] != d_v * hkv || d_k == 0 || d_v == 0 {
        return err(format!(
            "query {}, key {} and value {} do not split into {hq} query and {hkv} key/value heads",
            q.describe(),
            k.describe(),
            v.describe()
        ));
    }
    if k.shape[1] != steps || v.shape[1] != steps {
        return err("query, key and value must have the same sequence length");
    }
    if let Some(d) = node.input(4) {
        let t = g.ty(d)?;
        if t.shape.len() != 3 || (t.shape[2] != hkv * d_k && t.shape[2] != hkv) || t.shape[1] != steps {
            return err(format!(
                "decay must be [batch, {steps}, {}] or [batch, {steps}, {hkv}], not {}",
                hkv * d_k,
                t.describe()
            ));
        }
    }
    if let Some(b) = node.input(5) {
        let t = g.ty(b)?;
        if t.shape.len() != 3 || (t.shape[2] != hkv && t.shape[2] != 1) || t.shape[1] != steps {
            return err(format!("beta must be [batch, {steps}, {hkv}] or [batch, {steps}, 1], not {}", t.describe()));
        }
    }
    Ok(Dims { steps, q_heads: hq, kv_heads: hkv, d_k, d_v })
}

/// The state before the first step: past_state, or zeros of `[batch, kv_heads, d_k, d_v]`.
fn initial_state(node: &Node, g: &Graph, x: &mut Expansion, dims: &Dims, c: DType) -> OResult<String> {
    let want = [dims.kv_heads, dims.d_k, dims.d_v];
    if let Some(past) = node.input(3) {
        let t = g.ty(past)?;
        if t.shape.len() != 4 || t.shape[1..] != want {
            return err(format!(
                "past_state must be [batch, {}, {}, {}], not {}",
                want[0],
                want[1],
                want[2],
                t.describe()
            ));
        }
        return Ok(x.cast(past, t.dtype, c));
    }
    let batch = x.op("Shape", &[&node.inputs[0]], &[("start", Attr::Int(0)), ("end", Attr::Int(1))]);
    let rest = x.ints(&want.map(|d| d as i64));
    let shape = x.op("Concat", &[&batch, &rest], &[("axis", Attr::Int(0))]);
    let zero = Tensor::from_f64(c, vec![1], &[0.0]);
    Ok(x.op("ConstantOfShape", &[&shape], &[("value", Attr::Tensor(zero))]))
}

/// `scale * qᵀ S` for every query head, as `[batch, 1, q_heads, d_v]`: query head `h` reads KV
/// head `h / group`, by broadcasting the state over the group.
fn read(x: &mut Expansion, dims: &Dims, state: &str, q_t: &str, scale: &str) -> String {
    let (hkv, group) = (dims.kv_heads as i64, (dims.q_heads / dims.kv_heads) as i64);
    let q_rows = x.reshape(q_t, &[0, hkv, group, 1, dims.d_k as i64]);
    let shared = x.unsqueeze(state, &[2]);
    let product = x.op("MatMul", &[&q_rows, &shared], &[]);
    let scaled = x.op("Mul", &[&product, scale], &[]);
    x.reshape(&scaled, &[0, 1, dims.q_heads as i64, dims.d_v as i64])
}
