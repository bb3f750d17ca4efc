//! Sequences of tensors whose length is known at compile time: a sequence is the list of its
//! elements' tensor names ([`Graph::sequences`]), and its operators are expansions
//! ([`crate::ops::expansion`]) that edit the list, or write the nodes that read it:
//! SequenceEmpty, SequenceConstruct, SequenceInsert and SequenceErase make lists; SequenceAt is
//! its element, SequenceLength a constant; SplitToSequence is a Split, ConcatFromSequence a
//! Concat (of the elements unsqueezed, with `new_axis`); SequenceMap copies its body once per
//! position. Positions must be constants. A sequence as a graph input or output is not
//! supported.

use crate::graph::*;
use crate::ops::control::{body, inline};
use crate::ops::expansion::{Expand, Expanded, Expansion};
use crate::ops::schema::{Schema, ANY};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["SequenceEmpty"], &Expand(Empty), Schema::exactly(0));
    r.register(&["SequenceConstruct"], &Expand(Construct), Schema::inputs(1, ANY));
    r.register(&["SequenceInsert"], &Expand(Insert), Schema::inputs(2, 3));
    r.register(&["SequenceErase"], &Expand(Erase), Schema::inputs(1, 2));
    r.register(&["SequenceAt"], &Expand(At), Schema::inputs(1, 2));
    r.register(&["SequenceLength"], &Expand(Length), Schema::exactly(1));
    r.register(&["SplitToSequence"], &Expand(SplitToSequence), Schema::inputs(1, 2));
    r.register(&["ConcatFromSequence"], &Expand(ConcatFromSequence), Schema::exactly(1));
    r.register(&["SequenceMap"], &Expand(Map), Schema::inputs(1, ANY));
}

/// The elements of sequence `name`.
fn elements(g: &Graph, name: &str) -> OResult<Vec<String>> {
    g.sequences.borrow().get(name).cloned().ok_or_else(|| {
        OnnxError::tensor(name, "it is not a sequence built in the graph (a sequence graph input is not supported)")
    })
}

/// Records sequence `name` as `list`.
fn define(g: &Graph, name: &str, list: Vec<String>) {
    if !name.is_empty() {
        g.sequences.borrow_mut().insert(name.to_string(), list);
    }
}

/// The constant position of input `i` within `len` elements (`len` itself allowed where
/// `end_allowed`: an insertion at the end), negative positions counting from the end; `None`
/// without the input.
fn position(node: &Node, g: &Graph, i: usize, len: usize, end_allowed: bool) -> OResult<Option<usize>> {
    let Some(name) = node.input(i) else { return Ok(None) };
    let Some(t) = g.consts.get(name) else {
        return err(format!("{}'s position '{name}' must be a constant", node.op));
    };
    let v = match t.to_i64()[..] {
        [v] => v,
        _ => return err(format!("{}'s position '{name}' must be one value", node.op)),
    };
    let n = len as i64;
    let p = if v < 0 { v + n } else { v };
    let top = if end_allowed { n } else { n - 1 };
    if p < 0 || p > top {
        return err(format!("{}'s position {v} is outside a sequence of {len}", node.op));
    }
    Ok(Some(p as usize))
}

struct Empty;

impl Expanded for Empty {
    fn write(&self, node: &Node, g: &Graph, _: &mut Expansion) -> OResult<()> {
        define(g, &node.outputs[0], Vec::new());
        Ok(())
    }
}

struct Construct;

impl Expanded for Construct {
    fn write(&self, node: &Node, g: &Graph, _: &mut Expansion) -> OResult<()> {
        define(g, &node.outputs[0], node.inputs.clone());
        Ok(())
    }
}

struct Insert;

impl Expanded for Insert {
    fn write(&self, node: &Node, g: &Graph, _: &mut Expansion) -> OResult<()> {
        let mut list = elements(g, &node.inputs[0])?;
        let at = position(node, g, 2, list.len(), true)?.unwrap_or(list.len());
        list.insert(at, node.inputs[1].clone());
        define(g, &node.outputs[0], list);
        Ok(())
    }
}

struct Erase;

impl Expanded for Erase {
    fn write(&self, node: &Node, g: &Graph, _: &mut Expansion) -> OResult<()> {
        let mut list = elements(g, &node.inputs[0])?;
        if list.is_empty() {
            return err("SequenceErase of an empty sequence");
        }
        let at = position(node, g, 1, list.len(), false)?.unwrap_or(list.len() - 1);
        list.remove(at);
        define(g, &node.outputs[0], list);
        Ok(())
    }
}

struct At;

impl Expanded for At {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let list = elements(g, &node.inputs[0])?;
        let Some(at) = position(node, g, 1, list.len(), false)? else {
            return err("SequenceAt needs a position");
        };
        x.output(&list[at], Some(&node.outputs[0]));
        Ok(())
    }
}

struct Length;

