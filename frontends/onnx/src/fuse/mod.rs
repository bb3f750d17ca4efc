//! Graph rewrites that change weights: BatchNormalization after a Conv with constant weights is
//! folded into the weights and bias; before inference, a MatMul or Gemm of two
//! DequantizeLinear outputs (ONNX Runtime's QDQ form of a quantized layer) becomes an integer
//! product scaled once ([`integer_products`]), and a MatMul of 4- or 8-bit weights dequantized
//! in blocks becomes MatMulNBits, whose weights stay packed ([`blockwise_matmul`]). (Joining
//! activations and residual adds to a matmul or convolution is done at the kernel level, by
//! `kernel-fuse-epilogue`.)

mod blockwise_matmul;

use super::graph::*;
use super::ops::expansion::Expansion;
use std::collections::HashMap;

pub fn fuse(g: &mut Graph) {
    fold_batch_norms(g);
}

/// The rewrites that must see the graph before inference folds constants (a DequantizeLinear
/// of constant weights folds to float weights).
pub fn before_inference(g: &mut Graph) {
    blockwise_matmul::blockwise_matmuls(g);
    integer_products(g);
}

/// A DequantizeLinear node's parts: the quantized tensor (8-bit: its zero point's type, as ONNX
/// requires them equal, or its own where it is a graph input or an initializer), the scale,
/// the zero point.
struct Dequantized {
    q: String,
    scale: String,
    /// The scale's type, which the dequantized values have.
    real: DType,
    zero: Option<String>,
    /// The quantized values' type (8-bit).
    dtype: DType,
}

/// `name` as the output of a DequantizeLinear whose scale and zero point are initializers of
/// `lengths` elements (1: per tensor; N: per column of constant weights, on `axis`) and whose
/// quantized input is 8-bit.
fn dequantized(
    g: &Graph,
    producer: &HashMap<&str, usize>,
    name: &str,
    lengths: &[usize],
    axis: i64,
) -> Option<Dequantized> {
    let dq = &g.nodes[*producer.get(name)?];
    if dq.op != "DequantizeLinear" || !dq.domain.is_empty() || dq.int("block_size", 0) != 0 {
        return None;
    }
    let scale = g.consts.get(dq.input(1)?)?;
    let zero = dq.input(2).map(|z| g.consts.get(z)).unwrap_or(None);
    if dq.input(2).is_some() && zero.is_none() {
        return None;
    }
    let n = scale.ty.numel();
    if !lengths.contains(&n) || zero.is_some_and(|z| z.ty.numel() != n) || (n > 1 && dq.int("axis", 1) != axis) {
        return None;
    }
    let q = dq.inputs.first()?.clone();
    let dtype = match (zero, g.types.get(&q)) {
        (Some(z), _) => z.ty.dtype,
        (None, Some(t)) => t.dtype,
        (None, None) => return None,
    };
    if !matches!(dtype, DType::U8 | DType::I8) || !scale.ty.dtype.is_float() {
        return None;
    }
    let real = scale.ty.dtype;
    Some(Dequantized { q, scale: dq.inputs[1].clone(), real, zero: dq.input(2).map(str::to_string), dtype })
}

