//! RotaryEmbedding (opset 23), expanded ([`crate::ops::expansion`]): the first
//! rotary_embedding_dim features of each head (all of them by default) rotated in pairs by the
//! angle of their position, the rest passed through. The pairs are the two halves of those
//! features, or neighbours with `interleaved`; `cos_cache` and `sin_cache` hold the cosines and
//! sines per position (`[max_position, dim / 2]`, indexed by position_ids) or per token already
//! (`[batch, seq, dim / 2]`, without position_ids). The input is `[batch, heads, seq, head]`, or
//! `[batch, seq, heads * head]` with num_heads.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct RotaryEmbedding;

impl Expanded for RotaryEmbedding {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        expand(node, g, x)
    }
}

/// The expansion, for a node with RotaryEmbedding's inputs and attributes (com.microsoft's
/// RotaryEmbedding writes one: [`crate::ops::contrib`]).
pub(crate) fn expand(node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
    let x_t = super::float_input(node, g)?;
    let rank = x_t.shape.len();
    // Work on [batch, seq, heads, head] (3-D) or [batch, heads, seq, head] (4-D); the cosines
    // broadcast as [batch, seq, 1, half] or [batch, 1, seq, half].
    let (input, head, token_axis) = match rank {
        4 => (node.inputs[0].clone(), x_t.shape[3], 1),
        3 => {
            let heads = node.int("num_heads", 0);
            if heads <= 0 || !x_t.shape[2].is_multiple_of(heads as usize) {
                return err(format!("a 3-D input needs num_heads dividing its {} features", x_t.shape[2]));
            }
            (x.reshape(&node.inputs[0], &[0, 0, heads, -1]), x_t.shape[2] / heads as usize, 2)
        }
        _ => return err(format!("the input must be 3-D or 4-D, not {}", x_t.describe())),
    };
    let dim = match node.int("rotary_embedding_dim", 0) {
        0 => head,
        d if d > 0 && d as usize <= head && d % 2 == 0 => d as usize,
        d => return err(format!("rotary_embedding_dim {d} must be even and at most the head size {head}")),
    };
    let half = dim as i64 / 2;
    let [cos, sin] = [1, 2].map(|i| per_token(node, x, i, token_axis));
    let (cos, sin) = (cos?, sin?);
    let slice = |x: &mut Expansion, from: i64, to: i64, step: i64| {
        let (a, b, axes, steps) = (x.ints(&[from]), x.ints(&[to]), x.ints(&[-1]), x.ints(&[step]));
        x.op("Slice", &[&input, &a, &b, &axes, &steps], &[])
    };
    let interleaved = node.int("interleaved", 0) != 0;
    let (first, second) = if interleaved {
        (slice(x, 0, dim as i64, 2), slice(x, 1, dim as i64, 2))
    } else {
        (slice(x, 0, half, 1), slice(x, half, dim as i64, 1))
    };
    let rotate = |x: &mut Expansion, a: &str, b: &str, op: &str| {
        let ac = x.op("Mul", &[a, &cos], &[]);
        let bs = x.op("Mul", &[b, &sin], &[]);
        x.op(op, &[&ac, &bs], &[])
    };
    let new_first = rotate(x, &first, &second, "Sub");
    let new_second = rotate(x, &second, &first, "Add");
    let rotated = if interleaved {
        let (a, b) = (x.unsqueeze(&new_first, &[-1]), x.unsqueeze(&new_second, &[-1]));
        let pairs = x.op("Concat", &[&a, &b], &[("axis", Attr::Int(-1))]);
        x.reshape(&pairs, &[0, 0, 0, -1])
    } else {
        x.op("Concat", &[&new_first, &new_second], &[("axis", Attr::Int(-1))])
    };
    let full = if dim < head {
        let rest = slice(x, dim as i64, head as i64, 1);
        x.op("Concat", &[&rotated, &rest], &[("axis", Attr::Int(-1))])
    } else {
        rotated
    };
    if rank == 3 {
        let shape = x.ints(&[0, 0, -1]);
        x.op_to("Reshape", &[&full, &shape], &[], &[&node.outputs[0]]);
    } else {
        x.output(&full, Some(&node.outputs[0]));
    }
    Ok(())
}

/// Cache input `i` as `[batch, seq, half]` (gathered at position_ids when given), with a dim of
/// 1 inserted at `heads_axis` to broadcast over the heads.
fn per_token(node: &Node, x: &mut Expansion, i: usize, heads_axis: i64) -> OResult<String> {
    let cache = &node.inputs[i];
    let tokens = match node.input(3) {
        Some(positions) => x.op("Gather", &[cache, positions], &[("axis", Attr::Int(0))]),
        None => cache.clone(),
    };
    Ok(x.unsqueeze(&tokens, &[heads_axis]))
}
