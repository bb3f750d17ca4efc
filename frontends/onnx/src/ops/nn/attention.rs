//! Attention (opsets 23 to 25), expanded into MatMul, Softmax and the ops that build its mask:
//!
//! - Q, K and V are `[batch, heads, seq, head_size]`, or `[batch, seq, heads * head_size]`
//!   with the head counts as attributes (then Y is 3-D too);
//! - past_key and past_value are concatenated before K and V (and are present_key and
//!   present_value); with fewer K/V heads than Q heads (grouped-query attention) each K/V head
//!   serves `q_heads / kv_heads` consecutive Q heads;
//! - the scores `Q K^T * scale` (scale defaults to `1/sqrt(head_size)`) are soft-capped
//!   (`softcap * tanh(s / softcap)`), then biased by the mask: a float attn_mask added, a bool
//!   one allowing where true, its last dim padded with "masked" up to the total sequence; causal
//!   masking, the left and right windows and nonpad_kv_seqlen (opset 24) mask by position, the
//!   query at row `i` sitting at key position `i + past` (`i + nonpad - q_seq` with
//!   nonpad_kv_seqlen);
//! - a row that is masked everywhere gets zero weights, not NaNs;
//! - qk_matmul_output is the scores (mode 0), soft-capped (1), biased (2) or the weights (3).
//!
//! The mask pieces that depend on dims only fold to one constant at compile time. In f32, with
//! no soft cap and no qk_matmul_output, the scores, softmax and weighted sum are one
//! `kernel.attention` (xcc's own `AttentionRows`): the softmax is computed online over the
//! keys, K and V are read where they are (grouped heads are not repeated) and no score matrix
//! is stored.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;

pub struct Attention;

/// xcc's own `AttentionRows(Q, K, V[, bias])` with `scale`: 4-D Q `[B, Hq, S, D]`, K and V
/// `[B, Hkv, T, *]`, a bias broadcast to `[B, Hq, S, T]`; `kernel.attention`. Written by
/// [`Attention`].
pub struct AttentionRows;

impl Expanded for Attention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        expand(node, g, x)
    }
}

/// Q, K and V as `[batch, heads, seq, head_size]`, with what the rest needs of their dims.
struct Heads {
    q: String,
    k: String,
    v: String,
    q_heads: usize,
    kv_heads: usize,
    head_size: usize,
    v_head_size: usize,
    three_d: bool,
}

fn expand(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
    let q_t = g.ty(&node.inputs[0])?;
    let dtype = q_t.dtype;
    if !dtype.is_float() {
        return err(format!("Q must be floating point, not {}", dtype.name()));
    }
    let h = heads_first(node, g, x)?;
    let (k, v) = with_past(node, g, x, &h)?;
    let scale = match node.attrs.get("scale") {
        Some(_) => node.float("scale", 1.0) as f64,
        None => 1.0 / (h.head_size as f64).sqrt(),
    };
    if fuses(node, g, &h)? {
        let mut inputs = vec![h.q.clone(), k.clone(), v.clone()];
        if let Some(bias) = mask_bias(node, g, x, &h, &k, dtype)? {
            // At rank 4: broadcast against ones, which keeps the bias's dims.
            let ones = x.ints(&[1, 1, 1, 1]);
            inputs.push(x.op("Expand", &[&bias, &ones], &[]));
        }
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        let y = x.fresh();
        x.op_in(crate::ops::XCC_DOMAIN, "AttentionRows", &refs, &[("scale", Attr::Float(scale as f32))], &[&y]);
        output(node, x, &h, &y);
        return Ok(());
    }
    let (k, v) = grouped(x, &h, k, v);
    // Q and K each scaled by sqrt(scale), as ONNX's definition does: in float16, scaling the
    // scores once rounds differently.
    let root = x.scalar(scale.sqrt(), dtype);
    let q = x.op("Mul", &[&h.q, &root], &[]);
    let k = x.op("Mul", &[&k, &root], &[]);
    let kt = x.transpose(&k, &[0, 1, 3, 2]);
    let scores = x.op("MatMul", &[&q, &kt], &[]);
    let mut stages = vec![scores.clone()];
    let softcap = node.float("softcap", 0.0) as f64;
    let capped = if softcap > 0.0 {
        let c = x.scalar(softcap, dtype);
        let s = x.op("Div", &[&scores, &c], &[]);
        let t = x.op("Tanh", &[&s], &[]);
        x.op("Mul", &[&t, &c], &[])
    } else {
        scores
    };
    stages.push(capped.clone());
    let bias = mask_bias(node, g, x, &h, &k, dtype)?;
    let biased = match &bias {
        Some(b) => x.op("Add", &[&capped, b], &[]),
        None => capped,
    };
    stages.push(biased.clone());
    let mut weights = softmax(node, x, &biased, dtype)?;
    if let Some(b) = bias.as_ref().filter(|_| may_mask_a_whole_row(node)) {
        // A row masked everywhere: softmax of -inf everywhere is NaN; its weights are zero.
        let last = x.ints(&[-1]);
        let row_max = x.op("ReduceMax", &[b, &last], &[("keepdims", Attr::Int(1))]);
        let neg_inf = x.scalar(f64::NEG_INFINITY, dtype);
        let all_masked = x.op("Equal", &[&row_max, &neg_inf], &[]);
        let zero = x.scalar(0.0, dtype);
        weights = x.op("Where", &[&all_masked, &zero, &weights], &[]);
    }
    stages.push(weights.clone());
    let mode = node.int("qk_matmul_output_mode", 0);
    let Some(stage) = usize::try_from(mode).ok().and_then(|m| stages.get(m)) else {
        return err(format!("qk_matmul_output_mode must be 0, 1, 2 or 3, not {mode}"));
    };
    let stage = stage.clone();
    x.output(&stage, node.outputs.get(3).map(String::as_str));
    let y = x.op("MatMul", &[&weights, &v], &[]);
    output(node, x, &h, &y);
    Ok(())
}

