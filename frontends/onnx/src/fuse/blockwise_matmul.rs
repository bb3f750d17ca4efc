//! `MatMul(A, DequantizeLinear(W, scales, zero_points))` over constant 4- or 8-bit weights `[K, N]`
//! quantized in blocks along K (opset 21's `block_size` on axis 0: ONNX Runtime's MatMulNBits
//! quantizer and GenAI's model builder write a layer so with their QDQ options) is
//! MatMulNBits at `accuracy_level` 0: the same values, scales and zero points in that
//! operator's layout, so the weights stay packed in the library
//! ([`crate::ops::contrib::matmul_nbits`]) where folding the DequantizeLinear would store them
//! as f32, 8x their 4-bit bytes. Level 0 computes in f32 on the dequantized values, as the QDQ
//! form defines its product. Signed values and zero points move by `2^(bits - 1)` into
//! MatMulNBits' unsigned ones, which leaves each difference `q - zero_point` as it was.

use crate::graph::*;
use crate::ops::contrib::DOMAIN;
use crate::ops::expansion::Expansion;
use std::collections::HashMap;

/// The blocks MatMulNBits takes: powers of two from 16 to 256.
const BLOCKS: std::ops::RangeInclusive<usize> = 16..=256;

/// A blockwise DequantizeLinear of constant weights, read value by value.
struct BlockwiseWeights<'g> {
    k: usize,
    n: usize,
    block: usize,
    bits: usize,
    values: &'g Tensor,
    /// `[blocks, N]`.
    scales: Vec<f64>,
    /// `[blocks, N]`, of the values' type.
    zeros: Option<&'g Tensor>,
}

