//! ArrayFeatureExtractor: the elements at the indices `Y` (any shape, read flat) along the last
//! axis of `X`; a vector `X` gives a `[1, n]` result, as the operator's reference does.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct ArrayFeatureExtractor;

impl Expanded for ArrayFeatureExtractor {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (data, indices) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        if data.shape.is_empty() {
            return err("ArrayFeatureExtractor takes a tensor of rank 1 or more, not a scalar");
        }
        if indices.dtype != DType::I64 {
            return err(format!("ArrayFeatureExtractor's indices must be int64, not {}", indices.dtype.name()));
        }
        let flat = x.reshape(&node.inputs[1], &[-1]);
        let picked = x.op("Gather", &[&node.inputs[0], &flat], &[("axis", Attr::Int(-1))]);
        let y = if data.shape.len() == 1 { x.unsqueeze(&picked, &[0]) } else { picked };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}
