//! The kernel dialect's attention, a third table (`kernel.rs` holds the rest of the dialect):
//! `kernel.attention`, scaled dot-product attention over heads that may be grouped:
//!
//! ```text
//! out[b, h, s, :] = sum_t softmax_t(scale * Q[b, h, s, :] . K[b, h / g, t, :] + bias[b, h, s, t]) V[b, h / g, t, :]
//! ```
//!
//! with `g = Hq / Hkv` query heads per key/value head. Operands: `Q` (`[B, Hq, S, D]`), `K`
//! (`[B, Hkv, T, D]`), `V` (`[B, Hkv, T, Dv]`), optionally an additive `bias` (`[B or 1, Hq or 1,
//! S or 1, T]`, broadcast; -inf masks a key), and `out` (`[B, Hq, S, Dv]`), all f32. The heads
//! and the head sizes are static (the head sizes at most [`MAX_HEAD_SIZE`]); the batch, the
//! queries and the keys may be known only at run time. A row whose every key is masked is zeros (its weights are taken as zero, as ONNX's
//! Attention defines a fully masked row). `scale` is the factor of the scores.
//! `heads_per_pass`, the strategy `kernel-choose-strategies` records on a CPU (absent: 1), is
//! how many query heads of a group take their rows together in one pass over the group's keys
//! and values, each key read once for all of them; it divides `g`. `key_parts`, recorded with
//! it (absent: 1), is how many parts a lone query row's keys (`B * S = 1`: a decode step) may be
//! split into, each part's softmax computed apart and the parts' combined after, so that a long
//! cache is read by as many tasks as there are parts for each pass of heads.
//!
//! No score matrix is stored: a lowering computes each row's softmax online over blocks of
//! keys, so the keys and values are read once per query row and the grouped heads are never
//! repeated in memory.

use super::constraints::operand_types;
use crate::attributes::Attribute;
use crate::module::Module;
use crate::op_def::{optional, required, AttrKind, Count, OpDef, Traits};
use crate::types::Type;
use crate::OpId;

pub const OPS: &[OpDef] = &[OpDef::new("kernel.attention", "softmax(scale * Q K^T + bias) V over grouped heads")
    .operand_count(Count::AtLeast(4))
    .attrs(&[
        required("scale", AttrKind::Float),
        optional(HEADS_PER_PASS, AttrKind::Integer),
        optional(KEY_PARTS, AttrKind::Integer),
    ])
    .traits(Traits::READS.union(Traits::WRITES))
    .verify(verify_attention)];

/// The static sizes of a `kernel.attention`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AttentionShape {
    pub q_heads: u64,
    pub kv_heads: u64,
    pub head: u64,
    pub v_head: u64,
    pub has_bias: bool,
}

impl AttentionShape {
    /// The shape of a verified op.
    pub fn of(m: &Module, op: OpId) -> AttentionShape {
        shape(m, op).expect("a verified kernel.attention")
    }
}

fn shape(m: &Module, op: OpId) -> Result<AttentionShape, String> {
    let ins = operand_types(m, op);
    if ins.len() > 5 {
        return Err("operands: Q, K, V, an optional bias, the output".into());
    }
    let mut dims = Vec::new();
    for t in &ins {
        let mt = t.as_memref().ok_or_else(|| format!("operands are memrefs, not {t}"))?;
        if *mt.elem != Type::f32() || mt.rank() != 4 {
            return Err(format!("operands are 4-D f32 memrefs, not {t}"));
        }
        dims.push(mt.shape.clone());
    }
    let (q, k, v, out) = (&dims[0], &dims[1], &dims[2], &dims[dims.len() - 1]);
    let (Some(hq), Some(hkv), Some(d), Some(dv)) = (q[1], k[1], q[3], v[3]) else {
        return Err("the heads and head sizes must be static".into());
    };
    let agree = |a: Option<u64>, b: Option<u64>| a.is_none() || b.is_none() || a == b;
    let same = agree(q[0], k[0]) && agree(k[0], v[0]) && agree(k[2], v[2]) && k[3] == Some(d) && v[1] == Some(hkv);
    let output = agree(out[0], q[0]) && out[1] == Some(hq) && agree(out[2], q[2]) && out[3] == Some(dv);
    if hkv == 0 || hq % hkv != 0 || !same || !output {
        return Err(format!(
            "Q [B, Hq, S, D], K [B, Hkv, T, D], V [B, Hkv, T, Dv] and the output [B, Hq, S, Dv], Hq a multiple of Hkv: {}, {}, {}, {}",
            ins[0], ins[1], ins[2], ins[ins.len() - 1]
        ));
    }
    if d > MAX_HEAD_SIZE || dv > MAX_HEAD_SIZE {
        return Err(format!("head sizes are at most {MAX_HEAD_SIZE} (a row's sums are registers), not {d} and {dv}"));
    }
    let has_bias = dims.len() == 5;
    if has_bias {
        let bias = &dims[3];
        let broadcast = |b: Option<u64>, full: Option<u64>| b == Some(1) || agree(b, full);
        let fits = broadcast(bias[0], q[0])
            && broadcast(bias[1], Some(hq))
            && broadcast(bias[2], q[2])
            && agree(bias[3], k[2]);
        if !fits {
            return Err(format!("the bias broadcasts to [B, Hq, S, T]: {} for {}", ins[3], ins[0]));
        }
    }
    if scale(m, op).is_none_or(|s| !s.is_finite()) {
        return Err("scale is a finite float".into());
    }
    if let Some(Attribute::Integer { value, .. }) = m.attr(op, HEADS_PER_PASS) {
        if *value < 1 || (hq / hkv) as i128 % *value != 0 {
            return Err(format!("{HEADS_PER_PASS} divides the {} query heads of a group, not {value}", hq / hkv));
        }
    }
    Ok(AttentionShape { q_heads: hq, kv_heads: hkv, head: d, v_head: dv, has_bias })
}

/// The largest head size (of Q and K, and of V) the op takes: the kernels keep a row's output
/// sums in registers, one vector per 8 values (models' heads are 64 to 256).
pub const MAX_HEAD_SIZE: u64 = 512;

/// The strategy attribute: the query heads of a group in one pass over its keys.
pub const HEADS_PER_PASS: &str = "heads_per_pass";

/// The op's `heads_per_pass` (1 where none is recorded).
pub fn heads_per_pass(m: &Module, op: OpId) -> usize {
    match m.attr(op, HEADS_PER_PASS) {
        Some(Attribute::Integer { value, .. }) => *value as usize,
        _ => 1,
    }
}

/// The strategy attribute: the parts a lone query row's keys may be split into.
pub const KEY_PARTS: &str = "key_parts";

/// The op's `key_parts` (1 where none is recorded).
pub fn key_parts(m: &Module, op: OpId) -> usize {
    match m.attr(op, KEY_PARTS) {
        Some(Attribute::Integer { value, .. }) => (*value).max(1) as usize,
        _ => 1,
    }
}

/// The op's `scale`.
pub fn scale(m: &Module, op: OpId) -> Option<f64> {
    match m.attr(op, "scale")? {
        Attribute::Float { value, .. } => Some(*value),
        _ => None,
    }
}

fn verify_attention(m: &Module, op: OpId) -> Result<(), String> {
    shape(m, op).map(|_| ())
}