/// Y from the heads' outputs `[B, H, S, Dv]`: as it is, or `[B, S, H * Dv]` for 3-D inputs.
fn output(node: &Node, x: &mut Expansion, h: &Heads, y: &str) {
    if h.three_d {
        let t = x.transpose(y, &[0, 2, 1, 3]);
        let shape = x.ints(&[0, 0, -1]);
        x.op_to("Reshape", &[&t, &shape], &[], &[&node.outputs[0]]);
    } else {
        x.output(y, Some(&node.outputs[0]));
    }
}

/// Whether the attention is one `kernel.attention`: f32 computed in f32, no soft cap, no
/// qk_matmul_output, head sizes of whole vectors, and an attn_mask (if any) that covers the keys
/// rather than broadcasting over them.
fn fuses(node: &Node, g: &Graph, h: &Heads) -> OResult<bool> {
    let q = g.ty(&node.inputs[0])?;
    let f32_softmax = matches!(node.int("softmax_precision", 0), 0 | 1);
    let scores_wanted = node.outputs.get(3).is_some_and(|o| !o.is_empty());
    // K and V (and their pasts) must agree on the keys and the batch for one kernel to take
    // them; where they do not, the expansion's MatMuls say why.
    let same = |a: usize, b: usize, axes: &[usize]| -> OResult<bool> {
        let (x, y) = (g.ty(&node.inputs[a])?.dims(), g.ty(&node.inputs[b])?.dims());
        Ok(x.len() == y.len() && axes.iter().all(|&i| i < x.len() && x[i] == y[i]))
    };
    let rank = q.shape.len();
    let inputs_f32 = [Some(0), Some(1), Some(2), node.input(4).map(|_| 4), node.input(5).map(|_| 5)]
        .into_iter()
        .flatten()
        .map(|i| g.ty(&node.inputs[i]).map(|t| t.dtype == DType::F32))
        .collect::<OResult<Vec<bool>>>()?
        .into_iter()
        .all(|f| f);
    let keys_agree = same(1, 2, &[0, rank - 2])? && same(0, 1, &[0])?;
    let pasts_agree = match (node.input(4), node.input(5)) {
        (Some(_), Some(_)) => same(4, 5, &[0, 1, 2])?,
        (None, None) => true,
        _ => false,
    };
    // The mask over the keys (its last dim not 1), its other dims broadcasting to [batch,
    // heads, queries]; where they do not, the expansion's Add says why.
    let mask_over_keys = match node.input(3) {
        Some(m) => {
            let (mask, q) = (g.ty(m)?.dims(), q.dims());
            let want = [q[0].clone(), Dim::fixed(h.q_heads), q[rank - 2].clone()];
            let lead = &mask[..mask.len().saturating_sub(1)];
            mask.last().and_then(Dim::as_fixed) != Some(1)
                && mask.len() <= 4
                && lead.iter().rev().zip(want.iter().rev()).all(|(m, w)| m.as_fixed() == Some(1) || m == w)
        }
        None => true,
    };
    Ok(inputs_f32
        && f32_softmax
        && node.float("softcap", 0.0) == 0.0
        && node.float("scale", 1.0).is_finite()
        && !scores_wanted
        && mask_over_keys
        && keys_agree
        && pasts_agree
        && h.head_size.is_multiple_of(8)
        && h.v_head_size.is_multiple_of(8)
        && h.head_size.max(h.v_head_size) as u64 <= xcc_ir::dialects::kernel_attention::MAX_HEAD_SIZE)
}

