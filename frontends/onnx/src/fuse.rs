//! Graph-level fusion before loop generation, so intermediate tensors are never written:
//! - BatchNormalization after a Conv with constant weights is folded into the weights and bias;
//! - an Add of a same-shaped tensor (a residual) after a Conv/Gemm/MatMul joins its epilogue;
//! - an activation (Relu, or Clip with constant bounds) then joins the epilogue too.

use super::graph::*;
use std::collections::HashMap;

/// The attribute carrying a fused activation: `[lo, hi]` clamp bounds.
pub const ACTIVATION: &str = "xcc.activation";
/// The attribute naming the input index of a fused residual (added before the activation).
pub const RESIDUAL: &str = "xcc.residual";

pub fn fuse(g: &mut Graph) {
    fold_batch_norms(g);
    fuse_residuals(g);
    fuse_activations(g);
}

fn use_counts(g: &Graph) -> HashMap<String, usize> {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for n in &g.nodes {
        for i in n.inputs.iter().filter(|i| !i.is_empty()) {
            *uses.entry(i.clone()).or_default() += 1;
        }
    }
    for o in &g.outputs {
        *uses.entry(o.clone()).or_default() += 1;
    }
    uses
}

/// `BatchNormalization(Conv(x, W, b))` = `Conv(x, W * k, (b - mean) * k + beta)` with
/// `k = scale / sqrt(var + eps)` per output channel.
fn fold_batch_norms(g: &mut Graph) {
    let uses = use_counts(g);
    let producer: HashMap<String, usize> = g.nodes.iter().enumerate().map(|(i, n)| (n.outputs[0].clone(), i)).collect();
    let mut remove = vec![false; g.nodes.len()];
    for i in 0..g.nodes.len() {
        let bn = &g.nodes[i];
        if bn.op != "BatchNormalization"
            || bn.int("training_mode", 0) == 1
            || bn.outputs.iter().skip(1).any(|o| !o.is_empty())
        {
            continue;
        }
        let Some(&p) = producer.get(&bn.inputs[0]) else { continue };
        let conv = &g.nodes[p];
        if conv.op != "Conv" || uses.get(&bn.inputs[0]) != Some(&1) || remove[p] {
            continue;
        }
        let params: Option<Vec<Vec<f64>>> =
            bn.inputs[1..5].iter().map(|n| g.consts.get(n).map(|t| t.to_f64())).collect();
        let (Some(params), Some(w)) = (params, g.consts.get(&conv.inputs[1])) else { continue };
        if w.ty.dtype != DType::F32 {
            continue;
        }
        let eps = bn.float("epsilon", 1e-5) as f64;
        let oc = w.ty.shape[0];
        let per: usize = w.ty.numel() / oc;
        let k: Vec<f64> = (0..oc).map(|c| params[0][c] / (params[3][c] + eps).sqrt()).collect();
        let wv = w.to_f64();
        let new_w: Vec<f64> = wv.iter().enumerate().map(|(i, &v)| v * k[i / per]).collect();
        let old_b: Vec<f64> = match conv.input(2).and_then(|b| g.consts.get(b)) {
            Some(b) => b.to_f64(),
            None if conv.input(2).is_none() => vec![0.0; oc],
            None => continue,
        };
        let new_b: Vec<f64> = (0..oc).map(|c| (old_b[c] - params[2][c]) * k[c] + params[1][c]).collect();
        let wname = format!("{}#bn_w", bn.outputs[0]);
        let bname = format!("{}#bn_b", bn.outputs[0]);
        let wt = Tensor::from_f64(DType::F32, w.ty.shape.clone(), &new_w);
        let bt = Tensor::from_f64(DType::F32, vec![oc], &new_b);
        g.types.insert(wname.clone(), wt.ty.clone());
        g.types.insert(bname.clone(), bt.ty.clone());
        g.consts.insert(wname.clone(), wt);
        g.consts.insert(bname.clone(), bt);
        let out = bn.outputs[0].clone();
        let conv = &mut g.nodes[p];
        conv.inputs.truncate(1);
        conv.inputs.push(wname);
        conv.inputs.push(bname);
        conv.outputs[0] = out;
        remove[i] = true;
    }
    let mut k = 0;
    g.nodes.retain(|_| {
        k += 1;
        !remove[k - 1]
    });
}

/// `Add(Conv(..), r)` where `r` has the output's shape and is ready before the Conv: the add
/// moves into the Conv's epilogue (`r` becomes the Conv's last input).
fn fuse_residuals(g: &mut Graph) {
    let uses = use_counts(g);
    let producer: HashMap<String, usize> =
        g.nodes.iter().enumerate().flat_map(|(i, n)| n.outputs.iter().map(move |o| (o.clone(), i))).collect();
    let mut remove = vec![false; g.nodes.len()];
    for i in 0..g.nodes.len() {
        let add = &g.nodes[i];
        if add.op != "Add" || add.inputs.len() != 2 {
            continue;
        }
        for side in 0..2 {
            let (main, other) = (&add.inputs[side], &add.inputs[1 - side]);
            let Some(&p) = producer.get(main) else { continue };
            let prod = &g.nodes[p];
            let ready = match producer.get(other) {
                Some(&q) => q < p,
                None => !g.consts.contains_key(other),
            };
            let same_shape = g.types.get(main).is_some()
                && g.types.get(main) == g.types.get(other)
                && g.types[main].dtype == DType::F32;
            let fusable_op = match prod.op.as_str() {
                "Conv" => true,
                "MatMul" => prod.inputs.iter().all(|x| g.types.get(x).is_some_and(|t| t.shape.len() >= 2)),
                _ => false,
            };
            if !fusable_op
                || !ready
                || !same_shape
                || uses.get(main) != Some(&1)
                || remove[p]
                || prod.attrs.contains_key(RESIDUAL)
                || main == other
            {
                continue;
            }
            let (out, other) = (add.outputs[0].clone(), other.clone());
            let prod = &mut g.nodes[p];
            if prod.op == "Conv" && prod.inputs.len() < 3 {
                // Keep input 2 as the (absent) bias.
                prod.inputs.resize(3, String::new());
            }
            prod.inputs.push(other);
            prod.attrs.insert(RESIDUAL.into(), Attr::Int(prod.inputs.len() as i64 - 1));
            prod.outputs[0] = out;
            remove[i] = true;
            break;
        }
    }
    let mut k = 0;
    g.nodes.retain(|_| {
        k += 1;
        !remove[k - 1]
    });
}

fn fuse_activations(g: &mut Graph) {
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
