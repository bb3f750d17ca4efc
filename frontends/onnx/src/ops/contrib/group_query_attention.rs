//! GroupQueryAttention (com.microsoft), the decoder attention ONNX Runtime's LLM exports write,
//! as the default domain's Attention: causal, `num_heads` query heads sharing `kv_num_heads`
//! key/value heads, the new keys and values appended to `past_key`/`past_value`
//! (`[batch, kv_heads, past, head]`) as `present_key`/`present_value`; `local_window_size` keys
//! seen by each query (its own included), `softcap`, `scale`, `attention_bias` added to the scores; with `do_rotary`,
//! Q and K rotated first (RotaryEmbedding, at positions `past + s` unless position_ids are
//! given). The query may hold Q, K and V packed (`[batch, seq, (heads + 2 kv_heads) * head]`).
//!
//! The batch must be unpadded: every `seqlens_k` is `past + seq - 1` and
//! `total_sequence_length` is `past + seq`, which the run checks where they are inputs
//! (ONNX Runtime's right-padded batches and shared past/present buffers are not supported).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::shapes::data_input;

pub struct GroupQueryAttention;

/// The dims: batch, new tokens, past tokens, heads and head size.
struct Dims {
    batch: usize,
    seq: usize,
    past: usize,
    heads: i64,
    kv_heads: i64,
    head: usize,
}

impl Expanded for GroupQueryAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        for (k, what) in [(11, "head_sink")] {
            if node.input(k).is_some() {
                return err(format!("GroupQueryAttention's {what} input is not supported"));
            }
        }
        if node.int("smooth_softmax", 0) != 0 {
            return err("GroupQueryAttention's smooth_softmax is not supported");
        }
        let dims = dims(node, g)?;
        let (mut q, mut k, mut v) = qkv(node, x, &dims)?;
        check_lengths(node, g, &dims)?;
        if node.int("do_rotary", 0) != 0 {
            q = rotated(node, g, x, &dims, &q, dims.heads)?;
            k = rotated(node, g, x, &dims, &k, dims.kv_heads)?;
        }
        let mut attrs = vec![
            ("q_num_heads", Attr::Int(dims.heads)),
            ("kv_num_heads", Attr::Int(dims.kv_heads)),
            ("is_causal", Attr::Int(1)),
        ];
        if node.attrs.contains_key("scale") && node.float("scale", 0.0) != 0.0 {
            attrs.push(("scale", Attr::Float(node.float("scale", 1.0))));
        }
        if node.float("softcap", 0.0) != 0.0 {
            attrs.push(("softcap", Attr::Float(node.float("softcap", 0.0))));
        }
        // A window of w keys, the query's own position included (as ONNX Runtime 1.32 runs it):
        // w - 1 keys before it.
        let window = node.int("local_window_size", -1);
        if window > 0 {
            attrs.push(("left_window_size", Attr::Int(window - 1)));
        }
        let (past_k, past_v) = (node.input(3).unwrap_or(""), node.input(4).unwrap_or(""));
        let mask = node.input(10).unwrap_or("");
        let (q, k, v) = (std::mem::take(&mut q), std::mem::take(&mut k), std::mem::take(&mut v));
        let inputs = [q.as_str(), &k, &v, mask, past_k, past_v];
        let used = if past_k.is_empty() {
            if mask.is_empty() {
                3
            } else {
                4
            }
        } else {
            6
        };
        let outputs: Vec<&str> = node.outputs.iter().take(3).map(String::as_str).collect();
        x.op_to("Attention", &inputs[..used], &attrs, &outputs);
        Ok(())
    }
}