/// `MatMul(DQ(a), DQ(W))` and `Gemm(DQ(a), DQ(W), C)` (alpha and beta 1, A not transposed) over
/// 2-D constant 8-bit weights: `MatMulInteger(a_q, W_q, a_zero, W_zero) * (a_scale * W_scale)`
/// (plus C). The sums are exact in int32 where the float product of the dequantized values
/// rounds at every step; ONNX Runtime runs the QDQ form the same way. The weights' scale may be
/// one per column (per output channel).
fn integer_products(g: &mut Graph) {
    let producer: HashMap<&str, usize> =
        g.nodes.iter().enumerate().flat_map(|(i, n)| n.outputs.iter().map(move |o| (o.as_str(), i))).collect();
    let mut readers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        for input in n.inputs.iter().filter(|s| !s.is_empty()) {
            readers.entry(input.as_str()).or_default().push(i);
        }
    }
    let mut rewrites = Vec::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.domain.is_empty() && node.op == "Conv" {
            if let Some((rewrite, quantize)) = requantized_conv(g, &producer, &readers, node) {
                rewrites.push((i, rewrite));
                rewrites.push((quantize, Vec::new()));
            } else if let Some(rewrite) = quantized_conv(g, &producer, node) {
                rewrites.push((i, rewrite));
            }
            continue;
        }
        let gemm = node.op == "Gemm";
        if !node.domain.is_empty() || !(node.op == "MatMul" || gemm) {
            continue;
        }
        if gemm && (node.float("alpha", 1.0) != 1.0 || node.float("beta", 1.0) != 1.0 || node.int("transA", 0) != 0) {
            continue;
        }
        let trans_b = gemm && node.int("transB", 0) != 0;
        // Before inference nothing has checked the nodes' inputs and outputs.
        let (Some(a_dq), Some(b_dq)) = (node.inputs.first(), node.inputs.get(1)) else { continue };
        if node.outputs.first().is_none_or(String::is_empty) {
            continue;
        }
        let Some(w) = producer.get(b_dq.as_str()).and_then(|&p| g.nodes[p].inputs.first().cloned()) else { continue };
        let Some(w_t) = g.consts.get(&w).map(|t| t.ty.shape.clone()) else { continue };
        if w_t.len() != 2 {
            continue;
        }
        let n = if trans_b { w_t[0] } else { w_t[1] };
        let axis = if trans_b { 0 } else { 1 };
        let (Some(a), Some(b)) =
            (dequantized(g, &producer, a_dq, &[1], 1), dequantized(g, &producer, b_dq, &[1, n], axis))
        else {
            continue;
        };
        if b.q != w || a.real != b.real {
            continue;
        }
        rewrites.push((i, integer_product_nodes(node, &a, &b, trans_b)));
    }
    rewrites.sort_by_key(|(i, _)| *i);
    for (i, nodes) in rewrites.into_iter().rev() {
        g.nodes.remove(i);
        for (k, n) in nodes.into_iter().enumerate() {
            g.nodes.insert(i + k, n);
        }
    }
}

/// The quantized operands of a QDQ Conv (`Conv(DQ(x), DQ(W), ...)`, 8-bit x per tensor,
/// constant 8-bit 4-D weights per tensor or per output channel, one real type), of one group
/// unless `grouped`: x's, W's, and W's quantized values.
fn conv_operands(
    g: &Graph,
    producer: &HashMap<&str, usize>,
    node: &Node,
    grouped: bool,
) -> Option<(Dequantized, Dequantized, String)> {
    if node.int("group", 1) != 1 && !grouped {
        return None;
    }
    // Before inference nothing has checked the nodes' inputs and outputs: read them with care.
    let (x, w_dq, out) = (node.inputs.first()?, node.inputs.get(1)?, node.outputs.first()?);
    let w = g.nodes[*producer.get(w_dq.as_str())?].inputs.first()?.clone();
    let w_t = g.consts.get(&w)?;
    if w_t.ty.shape.len() != 4 || out.is_empty() {
        return None;
    }
    let a = dequantized(g, producer, x, &[1], 1)?;
    let b = dequantized(g, producer, w_dq, &[1, w_t.ty.shape[0]], 0)?;
    (b.q == w && a.real == b.real).then_some((a, b, w))
}

/// The convolution attributes of `node` that an integer convolution passes on.
fn conv_attrs(node: &Node) -> Vec<(&'static str, Attr)> {
    crate::ops::quant::integer::CONV_ATTRIBUTES
        .iter()
        .filter_map(|&k| node.attrs.get(k).map(|v| (k, v.clone())))
        .collect()
}

/// A QDQ Conv of one group ([`conv_operands`]) as `ConvInteger(x_q, W_q, x_zero, W_zero)`
/// scaled per channel, plus B: the nodes computing it, or `None`. (Depthwise and grouped
/// convolutions stay in float.)
fn quantized_conv(g: &Graph, producer: &HashMap<&str, usize>, node: &Node) -> Option<Vec<Node>> {
    let (a, b, w) = conv_operands(g, producer, node, false)?;
    let conv_attrs = conv_attrs(node);
    let mut x = Expansion::new(node);
    let sums = x.op("ConvInteger", &integer_inputs(&a.q, &w, &a, &b), &conv_attrs);
    let real = x.op("Cast", &[&sums], &[("to", Attr::Int(a.real.onnx_code() as i64))]);
    let scale = x.op("Mul", &[&a.scale, &b.scale], &[]);
    // One scale per channel: [M] as [M, 1, 1] against [N, M, H, W].
    let scale = if g.consts[&b.scale].ty.numel() > 1 { x.unsqueeze(&scale, &[1, 2]) } else { scale };
    finish_scaled(&mut x, node, &real, &scale, Some(&[1, 2]));
    Some(x.finish())
}

