//! GroupQueryAttention (com.microsoft), the decoder attention ONNX Runtime's LLM exports write
//! (the GenAI model builder's), with the semantics of ONNX Runtime's CPU kernel:
//!
//! - `num_heads` query heads share `kv_num_heads` key/value heads; the query may hold Q, K and V
//!   packed (`[batch, seq, (heads + 2 kv_heads) * head]`);
//! - row `b` of the batch has `seqlens_k[b] + 1` tokens in all; its new tokens start at
//!   `past_b = seqlens_k[b] + 1 - seq`, or at 0 in the first prompt (`seq` equal to
//!   `total_sequence_length`, whose rows may be right-padded);
//! - `present_key` (`[batch, kv_heads, max(total_sequence_length, past), head]`) holds, for row
//!   `b`, the first `past_b` positions of `past_key`, then the new keys, then the rest of
//!   `past_key` (the shared-buffer mode, where past and present are one buffer) or zeros;
//! - with `do_rotary`, Q and K are rotated first at positions `past_b + s` (1 for a padded
//!   token of the first prompt), or at `position_ids`;
//! - query `s` of row `b` sees the keys up to its own position `past_b + s` (causal), the last
//!   `local_window_size` of them where that is set; `softcap`, `scale` and `attention_bias` as in
//!   the default domain's Attention, which computes the rest; with `head_sink` (or
//!   `smooth_softmax`, a sink of 0) the softmax has one more logit per head, which no value
//!   follows.
//!
//! The present is written by CacheWrite ([`super::cache_write`]): where the caller gives one
//! buffer as past and present (the shared-buffer mode), only the new rows are written. A
//! `seqlens_k` that does not fit the cache (`past_b` below 0, above the past, or new tokens past
//! the present's end) makes the run return `XCC_ERROR_INDEX_OUT_OF_RANGE`.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::{data_input, same_dim_in};

pub struct GroupQueryAttention;

/// The head counts and the head size (which the weights fix: the query's last dim).
struct Heads {
    heads: i64,
    kv_heads: i64,
    head: i64,
}

/// The per-row lengths, as int64 tensors: `past` (`[batch]`, where each row's new tokens go),
/// `total` (`[batch]`, `seqlens_k + 1`), `seq` and `present` (scalars).
struct Lengths {
    past: String,
    total: String,
    seq: String,
    present: String,
}

impl Expanded for GroupQueryAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let h = heads(node, g)?;
        check_past(node, g, &h)?;
        let (mut q, mut k, v) = qkv(node, x, &h)?;
        let lengths = lengths(node, g, x, &q)?;
        if node.int("do_rotary", 0) != 0 {
            let positions = positions(node, g, x, &lengths)?;
            q = rotated(node, g, x, &q, &positions, h.heads)?;
            k = rotated(node, g, x, &k, &positions, h.kv_heads)?;
        }
        let present_k = present(x, &h, &lengths, &k, node.input(3), node.outputs.get(1));
        let present_v = present(x, &h, &lengths, &v, node.input(4), node.outputs.get(2));
        let mask = mask(node, g, x, &lengths)?;
        if node.input(11).is_some() || node.int("smooth_softmax", 0) != 0 {
            attend_with_sink(node, g, x, &h, &q, (&present_k, &present_v), &mask)?;
        } else {
            attend(node, x, &h, &q, &present_k, &present_v, &mask);
        }
        Ok(())
    }
}

fn heads(node: &Node, g: &Graph) -> OResult<Heads> {
    let (heads, kv_heads) = (node.int("num_heads", 0), node.int("kv_num_heads", 0));
    if heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0 {
        return err(format!("num_heads ({heads}) must be a positive multiple of kv_num_heads ({kv_heads})"));
    }
    let q = g.ty(&node.inputs[0])?;
    let dims = q.dims();
    let (3, Some(features)) = (dims.len(), dims.last().and_then(Dim::as_fixed)) else {
        return err(format!(
            "GroupQueryAttention's query must be [batch, seq, hidden] with hidden known at compile time, not {}",
            q.describe()
        ));
    };
    let packed = node.input(1).is_none();
    let parts = if packed { heads + 2 * kv_heads } else { heads };
    if features as i64 % parts != 0 {
        return err(format!("the query's {features} features do not split into {parts} heads"));
    }
    Ok(Heads { heads, kv_heads, head: features as i64 / parts })
}

