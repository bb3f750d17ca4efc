//! MultiHeadAttention, as the default domain's Attention over 3-D query, key and value:
//! num_heads heads for all three, the optional bias added to each (`[D_q + D_k + D_v]`),
//! key_padding_mask (`[batch, keys]`, 0 = masked) as mask_filter_value added to the scores,
//! attention_bias added, `unidirectional` as causal, past_key and past_value concatenated
//! before the new ones and returned as present_key and present_value.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::same_dim_in;

pub struct MultiHeadAttention;

impl Expanded for MultiHeadAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let heads = node.int("num_heads", 0);
        let (Some(key), Some(value)) = (node.input(1), node.input(2)) else {
            return err("MultiHeadAttention without separate key and value (packed QKV) is not supported");
        };
        let (q_t, k_t, v_t) = (g.ty(&node.inputs[0])?, g.ty(key)?, g.ty(value)?);
        if heads <= 0 || q_t.shape.len() != 3 || k_t.shape.len() != 3 || v_t.shape.len() != 3 {
            return err(format!(
                "MultiHeadAttention takes num_heads and 3-D query, key and value, not {}, {}, {}",
                q_t.describe(),
                k_t.describe(),
                v_t.describe()
            ));
        }
        let d = q_t.dtype;
        let (mut q, mut k, mut v) = (node.inputs[0].clone(), key.to_string(), value.to_string());
        if let Some(bias) = node.input(3) {
            let (dq, dk, dv) = (q_t.shape[2] as i64, k_t.shape[2] as i64, v_t.shape[2] as i64);
            let part = |x: &mut Expansion, from: i64, len: i64, t: &str| {
                let (a, b, axes) = (x.ints(&[from]), x.ints(&[from + len]), x.ints(&[0]));
                let slice = x.op("Slice", &[bias, &a, &b, &axes], &[]);
                x.op("Add", &[t, &slice], &[])
            };
            q = part(x, 0, dq, &q);
            k = part(x, dq, dk, &k);
            v = part(x, dq + dk, dv, &v);
        }
        let mut mask: Option<String> = None;
        if let Some(padding) = node.input(4) {
            let pt = g.ty(padding)?;
            if pt.shape.len() != 2 {
                return err(format!("key_padding_mask must be [batch, keys], not {}", pt.describe()));
            }
            // As ONNX Runtime requires (the default domain's Attention would pad a shorter one).
            let mut keys = k_t.dims()[1].clone();
            if let Some(past) = node.input(6) {
                keys = keys.add(&g.ty(past)?.dims().get(2).cloned().unwrap_or(Dim::fixed(0)));
            }
            if !same_dim_in(g, &pt.dims()[1], &keys)? {
                return err(format!("key_padding_mask {} must be as long as the keys, {keys}", pt.describe()));
            }
            let zero = x.constant(Tensor::from_f64(pt.dtype, vec![], &[0.0]));
            let masked = x.op("Equal", &[padding, &zero], &[]);
            let (filter, none) = (x.scalar(node.float("mask_filter_value", -10000.0) as f64, d), x.scalar(0.0, d));
            let b = x.op("Where", &[&masked, &filter, &none], &[]);
            mask = Some(x.unsqueeze(&b, &[1, 2]));
        }
        if let Some(bias) = node.input(5) {
            mask = Some(match mask {
                Some(m) => x.op("Add", &[&m, bias], &[]),
                None => bias.to_string(),
            });
        }
        let attrs = default_domain_attrs(node, heads);
        let mask = mask.unwrap_or_default();
        let inputs = [q.as_str(), &k, &v, &mask, node.input(6).unwrap_or(""), node.input(7).unwrap_or("")];
        let used = if inputs[4].is_empty() { 4 } else { 6 };
        let outputs: Vec<&str> = node.outputs.iter().take(3).map(String::as_str).collect();
        x.op_to("Attention", &inputs[..used], &attrs, &outputs);
        Ok(())
    }
}