/// `QuantizeLinear(Conv(DQ(x), DQ(W), DQ(B)))`, grouped or not (a depthwise one too), where the
/// quantization's scale and zero point are one constant each, nothing else reads the Conv's
/// output, and the bias (if any) is int32 scaled by exactly `x_scale * W_scale` with no zero
/// point (as ONNX Runtime's quantizer writes it): one `QLinearConv(x_q, x_scale, x_zero, W_q, W_scale, W_zero, y_scale,
/// y_zero, B_q)`, and the index of the QuantizeLinear it replaces. This is the form ONNX Runtime
/// runs: the sums plus the bias in int32, multiplied once by `x_scale * W_scale / y_scale` and
/// rounded, where the float form multiplies, adds the bias and divides (the two round alike
/// except at ties, where they may differ by one step). One multiply is also what lets the
/// requantization cost little in the convolution's stores.
fn requantized_conv(
    g: &Graph,
    producer: &HashMap<&str, usize>,
    readers: &HashMap<&str, Vec<usize>>,
    node: &Node,
) -> Option<(Vec<Node>, usize)> {
    let out = node.outputs.first().filter(|o| !o.is_empty())?;
    let [quantize] = readers.get(out.as_str())?[..] else { return None };
    let q = &g.nodes[quantize];
    if g.outputs.contains(out) || q.op != "QuantizeLinear" || !q.domain.is_empty() {
        return None;
    }
    let (y_scale, y_zero) = (q.input(1)?, q.input(2)?);
    let (ys, yz) = (g.consts.get(y_scale)?, g.consts.get(y_zero)?);
    if ys.ty.numel() != 1 || yz.ty.numel() != 1 || !matches!(yz.ty.dtype, DType::U8 | DType::I8) {
        return None;
    }
    let (a, b, w) = conv_operands(g, producer, node, true)?;
    // QLinearConv's scales are f32.
    if a.real != DType::F32 || ys.ty.dtype != DType::F32 || q.outputs.first().is_none_or(String::is_empty) {
        return None;
    }
    let bias = match node.input(2) {
        Some(bias) => Some(quantized_bias(g, producer, bias, &a, &b)?),
        None => None,
    };
    let mut x = Expansion::new(node);
    // QLinearConv requires the zero points that DequantizeLinear may leave out.
    let mut zero = |d: &Dequantized| match &d.zero {
        Some(z) => z.clone(),
        None => x.constant(Tensor::from_f64(d.dtype, vec![], &[0.0])),
    };
    let (a_zero, b_zero) = (zero(&a), zero(&b));
    let mut inputs = vec![a.q.as_str(), &a.scale, &a_zero, &w, &b.scale, &b_zero, y_scale, y_zero];
    inputs.extend(bias.as_deref());
    x.op_to("QLinearConv", &inputs, &conv_attrs(node), &[&q.outputs[0]]);
    Some((x.finish(), quantize))
}

/// The int32 values of a bias `DequantizeLinear(B_q, B_scale)` whose scale is exactly
/// `x_scale * W_scale` (per channel where W's is) in f32 and whose zero point is absent or 0.
fn quantized_bias(
    g: &Graph,
    producer: &HashMap<&str, usize>,
    bias: &str,
    a: &Dequantized,
    b: &Dequantized,
) -> Option<String> {
    let dq = &g.nodes[*producer.get(bias)?];
    let (values, scale) = (dq.inputs.first()?, g.consts.get(dq.input(1)?)?);
    let zero_free = dq.input(2).is_none_or(|z| g.consts.get(z).is_some_and(|t| t.to_f64().iter().all(|&v| v == 0.0)));
    let int32 = g.consts.get(values).is_some_and(|t| t.ty.dtype == DType::I32);
    if dq.op != "DequantizeLinear" || !dq.domain.is_empty() || !zero_free || !int32 {
        return None;
    }
    let (xs, ws) = (g.consts[&a.scale].to_f64(), g.consts[&b.scale].to_f64());
    let want: Vec<f32> = ws.iter().map(|&w| xs[0] as f32 * w as f32).collect();
    let have: Vec<f32> = scale.to_f64().iter().map(|&v| v as f32).collect();
    // Either may be one value for every channel.
    let n = have.len().max(want.len());
    let lengths_fit = [have.len(), want.len()].iter().all(|&l| l == 1 || l == n);
    (lengths_fit && (0..n).all(|i| have[i % have.len()] == want[i % want.len()])).then(|| values.clone())
}

