//! SpaceToDepth and DepthToSpace, expanded ([`crate::ops::expansion`]) into a Reshape, a
//! Transpose and a Reshape. DepthToSpace reads the channels as (block row, block column,
//! channel) in DCR mode, the default, and as (channel, block row, block column) in CRD mode;
//! SpaceToDepth is the inverse of either (DCR by default).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct SpaceToDepth;
pub struct DepthToSpace;

/// The block size and `[N, C, H, W]`, known at compile time.
fn block_and_dims(node: &Node, g: &Graph) -> OResult<(i64, [i64; 4])> {
    let t = g.ty(&node.inputs[0])?;
    let b = node.int("blocksize", 0);
    if b <= 0 {
        return err(format!("blocksize must be positive, not {b}"));
    }
    match t.dims().iter().map(Dim::as_fixed).collect::<Option<Vec<usize>>>().as_deref() {
        Some(&[n, c, h, w]) => Ok((b, [n, c, h, w].map(|d| d as i64))),
        _ => err(format!("the input must be [N, C, H, W] known at compile time, not {}", t.describe())),
    }
}

fn crd(node: &Node) -> OResult<bool> {
    match node.string("mode").unwrap_or("DCR") {
        "DCR" => Ok(false),
        "CRD" => Ok(true),
        m => err(format!("mode must be DCR or CRD, not {m}")),
    }
}

impl Expanded for SpaceToDepth {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (b, [n, c, h, w]) = block_and_dims(node, g)?;
        if h % b != 0 || w % b != 0 {
            return err(format!("blocksize {b} must divide the height {h} and width {w}"));
        }
        let blocks = x.reshape(&node.inputs[0], &[n, c, h / b, b, w / b, b]);
        let perm: &[i64] = if crd(node)? { &[0, 1, 3, 5, 2, 4] } else { &[0, 3, 5, 1, 2, 4] };
        let moved = x.transpose(&blocks, perm);
        let shape = x.ints(&[n, c * b * b, h / b, w / b]);
        x.op_to("Reshape", &[&moved, &shape], &[], &[&node.outputs[0]]);
        Ok(())
    }
}

impl Expanded for DepthToSpace {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let (b, [n, c, h, w]) = block_and_dims(node, g)?;
        let depth = match b.checked_mul(b) {
            Some(square) if c % square == 0 => c / square,
            _ => return err(format!("blocksize {b} squared must divide the channels {c}")),
        };
        let (split, perm): (&[i64], &[i64]) = if crd(node)? {
            (&[n, depth, b, b, h, w], &[0, 1, 4, 2, 5, 3])
        } else {
            (&[n, b, b, depth, h, w], &[0, 3, 4, 1, 5, 2])
        };
        let blocks = x.reshape(&node.inputs[0], split);
        let moved = x.transpose(&blocks, perm);
        let shape = x.ints(&[n, depth, h * b, w * b]);
        x.op_to("Reshape", &[&moved, &shape], &[], &[&node.outputs[0]]);
        Ok(())
    }
}