/// The default domain's Attention attributes for a contrib attention of `heads` heads: as many
/// for K and V as for Q, `unidirectional` as causal, its `scale` where it has one.
fn default_domain_attrs(node: &Node, heads: i64) -> Vec<(&'static str, Attr)> {
    let mut attrs = vec![
        ("q_num_heads", Attr::Int(heads)),
        ("kv_num_heads", Attr::Int(heads)),
        ("is_causal", Attr::Int(node.int("unidirectional", 0))),
    ];
    if node.attrs.contains_key("scale") {
        attrs.push(("scale", Attr::Float(node.float("scale", 1.0))));
    }
    attrs
}

/// com.microsoft Attention (BERT's and GPT-2's fused form, as ONNX Runtime's transformer
/// optimizer writes it): `input [batch, seq, in]` times the packed `weights [in, q + k + v]`
/// (sizes `qkv_hidden_sizes`, else three equal parts) plus `bias`, split into Q, K and V of
/// `num_heads` heads; `past [2, batch, heads, past, head]` holds the cache's keys and values
/// and `present` the same with the new ones after them. A key that `mask_index` masks (raw
/// `[batch, total]` with 0 for masked, `[batch, seq, total]`, or `[batch]` key lengths) gets
/// `mask_filter_value` (default -10000) added to its score, as ONNX Runtime's CPU kernel adds
/// it, and `attention_bias` is added; `unidirectional` hides the keys after the query's
/// position `past + i` entirely (as ONNX Runtime does: a left-padded row's first query still
/// sees its own key). Then as the default domain's Attention.
pub struct PackedAttention;

impl Expanded for PackedAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let heads = node.int("num_heads", 0);
        let (input, weights) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        if heads <= 0 || input.shape.len() != 3 || weights.shape.len() != 2 {
            return err(format!(
                "Attention takes num_heads, input [batch, seq, hidden] and weights [hidden, 3 * hidden], not {} and {}",
                input.describe(),
                weights.describe()
            ));
        }
        if node.int("past_present_share_buffer", 0) != 0 || node.int("do_rotary", 0) != 0 || node.input(6).is_some() {
            return err("Attention with past_present_share_buffer, do_rotary or past_sequence_length is not supported");
        }
        let sizes = node.ints("qkv_hidden_sizes").unwrap_or_else(|| vec![weights.shape[1] as i64 / 3; 3]);
        if sizes.len() != 3 || sizes.iter().sum::<i64>() != weights.shape[1] as i64 || sizes[0] != sizes[1] {
            return err(format!(
                "Attention's qkv_hidden_sizes {sizes:?} must be three sizes, Q's and K's equal, summing to the weights' {} columns",
                weights.shape[1]
            ));
        }
        if let Some(mask) = node.input(3).map(|m| g.ty(m)).transpose()?.filter(|m| m.shape.len() >= 2) {
            // As ONNX Runtime requires: a raw mask covers every key, past and new.
            let past = node.input(4).map(|p| g.ty(p)).transpose()?.and_then(|p| p.dims().get(3).cloned());
            let keys = input.dims()[1].add(&past.unwrap_or(Dim::fixed(0)));
            let last = mask.dims().last().cloned().expect("rank 2 or more");
            if !same_dim_in(g, &last, &keys)? {
                return err(format!("Attention's mask_index {} must cover the {keys} keys", mask.describe()));
            }
        }
        let d = input.dtype;
        let mut qkv = x.op("MatMul", &[&node.inputs[0], &node.inputs[1]], &[]);
        if let Some(bias) = node.input(2) {
            qkv = x.op("Add", &[&qkv, bias], &[]);
        }
        let split = x.ints(&sizes);
        let parts: Vec<String> = (0..3).map(|_| x.fresh()).collect();
        let names: Vec<&str> = parts.iter().map(String::as_str).collect();
        x.op_to("Split", &[&qkv, &split], &[("axis", Attr::Int(2))], &names);
        let (past_key, past_value) = match node.input(4) {
            Some(past) => {
                let (zero, one) = (x.ints(&[0]), x.ints(&[1]));
                let (k, v) = (x.op("Gather", &[past, &zero], &[]), x.op("Gather", &[past, &one], &[]));
                let axis = x.ints(&[0]);
                (x.op("Squeeze", &[&k, &axis], &[]), x.op("Squeeze", &[&v, &axis], &[]))
            }
            None => (String::new(), String::new()),
        };
        let bias = additive_mask(node, g, x, &parts[0], &past_key, d)?;
        let attrs = default_domain_attrs(node, heads);
        let has_past = !past_key.is_empty();
        let inputs = [parts[0].as_str(), &parts[1], &parts[2], bias.as_deref().unwrap_or(""), &past_key, &past_value];
        // The default domain's Attention writes a name of this expansion's own: its expansion
        // names its tensors after its first output and its operator, which are this node's too.
        let output = &x.fresh();
        match node.outputs.get(1).filter(|p| !p.is_empty() && has_past) {
            Some(present) => {
                let (pk, pv) = (x.fresh(), x.fresh());
                x.op_to("Attention", &inputs, &attrs, &[output, &pk, &pv]);
                let (pk, pv) = (x.unsqueeze(&pk, &[0]), x.unsqueeze(&pv, &[0]));
                x.op_to("Concat", &[&pk, &pv], &[("axis", Attr::Int(0))], &[present]);
            }
            None if node.outputs.get(1).is_some_and(|p| !p.is_empty()) => {
                return err("Attention's present needs a past (give an empty one for the prompt)");
            }
            None => {
                let used = if has_past { 6 } else { 4 };
                x.op_to("Attention", &inputs[..used], &attrs, &[output]);
            }
        }
        x.op_to("Identity", &[output], &[], &[&node.outputs[0]]);
        Ok(())
    }
}