/// The nodes computing `node` (a MatMul or Gemm) from the quantized operands.
fn integer_product_nodes(node: &Node, a: &Dequantized, b: &Dequantized, trans_b: bool) -> Vec<Node> {
    let mut x = Expansion::new(node);
    let w = if trans_b { x.transpose(&b.q, &[1, 0]) } else { b.q.clone() };
    let sums = x.op("MatMulInteger", &integer_inputs(&a.q, &w, a, b), &[]);
    let real = x.op("Cast", &[&sums], &[("to", Attr::Int(a.real.onnx_code() as i64))]);
    let scale = x.op("Mul", &[&a.scale, &b.scale], &[]);
    finish_scaled(&mut x, node, &real, &scale, None);
    x.finish()
}

/// MatMulInteger's or ConvInteger's inputs: the two quantized tensors, then the zero points
/// that are there (an absent first one left empty before a second).
fn integer_inputs<'a>(q: &'a str, w: &'a str, a: &'a Dequantized, b: &'a Dequantized) -> Vec<&'a str> {
    let mut inputs = vec![q, w, a.zero.as_deref().unwrap_or(""), b.zero.as_deref().unwrap_or("")];
    while inputs.last().is_some_and(|s| s.is_empty()) {
        inputs.pop();
    }
    inputs
}

