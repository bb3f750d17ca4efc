//! Graph-level fusion before loop generation: an activation (Relu, or Clip with constant bounds)
//! whose only input is the sole use of a Conv/Gemm/MatMul result is folded into that node's
//! epilogue, so the intermediate tensor is never written.

use super::graph::*;
use std::collections::HashMap;

/// The attribute carrying a fused activation: `[lo, hi]` clamp bounds.
pub const ACTIVATION: &str = "xcc.activation";

pub fn fuse_activations(g: &mut Graph) {
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for n in &g.nodes {
        for i in n.inputs.iter().filter(|i| !i.is_empty()) {
            *uses.entry(i.as_str()).or_default() += 1;
        }
    }
    for o in &g.outputs {
        *uses.entry(o.as_str()).or_default() += 1;
    }
    let uses: HashMap<String, usize> = uses.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    let producer: HashMap<String, usize> =
        g.nodes.iter().enumerate().flat_map(|(i, n)| n.outputs.iter().map(move |o| (o.clone(), i))).collect();
    let mut remove = vec![false; g.nodes.len()];
    for i in 0..g.nodes.len() {
        let n = &g.nodes[i];
        let bounds = match n.op.as_str() {
            "Relu" => Some((0.0f32, f32::INFINITY)),
            "Clip" => clip_bounds(n, g),
            _ => None,
        };
        let Some((lo, hi)) = bounds else { continue };
        let Some(&p) = producer.get(&n.inputs[0]) else { continue };
        let prod = &g.nodes[p];
        let fusable = matches!(prod.op.as_str(), "Conv" | "Gemm" | "MatMul")
            && !prod.attrs.contains_key(ACTIVATION)
            && uses.get(&n.inputs[0]) == Some(&1)
            && g.types.get(&n.inputs[0]).is_some_and(|t| t.dtype == DType::F32)
            && (prod.op != "MatMul" || prod.inputs.iter().all(|x| g.types.get(x).is_some_and(|t| t.shape.len() >= 2)));
        if !fusable || remove[p] {
            continue;
        }
        let out = n.outputs[0].clone();
        let prod = &mut g.nodes[p];
        prod.outputs[0] = out;
        prod.attrs.insert(ACTIVATION.into(), Attr::Floats(vec![lo, hi]));
        remove[i] = true;
    }
    let mut k = 0;
    g.nodes.retain(|_| {
        k += 1;
        !remove[k - 1]
    });
}

fn clip_bounds(n: &Node, g: &Graph) -> Option<(f32, f32)> {
    let mut lo = n.float("min", f32::NEG_INFINITY);
    let mut hi = n.float("max", f32::INFINITY);
    for (i, slot) in [(1usize, &mut lo), (2, &mut hi)] {
        if let Some(name) = n.input(i) {
            *slot = g.consts.get(name)?.to_f64().first().copied()? as f32;
        }
    }
    Some((lo, hi))
}