impl Expanded for Length {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let n = elements(g, &node.inputs[0])?.len() as i64;
        x.op_to("Constant", &[], &[("value", Attr::Tensor(Tensor::from_i64(vec![], &[n])))], &[&node.outputs[0]]);
        Ok(())
    }
}

struct SplitToSequence;

impl Expanded for SplitToSequence {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let axis = crate::ops::shapes::axis(node, node.int("axis", 0), t.shape.len())?;
        let Some(size) = t.dims()[axis].as_fixed() else {
            return err("SplitToSequence needs the split axis's size at compile time");
        };
        let split = match node.input(1) {
            None => None,
            Some(s) => Some(
                g.consts
                    .get(s)
                    .map(Tensor::to_i64)
                    .ok_or_else(|| OnnxError::msg(format!("SplitToSequence's split '{s}' must be a constant")))?,
            ),
        };
        let scalar_split = match node.input(1) {
            Some(s) => g.ty(s)?.shape.is_empty(),
            None => false,
        };
        let elements = match split.as_deref() {
            None => size,
            Some([chunk]) if scalar_split && *chunk > 0 => size.div_ceil(*chunk as usize),
            Some(list) => list.len(),
        };
        // Each element is a node of its own (a part of one Split): they come out of the budget
        // unrolled Loops share, so that an axis of 2^31 is refused rather than materialized.
        if !g.unroll_budget.take(elements) {
            return err(format!(
                "SplitToSequence would make {elements} elements, more than the {} nodes sequences and \
                 unrolled Loops may still add to the model",
                g.unroll_budget.0.get()
            ));
        }
        let (sizes, squeeze) = match split.as_deref() {
            None => (vec![1; size], node.int("keepdims", 1) == 0),
            Some([chunk]) if scalar_split => {
                if *chunk <= 0 {
                    return err(format!("SplitToSequence's split must be positive, not {chunk}"));
                }
                let chunk = *chunk as usize;
                ((0..size.div_ceil(chunk)).map(|k| chunk.min(size - k * chunk)).collect(), false)
            }
            Some(list) => (list.iter().map(|&v| v.max(0) as usize).collect(), false),
        };
        if sizes.iter().sum::<usize>() != size || sizes.is_empty() {
            return err(format!("SplitToSequence's sizes {sizes:?} do not cover the axis of {size}"));
        }
        let sizes_name = x.ints(&sizes.iter().map(|&v| v as i64).collect::<Vec<_>>());
        let parts: Vec<String> = sizes.iter().map(|_| x.fresh()).collect();
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        x.op_to("Split", &[&node.inputs[0], &sizes_name], &[("axis", Attr::Int(axis as i64))], &refs);
        let list = if squeeze {
            let axes = x.ints(&[axis as i64]);
            parts.iter().map(|p| x.op("Squeeze", &[p, &axes], &[])).collect()
        } else {
            parts
        };
        define(g, &node.outputs[0], list);
        Ok(())
    }
}

struct ConcatFromSequence;

impl Expanded for ConcatFromSequence {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let list = elements(g, &node.inputs[0])?;
        let Some(first) = list.first() else {
            return err("ConcatFromSequence of an empty sequence");
        };
        let rank = g.ty(first)?.shape.len();
        let new_axis = node.int("new_axis", 0) != 0;
        let axis = node.int("axis", 0);
        let axis = crate::ops::shapes::axis(node, axis, rank + usize::from(new_axis))? as i64;
        let parts: Vec<String> = if new_axis { list.iter().map(|e| x.unsqueeze(e, &[axis])).collect() } else { list };
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        x.op_to("Concat", &refs, &[("axis", Attr::Int(axis))], &[&node.outputs[0]]);
        Ok(())
    }
}

struct Map;

impl Expanded for Map {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let b = body(node, "body")?;
        let len = elements(g, &node.inputs[0])?.len();
        // Each input: a sequence (its element at each position) or a tensor (at every position).
        let mut inputs: Vec<Option<Vec<String>>> = Vec::new();
        for name in &node.inputs {
            let seq = g.sequences.borrow().get(name).cloned();
            if seq.as_ref().is_some_and(|s| s.len() != len) {
                return err(format!("SequenceMap's sequences have different lengths ({len} and more)"));
            }
            inputs.push(seq);
        }
        let mut outputs: Vec<Vec<String>> = vec![Vec::new(); node.outputs.len()];
        for p in 0..len {
            let actuals: Vec<String> = node
                .inputs
                .iter()
                .zip(&inputs)
                .map(|(name, seq)| seq.as_ref().map_or_else(|| name.clone(), |s| s[p].clone()))
                .collect();
            let prefix = format!("{}#map{p}.", node.outputs.first().map_or("", String::as_str));
            let outs = inline(x, b, &prefix, &actuals)?;
            for (list, o) in outputs.iter_mut().zip(outs) {
                list.push(o);
            }
        }
        for (name, list) in node.outputs.iter().zip(outputs) {
            define(g, name, list);
        }
        Ok(())
    }
}
