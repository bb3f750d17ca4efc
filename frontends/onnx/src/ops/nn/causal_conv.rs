//! CausalConvWithState (opset 27), expanded ([`crate::ops::expansion`]): a depthwise 1-D
//! convolution over `[batch, channels, length]` that sees only the current and earlier
//! positions. The `k - 1` positions before the input come from `past_state` (zeros without
//! one); `present_state` is the last `k - 1` positions of that extended input, the carry for
//! the next call (a decoder's one-token step). The activation `silu` (alias `swish`) is fused.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct CausalConvWithState;

impl Expanded for CausalConvWithState {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = super::float_input(node, g)?;
        let w = g.ty(&node.inputs[1])?;
        if t.shape.len() != 3 || w.shape.len() != 3 {
            return err(format!(
                "CausalConvWithState takes a [batch, channels, length] input and [channels, 1, k] weights, not {} and {}",
                t.describe(),
                w.describe()
            ));
        }
        let (channels, k) = (t.shape[1], w.shape[2]);
        if w.is_dynamic() || w.shape[0] != channels || w.shape[1] != 1 || k == 0 {
            return err(format!("CausalConvWithState's weights must be [{channels}, 1, k], not {}", w.describe()));
        }
        let silu = match node.string("activation").unwrap_or("none") {
            "none" => false,
            "silu" | "swish" => true,
            a => return err(format!("CausalConvWithState's activation must be silu, swish or none, not '{a}'")),
        };
        let carry = k as i64 - 1;
        let extended = match node.input(3) {
            Some(past) => {
                let p = g.ty(past)?;
                if p.shape.len() != 3 || p.shape[2] != k - 1 {
                    return err(format!("past_state must be [batch, {channels}, {carry}], not {}", p.describe()));
                }
                x.op("Concat", &[past, &node.inputs[0]], &[("axis", Attr::Int(2))])
            }
            None => {
                let pads = x.ints(&[0, 0, carry, 0, 0, 0]);
                x.op("Pad", &[&node.inputs[0], &pads], &[])
            }
        };
        let mut conv_inputs = vec![extended.as_str(), node.inputs[1].as_str()];
        if let Some(bias) = node.input(2) {
            conv_inputs.push(bias);
        }
        let conv = x.op("Conv", &conv_inputs, &[("group", Attr::Int(channels as i64))]);
        let y = if silu {
            let gate = x.op("Sigmoid", &[&conv], &[]);
            x.op("Mul", &[&conv, &gate], &[])
        } else {
            conv
        };
        x.output(&y, Some(&node.outputs[0]));
        // present_state = extended[:, :, -(k - 1):], empty for k = 1.
        let (start, end, axis) = (x.ints(&[-carry]), x.ints(&[i64::MAX]), x.ints(&[2]));
        let present = if carry == 0 {
            let zero = x.ints(&[0]);
            x.op("Slice", &[&extended, &zero, &zero, &axis], &[])
        } else {
            x.op("Slice", &[&extended, &start, &end, &axis], &[])
        };
        x.output(&present, node.outputs.get(1).map(String::as_str));
        Ok(())
    }
}
