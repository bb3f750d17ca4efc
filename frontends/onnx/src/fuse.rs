//! Graph rewrites that change weights: BatchNormalization after a Conv with constant weights is
//! folded into the weights and bias. (Joining activations and residual adds to a matmul or
//! convolution is done at the kernel level, by `kernel-fuse-epilogue`.)

use super::graph::*;
use std::collections::HashMap;

pub fn fuse(g: &mut Graph) {
    fold_batch_norms(g);
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
