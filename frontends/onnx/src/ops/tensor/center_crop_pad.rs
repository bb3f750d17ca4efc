//! CenterCropPad, expanded ([`crate::ops::expansion`]): each axis in `axes` (all by default)
//! brought to its size in `shape`, a centred window cut where the input is larger (the extra
//! first index on the far side) and zeros added around where it is smaller (the extra one after).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct CenterCropPad;

impl Expanded for CenterCropPad {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let Some(target) = g.consts.get(&node.inputs[1]).map(Tensor::to_i64) else {
            return err(format!("the shape '{}' must be known at compile time", node.inputs[1]));
        };
        if t.is_dynamic() {
            return err(format!("the input's dims must be known at compile time, not {}", t.describe()));
        }
        let rank = t.shape.len();
        let axes: Vec<usize> = match node.ints("axes") {
            Some(a) => a.iter().map(|&a| crate::ops::shapes::axis(node, a, rank)).collect::<OResult<_>>()?,
            None => (0..rank).collect(),
        };
        if axes.len() != target.len() {
            return err(format!("shape has {} sizes for {} axes", target.len(), axes.len()));
        }
        let (mut starts, mut ends, mut crop_axes) = (Vec::new(), Vec::new(), Vec::new());
        let mut pads = vec![0i64; 2 * rank];
        for (&a, &want) in axes.iter().zip(&target) {
            let have = t.shape[a] as i64;
            if want < 0 {
                return err(format!("a size in shape is negative: {want}"));
            }
            if have > want {
                let start = (have - want) / 2;
                starts.push(start);
                ends.push(start + want);
                crop_axes.push(a as i64);
            } else if have < want {
                pads[a] = (want - have) / 2;
                pads[rank + a] = want - have - pads[a];
            }
        }
        let mut v = node.inputs[0].clone();
        if !crop_axes.is_empty() {
            let (s, e, a) = (x.ints(&starts), x.ints(&ends), x.ints(&crop_axes));
            v = x.op("Slice", &[&v, &s, &e, &a], &[]);
        }
        if pads.iter().any(|&p| p != 0) {
            let p = x.ints(&pads);
            v = x.op("Pad", &[&v, &p], &[]);
        }
        x.output(&v, Some(&node.outputs[0]));
        Ok(())
    }
}