/// past_key and past_value are `[batch, kv_heads, past, head]`; a head size given by a
/// dim_param (the GenAI builder's `kv_cache_dim`) is checked by the run to be the weights'.
fn check_past(node: &Node, g: &Graph, h: &Heads) -> OResult<()> {
    let batch = g.ty(&node.inputs[0])?.dims()[0].clone();
    for i in [3, 4] {
        let Some(p) = node.input(i) else { continue };
        let t = g.ty(p)?;
        let d = t.dims();
        let fits = d.len() == 4
            && same_dim_in(g, &d[0], &batch)?
            && d[1] == Dim::fixed(h.kv_heads as usize)
            && same_dim_in(g, &d[3], &Dim::fixed(h.head as usize))?;
        if !fits {
            let what = if i == 3 { "past_key" } else { "past_value" };
            return err(format!(
                "{what} '{p}' must be [{batch}, {}, past, {}], not {}",
                h.kv_heads,
                h.head,
                t.describe()
            ));
        }
    }
    Ok(())
}

/// Q, K and V, each `[batch, seq, heads * head]`: the inputs, or the packed query split.
fn qkv(node: &Node, x: &mut Expansion, h: &Heads) -> OResult<(String, String, String)> {
    if let (Some(k), Some(v)) = (node.input(1), node.input(2)) {
        return Ok((node.inputs[0].clone(), k.to_string(), v.to_string()));
    }
    if node.input(1).is_some() || node.input(2).is_some() {
        return err("GroupQueryAttention takes both key and value, or neither (packed in the query)");
    }
    let (q_len, kv_len) = (h.heads * h.head, h.kv_heads * h.head);
    let split = x.ints(&[q_len, kv_len, kv_len]);
    let names = [x.fresh(), x.fresh(), x.fresh()];
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    x.op_to("Split", &[&node.inputs[0], &split], &[("axis", Attr::Int(2))], &refs);
    let [q, k, v] = names;
    Ok((q, k, v))
}

/// An int64 scalar of input `i` (a scalar or a one-element vector of any integer type).
fn scalar_input(node: &Node, g: &Graph, x: &mut Expansion, i: usize, what: &str) -> OResult<String> {
    let Some(name) = node.input(i) else {
        return err(format!("GroupQueryAttention needs its {what} input"));
    };
    let t = g.ty(name)?;
    if t.numel() != 1 || t.is_dynamic() {
        return err(format!("{what} '{name}' must hold one value, not {}", t.describe()));
    }
    let as_i64 = x.cast(name, t.dtype, DType::I64);
    Ok(x.reshape(&as_i64, &[]))
}

fn lengths(node: &Node, g: &Graph, x: &mut Expansion, q: &str) -> OResult<Lengths> {
    let Some(seqlens) = node.input(5) else {
        return err("GroupQueryAttention needs its seqlens_k input");
    };
    let seqlens_t = g.ty(seqlens)?;
    if seqlens_t.dims().len() != 1 || !same_dim_in(g, &seqlens_t.dims()[0], &g.ty(&node.inputs[0])?.dims()[0])? {
        return err(format!("seqlens_k '{seqlens}' must be [batch], not {}", seqlens_t.describe()));
    }
    let seq = x.dim(q, 1);
    let past_len = match node.input(3) {
        Some(p) => x.dim(p, 2),
        None => x.constant(Tensor::from_i64(vec![], &[0])),
    };
    let total_sequence = match node.input(6) {
        Some(t) if !g.consts.contains_key(t) && !g.shape_values.contains_key(t) => {
            total_from_input(node, g, x, (&seq, &past_len))?
        }
        _ => scalar_input(node, g, x, 6, "total_sequence_length")?,
    };
    let present = x.op("Max", &[&total_sequence, &past_len], &[]);
    let one = x.constant(Tensor::from_i64(vec![], &[1]));
    let seqlens = x.cast(seqlens, seqlens_t.dtype, DType::I64);
    let total = x.op("Add", &[&seqlens, &one], &[]);
    // The first prompt starts every row at 0; later steps (and a later prompt) after the past.
    let first = x.op("Equal", &[&seq, &total_sequence], &[]);
    let zero = x.constant(Tensor::from_i64(vec![], &[0]));
    let after = x.op("Sub", &[&total, &seq], &[]);
    let past = x.op("Where", &[&first, &zero, &after], &[]);
    Ok(Lengths { past, total, seq, present })
}

