//! com.microsoft RotaryEmbedding: the default domain's RotaryEmbedding (opset 23, which grew out
//! of it, [`crate::ops::nn::rotary`]) with the inputs in another order (`input, position_ids,
//! cos_cache, sin_cache`), position_ids required, and two differences:
//! - position_ids may be `[1]`, the position of the first token (the others follow it);
//! - with a 3-D input and num_heads 0, the heads are as wide as the rotated features
//!   (`2 * cos_cache`'s last dim).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct RotaryEmbedding;

impl Expanded for RotaryEmbedding {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        if node.float("scale", 1.0) != 1.0 {
            return err("RotaryEmbedding's scale other than 1 is not supported");
        }
        if node.int("is_packed_batching", 0) != 0 {
            return err("RotaryEmbedding's is_packed_batching is not supported");
        }
        let [input, positions, cos, sin] = [0, 1, 2, 3].map(|i| node.inputs.get(i).cloned().unwrap_or_default());
        let x_t = g.ty(&input)?;
        let cos_t = g.ty(&cos)?;
        let rank = x_t.shape.len();
        let mut attrs = node.attrs.clone();
        attrs.remove("scale");
        attrs.remove("is_packed_batching");
        if rank == 3 && node.int("num_heads", 0) == 0 {
            let head = 2 * cos_t.shape.last().copied().unwrap_or(0);
            if head == 0 || !x_t.shape[2].is_multiple_of(head) {
                return err(format!(
                    "{} features are not whole heads of {head} (2 * cos_cache's last dim)",
                    x_t.shape[2]
                ));
            }
            attrs.insert("num_heads".into(), Attr::Int((x_t.shape[2] / head) as i64));
        }
        let positions = if g.ty(&positions)?.shape.len() == 1 {
            // The first token's position: the sequence's are it, it + 1, ...
            let seq = x_t.shape[if rank == 3 { 1 } else { 2 }];
            let steps: Vec<i64> = (0..seq as i64).collect();
            let steps = x.constant(Tensor::from_i64(vec![seq], &steps));
            let each = x.op("Add", &[&positions, &steps], &[]);
            x.unsqueeze(&each, &[0])
        } else {
            positions
        };
        let onnx = Node {
            op: "RotaryEmbedding".into(),
            domain: String::new(),
            inputs: vec![input, cos, sin, positions],
            attrs,
            ..node.clone()
        };
        crate::ops::nn::rotary::expand(&onnx, g, x)
    }
}
