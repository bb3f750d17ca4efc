//! CenterCropPad, expanded ([`crate::ops::expansion`]): each axis in `axes` (all by default)
//! brought to its size in `shape`, a centred window cut where the input is larger (the extra
//! first index on the far side) and zeros added around where it is smaller (the extra one after).
//! A shape read at run time is padded and cropped by sizes computed from it, which the run
//! computes first ([`crate::ops::computed_data`]): the output's dims are then run-time dims.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct CenterCropPad;

impl Expanded for CenterCropPad {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if t.is_dynamic() {
            return err(format!("the input's dims must be known at compile time, not {}", t.describe()));
        }
        let rank = t.shape.len();
        let axes: Vec<usize> = match node.ints("axes") {
            Some(a) => a.iter().map(|&a| crate::ops::shapes::axis(node, a, rank)).collect::<OResult<_>>()?,
            None => (0..rank).collect(),
        };
        let Some(target) = g.consts.get(&node.inputs[1]).map(Tensor::to_i64) else {
            return run_time_shape(node, x, &axes);
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

/// The expansion for a `shape` known only at run time: pad each axis by `max(have, want) - have`
/// (half before), then cut `want` from the middle of that.
fn run_time_shape(node: &Node, x: &mut Expansion, axes: &[usize]) -> OResult<()> {
    let axes: Vec<i64> = axes.iter().map(|&a| a as i64).collect();
    let axes = x.ints(&axes);
    let two = x.ints(&[2]);
    let shape = node.inputs[1].as_str();
    let have = |x: &mut Expansion, v: &str| {
        let dims = x.op("Shape", &[v], &[]);
        x.op("Gather", &[&dims, &axes], &[])
    };
    let before = have(x, &node.inputs[0]);
    let padded_dims = x.op("Max", &[&before, shape], &[]);
    let pad = x.op("Sub", &[&padded_dims, &before], &[]);
    let left = x.op("Div", &[&pad, &two], &[]);
    let right = x.op("Sub", &[&pad, &left], &[]);
    let pads = x.op("Concat", &[&left, &right], &[("axis", Attr::Int(0))]);
    let padded = x.op("Pad", &[&node.inputs[0], &pads, "", &axes], &[]);
    let after = have(x, &padded);
    let extra = x.op("Sub", &[&after, shape], &[]);
    let starts = x.op("Div", &[&extra, &two], &[]);
    let ends = x.op("Add", &[&starts, shape], &[]);
    let y = x.op("Slice", &[&padded, &starts, &ends, &axes], &[]);
    x.output(&y, Some(&node.outputs[0]));
    Ok(())
}