impl<'g> BlockwiseWeights<'g> {
    /// The weights of DequantizeLinear `dq` where MatMulNBits can hold them: a 2-D constant of
    /// int4, uint4, int8 or uint8 blocked on axis 0, f32 scales and a constant zero point of the
    /// same type, if any.
    fn of(g: &'g Graph, dq: &Node) -> Option<BlockwiseWeights<'g>> {
        if dq.op != "DequantizeLinear" || !dq.domain.is_empty() {
            return None;
        }
        let block = usize::try_from(dq.int("block_size", 0)).ok()?;
        let values = g.consts.get(dq.input(0)?)?;
        let [k, n] = values.ty.shape[..] else { return None };
        let bits = match values.ty.dtype {
            DType::I4 | DType::U4 => 4,
            DType::I8 | DType::U8 => 8,
            _ => return None,
        };
        let on_k = matches!(dq.int("axis", 1), 0 | -2);
        if !on_k || !BLOCKS.contains(&block) || !block.is_power_of_two() || k == 0 || n == 0 {
            return None;
        }
        let scales = g.consts.get(dq.input(1)?)?;
        if scales.ty.dtype != DType::F32 || scales.ty.shape != [k.div_ceil(block), n] {
            return None;
        }
        let zeros = match dq.input(2) {
            Some(z) => {
                Some(g.consts.get(z).filter(|z| z.ty.dtype == values.ty.dtype && z.ty.shape == scales.ty.shape)?)
            }
            None => None,
        };
        Some(BlockwiseWeights { k, n, block, bits, values, scales: scales.to_f64(), zeros })
    }

    fn blocks(&self) -> usize {
        self.k.div_ceil(self.block)
    }

    /// What moves a signed value into MatMulNBits' unsigned range.
    fn offset(&self) -> i32 {
        match self.values.ty.dtype {
            DType::I4 | DType::I8 => 1 << (self.bits - 1),
            _ => 0,
        }
    }

    /// Element `i` of a tensor of the values' type (kept one per byte, signed ones sign-extended),
    /// as MatMulNBits' unsigned value.
    fn unsigned(&self, t: &Tensor, i: usize) -> u8 {
        let v = if self.offset() > 0 { i32::from(t.data[i] as i8) } else { i32::from(t.data[i]) };
        (v + self.offset()) as u8
    }

    /// The zero point of column `col`'s block `blk`, unsigned: 0 where none is given.
    fn zero(&self, col: usize, blk: usize) -> u8 {
        match self.zeros {
            Some(z) => self.unsigned(z, blk * self.n + col),
            None => self.offset() as u8,
        }
    }

    /// `[N, blocks, block * bits / 8]`: column by column, each block's values, `8 / bits` a
    /// byte, low bits first; past K, 0.
    fn packed_values(&self) -> Tensor {
        let per_byte = 8 / self.bits;
        let blob = self.block / per_byte;
        let mut data = vec![0u8; self.n * self.blocks() * blob];
        for col in 0..self.n {
            for kk in 0..self.k {
                let v = self.unsigned(self.values, kk * self.n + col);
                let at = col * self.blocks() * blob + kk / per_byte;
                data[at] |= v << ((kk % per_byte) * self.bits);
            }
        }
        Tensor { ty: TensorType::new(DType::U8, vec![self.n, self.blocks(), blob]), data }
    }

    /// `[N, blocks]` scales.
    fn column_scales(&self) -> Tensor {
        let (n, blocks) = (self.n, self.blocks());
        let values: Vec<f64> = (0..n * blocks).map(|i| self.scales[(i % blocks) * n + i / blocks]).collect();
        Tensor::from_f64(DType::F32, vec![n, blocks], &values)
    }

    /// `[N, ceil(blocks * bits / 8)]` zero points, packed like the values.
    fn packed_zeros(&self) -> Tensor {
        let per_byte = 8 / self.bits;
        let row = self.blocks().div_ceil(per_byte);
        let mut data = vec![0u8; self.n * row];
        for col in 0..self.n {
            for blk in 0..self.blocks() {
                data[col * row + blk / per_byte] |= self.zero(col, blk) << ((blk % per_byte) * self.bits);
            }
        }
        Tensor { ty: TensorType::new(DType::U8, vec![self.n, row]), data }
    }
}

/// Every MatMul whose B is such a DequantizeLinear's output becomes MatMulNBits; a
/// DequantizeLinear left with no reader goes.
pub(super) fn blockwise_matmuls(g: &mut Graph) {
    let producer: HashMap<&str, usize> =
        g.nodes.iter().enumerate().flat_map(|(i, n)| n.outputs.iter().map(move |o| (o.as_str(), i))).collect();
    let mut rewrites = Vec::new();
    for (i, node) in g.nodes.iter().enumerate() {
        if node.op != "MatMul" || !node.domain.is_empty() || node.inputs.len() != 2 || node.outputs.len() != 1 {
            continue;
        }
        let Some(&dq) = producer.get(node.inputs[1].as_str()) else { continue };
        if let Some(w) = BlockwiseWeights::of(g, &g.nodes[dq]) {
            rewrites.push((i, node.inputs[1].clone(), matmul_nbits(node, &w)));
        }
    }
    let mut dequantized: Vec<String> = Vec::new();
    for (i, dq_output, nodes) in rewrites.into_iter().rev() {
        g.nodes.splice(i..=i, nodes);
        dequantized.push(dq_output);
    }
    let read: std::collections::HashSet<&str> =
        g.nodes.iter().flat_map(|n| n.inputs.iter()).chain(&g.outputs).map(String::as_str).collect();
    let unread: std::collections::HashSet<String> =
        dequantized.into_iter().filter(|o| !read.contains(o.as_str())).collect();
    g.nodes.retain(|n| !(n.op == "DequantizeLinear" && n.outputs.first().is_some_and(|o| unread.contains(o))));
}

/// MatMulNBits(A, values, scales, zero points) of `w`, into `node`'s output.
fn matmul_nbits(node: &Node, w: &BlockwiseWeights) -> Vec<Node> {
    let mut x = Expansion::new(node);
    let values = x.constant(w.packed_values());
    let scales = x.constant(w.column_scales());
    let zeros = x.constant(w.packed_zeros());
    let attrs = [
        ("K", Attr::Int(w.k as i64)),
        ("N", Attr::Int(w.n as i64)),
        ("bits", Attr::Int(w.bits as i64)),
        ("block_size", Attr::Int(w.block as i64)),
        ("accuracy_level", Attr::Int(0)),
    ];
    x.op_in(DOMAIN, "MatMulNBits", &[&node.inputs[0], &values, &scales, &zeros], &attrs, &[&node.outputs[0]]);
    x.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(op: &str, inputs: &[&str], output: &str) -> Node {
        let mut attrs = std::collections::BTreeMap::new();
        if op == "DequantizeLinear" {
            attrs.insert("axis".to_string(), Attr::Int(0));
            attrs.insert("block_size".to_string(), Attr::Int(16));
        }
        let inputs = inputs.iter().map(|s| s.to_string()).collect();
        Node {
            name: output.into(),
            op: op.into(),
            domain: String::new(),
            inputs,
            outputs: vec![output.into()],
            attrs,
            opset: 21,
            guard: None,
        }
    }

    /// int4 `q[k][n] = (k + n) % 16 - 8`, K = 17 (a second block of one value), N = 2, no zero
    /// point: MatMulNBits' bytes by hand.
    fn graph(second_reader: bool) -> Graph {
        let mut g = Graph { outputs: vec!["y".into()], inputs: vec!["a".into()], ..Default::default() };
        g.types.insert("a".into(), TensorType::new(DType::F32, vec![1, 17]));
        let q: Vec<f64> = (0..17).flat_map(|k| (0..2).map(move |n| ((k + n) % 16) as f64 - 8.0)).collect();
        g.consts.insert("q".into(), Tensor::from_f64(DType::I4, vec![17, 2], &q));
        g.consts.insert("s".into(), Tensor::from_f64(DType::F32, vec![2, 2], &[1.0, 2.0, 3.0, 4.0]));
        g.nodes = vec![node("DequantizeLinear", &["q", "s"], "w"), node("MatMul", &["a", "w"], "y")];
        if second_reader {
            g.nodes.push(node("Relu", &["w"], "r"));
            g.outputs.push("r".into());
        }
        g
    }

    #[test]
    fn a_blockwise_dequantized_matmul_becomes_matmul_nbits() {
        let mut g = graph(false);
        let weights = BlockwiseWeights::of(&g, &g.nodes[0]).expect("packs");
        let values = weights.packed_values();
        assert_eq!(values.ty.shape, [2, 2, 8]);
        // Column 0: k 0 and 1 are 0 and 1 (unsigned) in byte 0; block 1 holds k 16 (0) and
        // padding. Column 1 starts with 1 and 2.
        assert_eq!(values.data[0], 0x10);
        assert_eq!(values.data[7], 0xf0 | 0x0e);
        assert_eq!(values.data[8..10], [0, 0]);
        assert_eq!(values.data[16], 0x21);
        assert_eq!(weights.column_scales().to_f64(), [1.0, 3.0, 2.0, 4.0]);
        assert_eq!(weights.packed_zeros().data, [0x88, 0x88]);
        blockwise_matmuls(&mut g);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["Constant", "Constant", "Constant", "MatMulNBits"]);
        assert_eq!(g.nodes[3].int("accuracy_level", -1), 0);
    }

    #[test]
    fn a_dequantized_weight_read_elsewhere_stays() {
        let mut g = graph(true);
        blockwise_matmuls(&mut g);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["DequantizeLinear", "Constant", "Constant", "Constant", "MatMulNBits", "Relu"]);
    }
}