fn dims(node: &Node, g: &Graph) -> OResult<Dims> {
    let (heads, kv_heads) = (node.int("num_heads", 0), node.int("kv_num_heads", 0));
    if heads <= 0 || kv_heads <= 0 || heads % kv_heads != 0 {
        return err(format!("num_heads ({heads}) must be a positive multiple of kv_num_heads ({kv_heads})"));
    }
    let q = g.ty(&node.inputs[0])?;
    if q.shape.len() != 3 {
        return err(format!("GroupQueryAttention's query must be [batch, seq, hidden], not {}", q.describe()));
    }
    let packed = node.input(1).is_none();
    let parts = if packed { heads + 2 * kv_heads } else { heads } as usize;
    if q.shape[2] % parts != 0 {
        return err(format!("the query's {} features do not split into {parts} heads", q.shape[2]));
    }
    let head = q.shape[2] / parts;
    let past = match node.input(3) {
        Some(p) => {
            let t = g.ty(p)?;
            if t.shape.len() != 4 || t.shape[0] != q.shape[0] || t.shape[1] != kv_heads as usize || t.shape[3] != head {
                return err(format!(
                    "past_key must be [{}, {kv_heads}, past, {head}], not {}",
                    q.shape[0],
                    t.describe()
                ));
            }
            t.shape[2]
        }
        None => 0,
    };
    Ok(Dims { batch: q.shape[0], seq: q.shape[1], past, heads, kv_heads, head })
}

/// Q, K and V, each `[batch, seq, heads * head]`: the inputs, or the packed query split.
fn qkv(node: &Node, x: &mut Expansion, d: &Dims) -> OResult<(String, String, String)> {
    if let (Some(k), Some(v)) = (node.input(1), node.input(2)) {
        return Ok((node.inputs[0].clone(), k.to_string(), v.to_string()));
    }
    if node.input(1).is_some() || node.input(2).is_some() {
        return err("GroupQueryAttention takes both key and value, or neither (packed in the query)");
    }
    let (q_len, kv_len) = (d.heads * d.head as i64, d.kv_heads * d.head as i64);
    let split = x.ints(&[q_len, kv_len, kv_len]);
    let names = [x.fresh(), x.fresh(), x.fresh()];
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    x.op_to("Split", &[&node.inputs[0], &split], &[("axis", Attr::Int(2))], &refs);
    let [q, k, v] = names;
    Ok((q, k, v))
}

/// Checks that the batch is unpadded: `seqlens_k[b] == past + seq - 1` and
/// `total_sequence_length == past + seq`, now for constants, by the run for graph inputs.
fn check_lengths(node: &Node, g: &Graph, d: &Dims) -> OResult<()> {
    let total = (d.past + d.seq) as i64;
    for (i, want, what) in [(5, total - 1, "seqlens_k"), (6, total, "total_sequence_length")] {
        let Some(name) = node.input(i) else {
            return err(format!("GroupQueryAttention needs its {what} input"));
        };
        if let Some(t) = g.consts.get(name) {
            if t.to_i64().iter().any(|&v| v != want) {
                return err(format!("{what} must be {want} everywhere (an unpadded batch), not {:?}", t.to_i64()));
            }
            continue;
        }
        let Some(values) = data_input(g, node, i) else {
            return err(format!("GroupQueryAttention's {what} '{name}' must be a constant or a graph input"));
        };
        let expected = if i == 5 { d.batch } else { 1 };
        if values.len() != expected {
            return err(format!("{what} must hold {expected} value(s), not {}", values.len()));
        }
        for v in values {
            let holds = v.eq(&DataExpr::num(want));
            g.require_supported(holds, format!("{what} must be {want} (a right-padded batch is not supported)"))?;
        }
    }
    Ok(())
}

/// `t` (`[batch, seq, heads * head]`) rotated by RotaryEmbedding at its positions.
fn rotated(node: &Node, g: &Graph, x: &mut Expansion, d: &Dims, t: &str, heads: i64) -> OResult<String> {
    let (Some(cos), Some(sin)) = (node.input(7), node.input(8)) else {
        return err("do_rotary needs cos_cache and sin_cache");
    };
    let half = g.ty(cos)?.shape.get(1).copied().unwrap_or(0);
    let positions = match node.input(9) {
        Some(p) => x.cast(p, g.ty(p)?.dtype, DType::I64),
        None => {
            let rows: Vec<i64> = (0..d.batch).flat_map(|_| (0..d.seq).map(|s| (d.past + s) as i64)).collect();
            x.constant(Tensor::from_i64(vec![d.batch, d.seq], &rows))
        }
    };
    let attrs = [
        ("num_heads", Attr::Int(heads)),
        ("rotary_embedding_dim", Attr::Int(2 * half as i64)),
        ("interleaved", Attr::Int(node.int("rotary_interleaved", 0))),
    ];
    Ok(x.op("RotaryEmbedding", &[t, cos, sin, &positions], &attrs))
}