/// `real * scale` (plus the node's third input, shaped by `bias_axes` if given) into the node's
/// output.
fn finish_scaled(x: &mut Expansion, node: &Node, real: &str, scale: &str, bias_axes: Option<&[i64]>) {
    let out = node.outputs[0].as_str();
    match node.input(2) {
        None => x.op_to("Mul", &[real, scale], &[], &[out]),
        Some(c) => {
            let scaled = x.op("Mul", &[real, scale], &[]);
            let bias = match bias_axes {
                Some(axes) => x.unsqueeze(c, axes),
                None => c.to_string(),
            };
            x.op_to("Add", &[&scaled, &bias], &[], &[out]);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, inputs: &[&str], output: &str) -> Node {
        Node {
            name: output.into(),
            op: op.into(),
            domain: String::new(),
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
            outputs: vec![output.into()],
            attrs: Default::default(),
            opset: 21,
            guard: None,
        }
    }

    /// ONNX Runtime's QDQ MatMul (uint8 activations per tensor, int8 weights per column)
    /// becomes MatMulInteger scaled once, then runs like the float product within rounding.
    #[test]
    fn a_qdq_matmul_becomes_an_integer_product() {
        let mut g = Graph { outputs: vec!["y".into()], inputs: vec!["x".into()], ..Default::default() };
        g.types.insert("x".into(), TensorType::new(DType::F32, vec![2, 3]));
        let consts = [
            ("xs", Tensor::from_f64(DType::F32, vec![], &[0.5])),
            ("xz", Tensor::from_f64(DType::U8, vec![], &[3.0])),
            ("w", Tensor::from_f64(DType::I8, vec![3, 2], &[1.0, -2.0, 3.0, 4.0, -5.0, 6.0])),
            ("ws", Tensor::from_f64(DType::F32, vec![2], &[0.25, 2.0])),
        ];
        for (name, t) in consts {
            g.types.insert(name.into(), t.ty.clone());
            g.consts.insert(name.into(), t);
        }
        g.nodes = vec![
            node("QuantizeLinear", &["x", "xs", "xz"], "xq"),
            node("DequantizeLinear", &["xq", "xs", "xz"], "xd"),
            node("DequantizeLinear", &["w", "ws"], "wd"),
            node("MatMul", &["xd", "wd"], "y"),
        ];
        before_inference(&mut g);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(
            ops,
            ["QuantizeLinear", "DequantizeLinear", "DequantizeLinear", "MatMulInteger", "Cast", "Mul", "Mul"]
        );
        assert_eq!(g.nodes[3].inputs, ["xq", "w", "xz"]);
        // x quantizes to [7, 9, 11, 1, 3, 5] (x / 0.5 + 3); minus 3, times 0.5, times w's columns.
        let x = Tensor::from_f64(DType::F32, vec![2, 3], &[2.0, 3.0, 4.0, -1.0, 0.0, 1.0]);
        g.types.insert("x".into(), x.ty.clone());
        g.consts.insert("x".into(), x);
        g.inputs.clear();
        crate::infer::infer_and_fold(&mut g).unwrap();
        let want: Vec<f64> = [[2.0, 3.0, 4.0], [-1.0, 0.0, 1.0]]
            .iter()
            .flat_map(|row| {
                [(0, 0.25), (1, 2.0)].map(|(c, s)| {
                    let w = [[1.0, -2.0], [3.0, 4.0], [-5.0, 6.0]];
                    row.iter().zip(&w).map(|(x, w)| x * w[c]).sum::<f64>() * s
                })
            })
            .collect();
        assert_eq!(g.consts["y"].to_f64(), want);
    }

    /// The QDQ form of a quantized convolution as ONNX Runtime's quantizer writes it: x and W
    /// dequantized, an int32 bias scaled by `x_scale * W_scale`, the sum quantized.
    fn requantized_conv_graph(w_zero: bool, bias_scale: f64) -> Graph {
        let mut g = Graph { outputs: vec!["y".into()], inputs: vec!["xq".into()], ..Default::default() };
        g.types.insert("xq".into(), TensorType::new(DType::U8, vec![1, 1, 2, 2]));
        let consts = [
            ("xs", Tensor::from_f64(DType::F32, vec![], &[0.5])),
            ("xz", Tensor::from_f64(DType::U8, vec![], &[3.0])),
            ("w", Tensor::from_f64(DType::I8, vec![2, 1, 1, 1], &[4.0, -2.0])),
            ("ws", Tensor::from_f64(DType::F32, vec![2], &[0.25, 0.75])),
            ("wz", Tensor::from_f64(DType::I8, vec![2], &[0.0, 0.0])),
            ("b", Tensor::from_f64(DType::I32, vec![2], &[10.0, -7.0])),
            ("bs", Tensor::from_f64(DType::F32, vec![2], &[bias_scale, 0.375])),
            ("ys", Tensor::from_f64(DType::F32, vec![], &[0.2])),
            ("yz", Tensor::from_f64(DType::U8, vec![], &[5.0])),
        ];
        for (name, t) in consts {
            g.types.insert(name.into(), t.ty.clone());
            g.consts.insert(name.into(), t);
        }
        let w_inputs: &[&str] = if w_zero { &["w", "ws", "wz"] } else { &["w", "ws"] };
        g.nodes = vec![
            node("DequantizeLinear", &["xq", "xs", "xz"], "xd"),
            node("DequantizeLinear", w_inputs, "wd"),
            node("DequantizeLinear", &["b", "bs"], "bd"),
            node("Conv", &["xd", "wd", "bd"], "c"),
            node("QuantizeLinear", &["c", "ys", "yz"], "y"),
        ];
        // W's scales are per output channel.
        g.nodes[1].attrs.insert("axis".into(), Attr::Int(0));
        g
    }

    /// Conv and QuantizeLinear become one QLinearConv over the quantized operands and the int32
    /// bias, writing the QuantizeLinear's output (the gallery's QDQ models check its values
    /// against ONNX Runtime).
    #[test]
    fn a_requantized_qdq_conv_becomes_a_qlinear_conv() {
        let mut g = requantized_conv_graph(true, 0.125);
        before_inference(&mut g);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["DequantizeLinear", "DequantizeLinear", "DequantizeLinear", "QLinearConv"]);
        assert_eq!(g.nodes[3].inputs, ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"]);
        assert_eq!(g.nodes[3].outputs, ["y"]);
    }

    /// A depthwise convolution (one filter per channel) becomes a QLinearConv of as many
    /// groups: its sums are then requantized by one multiply, as ONNX Runtime runs the form.
    #[test]
    fn a_requantized_depthwise_conv_becomes_a_grouped_qlinear_conv() {
        let mut g = requantized_conv_graph(true, 0.125);
        g.types.insert("xq".into(), TensorType::new(DType::U8, vec![1, 2, 2, 2]));
        g.nodes[3].attrs.insert("group".into(), Attr::Int(2));
        before_inference(&mut g);
        let conv = g.nodes.last().expect("nodes");
        assert_eq!(conv.op, "QLinearConv");
        assert_eq!(conv.int("group", 1), 2);
        assert_eq!(conv.outputs, ["y"]);
    }

    /// QLinearConv requires W's zero point, which DequantizeLinear may leave out: a zero takes
    /// its place.
    #[test]
    fn a_missing_zero_point_becomes_a_zero() {
        let mut g = requantized_conv_graph(false, 0.125);
        before_inference(&mut g);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["DequantizeLinear", "DequantizeLinear", "DequantizeLinear", "Constant", "QLinearConv"]);
        assert_eq!(g.nodes[4].inputs[5], g.nodes[3].outputs[0]);
    }

    /// A bias scaled otherwise than `x_scale * W_scale` (0.25 for 0.5 * 0.25) keeps the float
    /// form.
    #[test]
    fn a_bias_of_another_scale_keeps_the_float_form() {
        let mut g = requantized_conv_graph(true, 0.25);
        before_inference(&mut g);
        assert!(g.nodes.iter().all(|n| n.op != "QLinearConv"));
        assert_eq!(g.nodes.last().map(|n| n.op.as_str()), Some("QuantizeLinear"));
    }
}