/// A total_sequence_length given as a graph input rather than computed from dims: the run
/// checks it is past + sequence (the cache is then as long as the past and the new tokens).
fn total_from_input(node: &Node, g: &Graph, x: &mut Expansion, (seq, past_len): (&str, &str)) -> OResult<String> {
    let name = node.input(6).unwrap_or_default();
    let Some(values) = data_input(g, node, 6) else {
        return err(format!(
            "GroupQueryAttention's total_sequence_length '{name}' must be computed from dims, a constant or a graph input"
        ));
    };
    let q = g.ty(&node.inputs[0])?.dims();
    let past = match node.input(3) {
        Some(p) => g.ty(p)?.dims().get(2).cloned().unwrap_or(Dim::fixed(0)),
        None => Dim::fixed(0),
    };
    let total = past.add(&q[1]);
    for v in values {
        g.require(v.eq(&DataExpr::Dim(total.clone())), format!("total_sequence_length '{name}' is past + sequence"))?;
    }
    Ok(x.op("Add", &[past_len, seq], &[]))
}

/// Each new token's position (`[batch, seq]`): `past_b + s`, or 1 for a padded token.
fn positions(node: &Node, g: &Graph, x: &mut Expansion, l: &Lengths) -> OResult<String> {
    if let Some(p) = node.input(9) {
        return Ok(x.cast(p, g.ty(p)?.dtype, DType::I64));
    }
    let s = x.range(&l.seq);
    let s = x.unsqueeze(&s, &[0]);
    let past = x.unsqueeze(&l.past, &[1]);
    let at = x.op("Add", &[&past, &s], &[]);
    let total = x.unsqueeze(&l.total, &[1]);
    let real = x.op("Less", &[&at, &total], &[]);
    let one = x.constant(Tensor::from_i64(vec![], &[1]));
    Ok(x.op("Where", &[&real, &at, &one], &[]))
}

/// `t` (`[batch, seq, heads * head]`) rotated by RotaryEmbedding at `positions`.
fn rotated(node: &Node, g: &Graph, x: &mut Expansion, t: &str, positions: &str, heads: i64) -> OResult<String> {
    let (Some(cos), Some(sin)) = (node.input(7), node.input(8)) else {
        return err("do_rotary needs cos_cache and sin_cache");
    };
    let Some(half) = g.ty(cos)?.dims().get(1).and_then(Dim::as_fixed) else {
        return err(format!("cos_cache '{cos}' must be [positions, rotary_dim / 2], not {}", g.ty(cos)?.describe()));
    };
    let attrs = [
        ("num_heads", Attr::Int(heads)),
        ("rotary_embedding_dim", Attr::Int(2 * half as i64)),
        ("interleaved", Attr::Int(node.int("rotary_interleaved", 0))),
    ];
    Ok(x.op("RotaryEmbedding", &[t, cos, sin, positions], &attrs))
}

/// The present cache (`[batch, kv_heads, present, head]`) of new tokens `new`
/// (`[batch, seq, kv_heads * head]`) after `past`: CacheWrite, which writes only the new rows
/// where the caller gives one buffer as past and present.
fn present(
    x: &mut Expansion,
    h: &Heads,
    l: &Lengths,
    new: &str,
    past: Option<&str>,
    output: Option<&String>,
) -> String {
    let split = x.reshape(new, &[0, 0, h.kv_heads, h.head]);
    let new = x.transpose(&split, &[0, 2, 1, 3]);
    // Without a past, an empty one: the new rows' first zero.
    let past = match past {
        Some(p) => p.to_string(),
        None => {
            let (zero, axis) = (x.ints(&[0]), x.ints(&[2]));
            x.op("Slice", &[&new, &zero, &zero, &axis], &[])
        }
    };
    let name = match output.filter(|n| !n.is_empty()) {
        Some(n) => n.clone(),
        None => x.fresh(),
    };
    x.op_in(crate::ops::XCC_DOMAIN, "CacheWrite", &[&past, &new, &l.past, &l.present], &[], &[&name]);
    name
}

/// The additive mask (`[batch, 1, seq, present]`): 0 where query `s` of row `b` sees key `j`
/// (`j <= past_b + s`, within the local window), -inf elsewhere, plus attention_bias.
fn mask(node: &Node, g: &Graph, x: &mut Expansion, l: &Lengths) -> OResult<String> {
    let dtype = g.ty(&node.inputs[0])?.dtype;
    let s = x.range(&l.seq);
    let s = x.unsqueeze(&s, &[0, 1, 3]);
    let past = x.unsqueeze(&l.past, &[1, 2, 3]);
    let at = x.op("Add", &[&past, &s], &[]);
    let j = x.range(&l.present);
    let j = x.unsqueeze(&j, &[0, 1, 2]);
    let mut allowed = x.op("LessOrEqual", &[&j, &at], &[]);
    // A window of w keys, the query's own position included (as ONNX Runtime 1.32 runs it).
    let window = node.int("local_window_size", -1);
    if window > 0 {
        let behind = x.op("Sub", &[&at, &j], &[]);
        let w = x.constant(Tensor::from_i64(vec![], &[window]));
        let within = x.op("Less", &[&behind, &w], &[]);
        allowed = x.op("And", &[&allowed, &within], &[]);
    }
    let (zero, neg_inf) = (x.scalar(0.0, dtype), x.scalar(f64::NEG_INFINITY, dtype));
    let bias = x.op("Where", &[&allowed, &zero, &neg_inf], &[]);
    Ok(match node.input(10) {
        Some(b) => x.op("Add", &[&bias, b], &[]),
        None => bias,
    })
}