impl OnnxOp for AttentionRows {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (q, v) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[2])?);
        let (mut dims, v_dims) = (q.dims(), v.dims());
        let bias_rank = node.input(3).map(|b| g.ty(b).map(|t| t.shape.len())).transpose()?;
        if dims.len() != 4 || v_dims.len() != 4 || bias_rank.is_some_and(|r| r != 4) {
            return err(format!("Q, V and the bias must be 4-D, not {} and {}", q.describe(), v.describe()));
        }
        let scale = node.float("scale", 1.0);
        if !scale.is_finite() {
            return err(format!("scale must be a finite number, not {scale}"));
        }
        let k_dims = g.ty(&node.inputs[1])?.dims();
        let f32s = [&node.inputs[0], &node.inputs[1], &node.inputs[2]]
            .into_iter()
            .chain(node.input(3).map(|_| &node.inputs[3]))
            .map(|n| g.ty(n).map(|t| t.dtype == DType::F32))
            .collect::<OResult<Vec<bool>>>()?;
        if f32s.contains(&false) {
            return err("AttentionRows computes in float32: Q, K, V and the bias");
        }
        if k_dims.len() != 4 || k_dims[2] != v_dims[2] || k_dims[1] != v_dims[1] || k_dims[3] != dims[3] {
            return err(format!(
                "K and V must have the same heads and keys, and K Q's head size: Q {}, K {}, V {}",
                q.describe(),
                g.ty(&node.inputs[1])?.describe(),
                v.describe()
            ));
        }
        let most = xcc_ir::dialects::kernel_attention::MAX_HEAD_SIZE as usize;
        if [&dims[3], &v_dims[3]].iter().any(|d| d.as_fixed().is_none_or(|d| d > most)) {
            return err(format!(
                "the head sizes must be known and at most {most}: Q {}, V {}",
                q.describe(),
                v.describe()
            ));
        }
        dims[3] = v_dims[3].clone();
        Ok(vec![TensorType::with_dims(DType::F32, dims)])
    }

    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        let operands: Vec<xcc_ir::ValueId> =
            node.inputs.iter().chain(&node.outputs).map(|name| e.buf(name)).collect::<OResult<_>>()?;
        let scale = xcc_ir::Attribute::Float { value: node.float("scale", 1.0) as f64, ty: xcc_ir::Type::f32() };
        e.op(xcc_ir::OpSpec::new("kernel.attention", xcc_ir::Span::UNKNOWN).operands(operands).attr("scale", scale));
        Ok(())
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }
}

/// Whether some row may have every key masked: not with causality alone, where each query
/// sees the first key.
fn may_mask_a_whole_row(node: &Node) -> bool {
    let windowed = node.int("left_window_size", -1) >= 0 || node.int("right_window_size", -1) >= 0;
    node.input(3).is_some() || node.input(6).is_some() || windowed
}