/// The additive mask of [`PackedAttention`], broadcasting to `[batch, heads, seq, total]`, or
/// `None` when nothing masks.
fn additive_mask(
    node: &Node,
    g: &Graph,
    x: &mut Expansion,
    q: &str,
    past_key: &str,
    d: DType,
) -> OResult<Option<String>> {
    let filter = x.scalar(node.float("mask_filter_value", -10000.0) as f64, d);
    let none = x.scalar(0.0, d);
    let seq = x.dim(q, 1);
    let past = if past_key.is_empty() { x.constant(Tensor::from_i64(vec![], &[0])) } else { x.dim(past_key, 2) };
    let total = x.op("Add", &[&past, &seq], &[]);
    let mut pieces = Vec::new();
    if let Some(mask) = node.input(3) {
        let rank = g.ty(mask)?.shape.len();
        let masked = match rank {
            1 => {
                let keys = x.range(&total);
                let lengths = x.unsqueeze(mask, &[1]);
                let lengths = x.cast(&lengths, g.ty(mask)?.dtype, DType::I64);
                let beyond = x.op("GreaterOrEqual", &[&keys, &lengths], &[]);
                x.unsqueeze(&beyond, &[1, 2])
            }
            2 | 3 => {
                let zero = x.constant(Tensor::from_f64(g.ty(mask)?.dtype, vec![], &[0.0]));
                let masked = x.op("Equal", &[mask, &zero], &[]);
                x.unsqueeze(&masked, if rank == 2 { &[1, 2] } else { &[1] })
            }
            _ => return err(format!("Attention's mask_index {} is not supported", g.ty(mask)?.describe())),
        };
        pieces.push(x.op("Where", &[&masked, &filter, &none], &[]));
    }
    if let Some(bias) = node.input(5) {
        pieces.push(bias.to_string());
    }
    let Some(mut sum) = pieces.pop() else { return Ok(None) };
    for p in pieces {
        sum = x.op("Add", &[&p, &sum], &[]);
    }
    Ok(Some(sum))
}
