//! SkipLayerNormalization (`LayerNorm(input + skip + bias) * gamma + beta`),
//! SimplifiedLayerNormalization (RMS normalization: `x / sqrt(mean(x^2) + epsilon) * scale`)
//! and SkipSimplifiedLayerNormalization (the RMS form of the first). The skip forms' output 3
//! is the sum `input + skip (+ bias)`; the statistics outputs are not produced.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct LayerNorms;

impl Expanded for LayerNorms {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if !t.dtype.is_float() {
            return err(format!("{} takes floating-point tensors, not {}", node.op, t.dtype.name()));
        }
        let skip = node.op.starts_with("Skip");
        let simplified = node.op.contains("Simplified");
        for (k, o) in node.outputs.iter().enumerate().skip(1) {
            let the_sum = skip && k == 3;
            if !(o.is_empty() || the_sum) {
                return err(format!("{}'s output {k} (a statistic) is not supported", node.op));
            }
        }
        let epsilon = Attr::Float(node.float("epsilon", 1e-5));
        let (v, scale, shift) = if skip {
            // input, skip, gamma, then beta and bias (LayerNorm) or bias (simplified).
            let mut v = x.op("Add", &[&node.inputs[0], &node.inputs[1]], &[]);
            let bias = if simplified { node.input(3) } else { node.input(4) };
            if let Some(b) = bias {
                v = x.op("Add", &[&v, b], &[]);
            }
            x.output(&v, node.outputs.get(3).map(String::as_str));
            (v, node.inputs[2].clone(), if simplified { None } else { node.input(3) })
        } else {
            (node.inputs[0].clone(), node.inputs[1].clone(), None)
        };
        let out = [node.outputs[0].as_str()];
        if simplified {
            let axis = Attr::Int(if skip { -1 } else { node.int("axis", -1) });
            x.op_to("RMSNormalization", &[&v, &scale], &[("axis", axis), ("epsilon", epsilon)], &out);
        } else {
            let mut inputs = vec![v.as_str(), scale.as_str()];
            if let Some(b) = shift {
                inputs.push(b);
            }
            x.op_to("LayerNormalization", &inputs, &[("axis", Attr::Int(-1)), ("epsilon", epsilon)], &out);
        }
        Ok(())
    }
}