/// Q, K and V as `[batch, heads, seq, head_size]`: 3-D inputs split into the attributes' heads.
fn heads_first(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<Heads> {
    let types: Vec<&TensorType> = node.inputs[..3].iter().map(|n| g.ty(n)).collect::<OResult<_>>()?;
    let rank = types[0].shape.len();
    if !(rank == 3 || rank == 4) || types.iter().any(|t| t.shape.len() != rank) {
        let ranks: Vec<String> = types.iter().map(|t| t.describe()).collect();
        return err(format!("Q, K and V must all be 3-D or all 4-D, not {}", ranks.join(", ")));
    }
    let last = |t: &TensorType, what: &str| -> OResult<usize> {
        match t.dims()[rank - 1].as_fixed() {
            Some(n) => Ok(n),
            None => err(format!("the last dim of {what} must be known at compile time, not {}", t.describe())),
        }
    };
    let (q_last, k_last, v_last) = (last(types[0], "Q")?, last(types[1], "K")?, last(types[2], "V")?);
    if rank == 4 {
        let heads = |t: &TensorType, what: &str| -> OResult<usize> {
            t.dims()[1].as_fixed().ok_or_else(|| {
                OnnxError::msg(format!("the head count (dim 1) of {what} must be known at compile time"))
            })
        };
        let (q_heads, kv_heads) = (heads(types[0], "Q")?, heads(types[1], "K")?);
        let [q, k, v] = [0, 1, 2].map(|i| node.inputs[i].clone());
        let h = Heads { q, k, v, q_heads, kv_heads, head_size: q_last, v_head_size: v_last, three_d: false };
        return check_heads(h, k_last);
    }
    let (q_heads, kv_heads) = (node.int("q_num_heads", 0), node.int("kv_num_heads", 0));
    if q_heads <= 0 || kv_heads <= 0 {
        return err("3-D Q, K and V need the q_num_heads and kv_num_heads attributes");
    }
    let (q_heads, kv_heads) = (q_heads as usize, kv_heads as usize);
    for (last, heads, what) in [(q_last, q_heads, "Q"), (k_last, kv_heads, "K"), (v_last, kv_heads, "V")] {
        if !last.is_multiple_of(heads) {
            return err(format!("{what}'s hidden size {last} is not a multiple of its {heads} heads"));
        }
    }
    let mut split = |name: &str, heads: usize| {
        let r = x.reshape(name, &[0, 0, heads as i64, -1]);
        x.transpose(&r, &[0, 2, 1, 3])
    };
    let (q, k, v) =
        (split(&node.inputs[0], q_heads), split(&node.inputs[1], kv_heads), split(&node.inputs[2], kv_heads));
    let h = Heads {
        q,
        k,
        v,
        q_heads,
        kv_heads,
        head_size: q_last / q_heads,
        v_head_size: v_last / kv_heads,
        three_d: true,
    };
    check_heads(h, k_last / kv_heads)
}

fn check_heads(h: Heads, k_head_size: usize) -> OResult<Heads> {
    if k_head_size != h.head_size {
        return err(format!("Q's head size {} differs from K's {k_head_size}", h.head_size));
    }
    if h.kv_heads == 0 || !h.q_heads.is_multiple_of(h.kv_heads) {
        return err(format!("Q's {} heads are not a multiple of K's and V's {}", h.q_heads, h.kv_heads));
    }
    Ok(h)
}

/// K and V after past_key and past_value (inputs 4 and 5), written to present_key and
/// present_value (outputs 1 and 2).
fn with_past(node: &Node, g: &Graph, x: &mut Expansion, h: &Heads) -> OResult<(String, String)> {
    let mut joined = Vec::new();
    for (current, past, present) in [(&h.k, 4, 1), (&h.v, 5, 2)] {
        let all = match node.input(past) {
            Some(p) => {
                if g.ty(p)?.shape.len() != 4 {
                    return err(format!("{} must be 4-D, not {}", p, g.ty(p)?.describe()));
                }
                x.op("Concat", &[p, current], &[("axis", Attr::Int(2))])
            }
            None => current.clone(),
        };
        x.output(&all, node.outputs.get(present).map(String::as_str));
        joined.push(all);
    }
    let v = joined.pop().expect("two");
    Ok((joined.pop().expect("two"), v))
}

/// K and V with each head repeated for the `q_heads / kv_heads` Q heads it serves.
fn grouped(x: &mut Expansion, h: &Heads, k: String, v: String) -> (String, String) {
    if h.q_heads == h.kv_heads {
        return (k, v);
    }
    let group = (h.q_heads / h.kv_heads) as i64;
    let mut repeat = |t: &str, size: usize| {
        let u = x.unsqueeze(t, &[2]);
        let reps = x.ints(&[1, 1, group, 1, 1]);
        let tiled = x.op("Tile", &[&u, &reps], &[]);
        x.reshape(&tiled, &[0, h.q_heads as i64, -1, size as i64])
    };
    (repeat(&k, h.head_size), repeat(&v, h.v_head_size))
}

/// The additive mask: attn_mask (bool as 0 or -inf, padded to the total sequence with -inf)
/// plus -inf where causality, the windows or nonpad_kv_seqlen mask; `None` without any.
fn mask_bias(node: &Node, g: &Graph, x: &mut Expansion, h: &Heads, k: &str, d: DType) -> OResult<Option<String>> {
    let mut bias = match node.input(3) {
        Some(m) => Some(attn_mask(node, g, x, m, k, d)?),
        None => None,
    };
    if let Some(allowed) = allowed_positions(node, g, x, &h.q, k)? {
        let (zero, neg_inf) = (x.scalar(0.0, d), x.scalar(f64::NEG_INFINITY, d));
        let b = x.op("Where", &[&allowed, &zero, &neg_inf], &[]);
        bias = Some(match bias {
            Some(m) => x.op("Add", &[&m, &b], &[]),
            None => b,
        });
    }
    Ok(bias)
}

/// attn_mask as a bias of element type `d`, its last dim padded to the total sequence.
fn attn_mask(node: &Node, g: &Graph, x: &mut Expansion, mask: &str, k: &str, d: DType) -> OResult<String> {
    let t = g.ty(mask)?.clone();
    let bias = if t.dtype == DType::Bool {
        let (zero, neg_inf) = (x.scalar(0.0, d), x.scalar(f64::NEG_INFINITY, d));
        x.op("Where", &[mask, &zero, &neg_inf], &[])
    } else if t.dtype.is_float() {
        x.cast(mask, t.dtype, d)
    } else {
        return err(format!("attn_mask must be bool or floating point, not {}", t.dtype.name()));
    };
    let last = t.dims().last().and_then(Dim::as_fixed);
    if last.is_some() && last == total_keys(node, g) {
        return Ok(bias);
    }
    pad_mask(x, &bias, &t, k, d)
}

/// The total key sequence (past and current) where it is known at compile time.
fn total_keys(node: &Node, g: &Graph) -> Option<usize> {
    let k = g.ty(&node.inputs[1]).ok()?;
    let current = k.dims()[if k.shape.len() == 4 { 2 } else { 1 }].as_fixed()?;
    let past = match node.input(4) {
        Some(p) => g.ty(p).ok()?.dims().get(2)?.as_fixed()?,
        None => 0,
    };
    Some(current + past)
}

/// `bias` with its last dim padded with -inf up to K's sequence length (unchanged when equal).
fn pad_mask(x: &mut Expansion, bias: &str, t: &TensorType, k: &str, d: DType) -> OResult<String> {
    let rank = t.shape.len() as i64;
    if rank == 0 {
        return err("attn_mask must have at least one dim");
    }
    let total = x.dim(k, 2);
    let mask_len = x.dim(bias, -1);
    let missing = x.op("Sub", &[&total, &mask_len], &[]);
    let missing = x.unsqueeze(&missing, &[0]);
    let before = x.ints(&[0]);
    let pads = x.op("Concat", &[&before, &missing], &[("axis", Attr::Int(0))]);
    let neg_inf = x.scalar(f64::NEG_INFINITY, d);
    let axes = x.ints(&[-1]);
    Ok(x.op("Pad", &[bias, &pads, &neg_inf, &axes], &[]))
}

/// Where each query may see each key (bool, broadcasting to `[batch, heads, q_seq, total]`):
/// causality, the left and right windows and nonpad_kv_seqlen; `None` when nothing masks.
fn allowed_positions(node: &Node, g: &Graph, x: &mut Expansion, q: &str, k: &str) -> OResult<Option<String>> {
    let causal = node.int("is_causal", 0) != 0;
    let (left, right) = (node.int("left_window_size", -1), node.int("right_window_size", -1));
    let nonpad = node.input(6);
    if !causal && left < 0 && right < 0 && nonpad.is_none() {
        return Ok(None);
    }
    let (zero, one) = (x.constant(Tensor::from_i64(vec![], &[0])), x.constant(Tensor::from_i64(vec![], &[1])));
    let (q_len, total) = (x.dim(q, 2), x.dim(k, 2));
    let rows = x.op("Range", &[&zero, &q_len, &one], &[]);
    let rows = x.unsqueeze(&rows, &[1]);
    let cols = x.op("Range", &[&zero, &total, &one], &[]);
    let offset = match (nonpad, node.input(4)) {
        (Some(n), _) => {
            let (t, batch) = (g.ty(n)?, g.ty(q)?.dims()[0].clone());
            if t.dtype != DType::I64 || t.dims() != [batch.clone()] {
                return err(format!(
                    "nonpad_kv_seqlen must be int64 [{batch}], a length per batch, not {}",
                    t.describe()
                ));
            }
            let shift = x.op("Sub", &[n, &q_len], &[]);
            Some(x.unsqueeze(&shift, &[1, 2, 3]))
        }
        (None, Some(past)) => Some(x.dim(past, 2)),
        (None, None) => None,
    };
    let at = match offset {
        Some(o) => x.op("Add", &[&rows, &o], &[]),
        None => rows,
    };
    let mut pieces = Vec::new();
    if causal {
        pieces.push(x.op("LessOrEqual", &[&cols, &at], &[]));
    }
    if left >= 0 {
        let behind = x.op("Sub", &[&at, &cols], &[]);
        let w = x.constant(Tensor::from_i64(vec![], &[left]));
        pieces.push(x.op("LessOrEqual", &[&behind, &w], &[]));
    }
    if right >= 0 {
        let ahead = x.op("Sub", &[&cols, &at], &[]);
        let w = x.constant(Tensor::from_i64(vec![], &[right]));
        pieces.push(x.op("LessOrEqual", &[&ahead, &w], &[]));
    }
    if let Some(n) = nonpad {
        let n = x.unsqueeze(n, &[1, 2, 3]);
        pieces.push(x.op("Less", &[&cols, &n], &[]));
    }
    let mut allowed = pieces.remove(0);
    for p in pieces {
        allowed = x.op("And", &[&allowed, &p], &[]);
    }
    Ok(Some(allowed))
}

/// Softmax over the keys, in softmax_precision's type where it names a supported one.
fn softmax(node: &Node, x: &mut Expansion, scores: &str, d: DType) -> OResult<String> {
    let precision = match node.int("softmax_precision", 0) {
        0 => d,
        code => DType::from_onnx(code as i32).filter(|p| p.is_float()).ok_or_else(|| {
            OnnxError::msg(format!("softmax_precision {} is not supported", DType::onnx_name(code as i32)))
        })?,
    };
    let s = x.cast(scores, d, precision);
    let p = x.op("Softmax", &[&s], &[("axis", Attr::Int(-1))]);
    Ok(x.cast(&p, precision, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A causal, grouped-query Attention over 3-D inputs with a past, inferred: the types come
    /// out as the operator defines them, and the mask, which depends on dims only, is folded
    /// (no Range, comparison or Where is left to run).
    #[test]
    fn a_causal_mask_folds_and_the_types_follow_the_definition() {
        let attrs = [("is_causal", Attr::Int(1)), ("q_num_heads", Attr::Int(4)), ("kv_num_heads", Attr::Int(2))];
        let node = Node {
            name: "attn".into(),
            op: "Attention".into(),
            domain: String::new(),
            inputs: ["q", "k", "v", "", "past_k", "past_v"].map(String::from).to_vec(),
            outputs: ["y", "present_k", "present_v"].map(String::from).to_vec(),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
            opset: 23,
            guard: None,
        };
        let mut g = Graph { nodes: vec![node], outputs: vec!["y".into(), "present_k".into()], ..Default::default() };
        for (name, shape) in [
            ("q", vec![2, 3, 32]),
            ("k", vec![2, 3, 16]),
            ("v", vec![2, 3, 12]),
            ("past_k", vec![2, 2, 5, 8]),
            ("past_v", vec![2, 2, 5, 6]),
        ] {
            g.inputs.push(name.into());
            g.types.insert(name.into(), TensorType::new(DType::F32, shape));
        }
        crate::infer::infer_and_fold(&mut g).unwrap();
        assert_eq!(g.ty("y").unwrap().shape, [2, 3, 24], "[batch, q_seq, q_heads * v_head_size]");
        assert_eq!(g.ty("present_k").unwrap().shape, [2, 2, 8, 8], "past and current keys, per K head");
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        for folded in ["Range", "LessOrEqual", "Where", "Shape"] {
            assert!(!ops.contains(&folded), "{folded} left to run: {ops:?}");
        }
        assert_eq!(ops.iter().filter(|&&op| op == "MatMul").count(), 2);
        assert!(ops.contains(&"Softmax"));
    }
}