/// The default domain's Attention over 4-D Q and the present caches, the output back to
/// `[batch, seq, heads * head]`.
fn attend(node: &Node, x: &mut Expansion, h: &Heads, q: &str, k: &str, v: &str, mask: &str) {
    let split = x.reshape(q, &[0, 0, h.heads, h.head]);
    let q = x.transpose(&split, &[0, 2, 1, 3]);
    let mut attrs = vec![];
    if node.float("scale", 0.0) != 0.0 {
        attrs.push(("scale", Attr::Float(node.float("scale", 1.0))));
    }
    if node.float("softcap", 0.0) != 0.0 {
        attrs.push(("softcap", Attr::Float(node.float("softcap", 0.0))));
    }
    let y = x.op("Attention", &[&q, k, v, mask], &attrs);
    let t = x.transpose(&y, &[0, 2, 1, 3]);
    let shape = x.ints(&[0, 0, -1]);
    x.op_to("Reshape", &[&t, &shape], &[], &[&node.outputs[0]]);
}

/// Attention whose softmax has one more logit per head that no value follows: `head_sink[h]`,
/// or 0 with `smooth_softmax` (each row's weights then sum to less than 1).
fn attend_with_sink(
    node: &Node,
    g: &Graph,
    x: &mut Expansion,
    h: &Heads,
    q: &str,
    (k, v): (&str, &str),
    mask: &str,
) -> OResult<()> {
    let dtype = g.ty(&node.inputs[0])?.dtype;
    let split = x.reshape(q, &[0, 0, h.heads, h.head]);
    let q = x.transpose(&split, &[0, 2, 1, 3]);
    // Each key/value head repeated for the query heads it serves.
    let group = h.heads / h.kv_heads;
    let mut repeat = |t: &str| {
        let u = x.unsqueeze(t, &[2]);
        let reps = x.ints(&[1, 1, group, 1, 1]);
        let tiled = x.op("Tile", &[&u, &reps], &[]);
        x.reshape(&tiled, &[0, h.heads, -1, h.head])
    };
    let (k, v) = (repeat(k), repeat(v));
    let scale = match node.float("scale", 0.0) as f64 {
        s if s != 0.0 => s,
        _ => 1.0 / (h.head as f64).sqrt(),
    };
    let kt = x.transpose(&k, &[0, 1, 3, 2]);
    let product = x.op("MatMul", &[&q, &kt], &[]);
    let factor = x.scalar(scale, dtype);
    let mut scores = x.op("Mul", &[&product, &factor], &[]);
    let softcap = node.float("softcap", 0.0) as f64;
    if softcap > 0.0 {
        let c = x.scalar(softcap, dtype);
        let s = x.op("Div", &[&scores, &c], &[]);
        let t = x.op("Tanh", &[&s], &[]);
        scores = x.op("Mul", &[&t, &c], &[]);
    }
    let scores = x.op("Add", &[&scores, mask], &[]);
    // The sink as one more column: [heads] to [batch, heads, seq, 1].
    let sink = match node.input(11) {
        Some(s) => x.reshape(s, &[1, h.heads, 1, 1]),
        None => x.scalar(0.0, dtype),
    };
    let lead = x.op("Shape", &[&scores], &[("end", Attr::Int(3))]);
    let one = x.ints(&[1]);
    let column = x.op("Concat", &[&lead, &one], &[("axis", Attr::Int(0))]);
    let sink = x.op("Expand", &[&sink, &column], &[]);
    let all = x.op("Concat", &[&scores, &sink], &[("axis", Attr::Int(-1))]);
    let weights = x.op("Softmax", &[&all], &[("axis", Attr::Int(-1))]);
    let (start, end, last) = (x.ints(&[0]), x.ints(&[-1]), x.ints(&[-1]));
    let weights = x.op("Slice", &[&weights, &start, &end, &last], &[]);
    let y = x.op("MatMul", &[&weights, &v], &[]);
    let t = x.transpose(&y, &[0, 2, 1, 3]);
    let shape = x.ints(&[0, 0, -1]);
    x.op_to("Reshape", &[&t, &shape], &[], &[&node.outputs[0]]);
    Ok(())
}
