//! MatMulNBits (`Y = A x dequantize(B) + bias`, B's columns quantized to `bits` bits in blocks of
//! K, each block with a scale and a zero point), and xcc's own `MatMulBlockwise`, the form its
//! 4-bit and 8-bit weights take: the weights stay packed (repacked at compile time into the runs
//! `kernel.matmul_blockwise` unpacks in registers, `xcc_ir::dialects::kernel_blockwise`), so
//! the library holds about the quantized model's bytes and a decode step reads them once.
//! `accuracy_level` 4 asks for A quantized to int8 per block and integer products, as ONNX
//! Runtime computes it; the other levels compute in f32.
//!
//! 2-bit weights go into the 4-bit layout, a value per nibble (exact: the kernel's 4-bit
//! arithmetic holds them). A `g_idx` that reorders K's groups (GPTQ's act-order) but gives each
//! block its size is packed with K sorted by block, and A's columns gathered into that order at
//! run time (K floats a row). Blocks of 16 take a run of the kernel's 32 values each, the other
//! 16 the block's zero point (a product of 0), and A's blocks of 16 are padded with 16 zeros to
//! match at run time: exact, as per-block int8 activations are too (a block's largest value is
//! its 16's), for twice the packed bytes. Weights the kernel does not take (float zero points, a
//! `g_idx` whose groups are not blocks, an f16 A) are dequantized to a float constant at compile
//! time and multiplied by MatMul.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};
use crate::ops::onnx_op::OnnxOp;

pub struct MatMulNBits;

/// xcc's own `MatMulBlockwise(A, q, scales, zeros)` with `bits`, `K`, `N`, `block_size` and
/// `int8_activations`: `kernel.matmul_blockwise`, its operands laid out as that op says.
/// Written by [`MatMulNBits`].
pub struct MatMulBlockwise;

/// The values of a packed run, as `kernel.matmul_blockwise` reads them.
const RUN: usize = xcc_ir::dialects::kernel_blockwise::RUN as usize;

/// The columns `kernel.matmul_blockwise` stores together.
const GROUP: usize = xcc_ir::dialects::kernel_blockwise::GROUP as usize;

/// MatMulNBits' constant weights, read value by value.
struct NBits<'t> {
    k: usize,
    n: usize,
    bits: usize,
    block: usize,
    blocks: usize,
    b: &'t Tensor,
    scales: Vec<f64>,
    zeros: Option<&'t Tensor>,
    /// `g_idx`: the block (group) of each K index, where it is not `i / block_size`.
    groups: Option<Vec<usize>>,
    /// With `groups`: K's indices sorted by block, the order the packed weights take them in
    /// (and A's columns are gathered in), where each block has `block` of them (the last one the
    /// rest of K).
    order: Option<Vec<usize>>,
}

impl<'t> NBits<'t> {
    /// `B[n, block, byte]` holds `8 / bits` values per byte, low bits first.
    fn new(node: &Node, g: &'t Graph) -> OResult<NBits<'t>> {
        let (k, n, bits, block) = (
            node.int("K", 0) as usize,
            node.int("N", 0) as usize,
            node.int("bits", 4) as usize,
            node.int("block_size", 0) as usize,
        );
        if ![2, 4, 8].contains(&bits) || k == 0 || n == 0 || block < 16 || !block.is_power_of_two() {
            return err(format!("MatMulNBits needs K, N, bits 2, 4 or 8 and a power-of-two block_size of 16 or more (K {k}, N {n}, bits {bits}, block_size {block})"));
        }
        let constant = |i: usize| -> OResult<Option<&'t Tensor>> {
            match node.input(i) {
                Some(name) => g.consts.get(name).map(Some).ok_or_else(|| {
                    OnnxError::msg(format!("MatMulNBits's input '{name}' must be a constant (an initializer)"))
                }),
                None => Ok(None),
            }
        };
        let (b, scales, zeros) = (constant(1)?.expect("required"), constant(2)?.expect("required"), constant(3)?);
        let blocks = k.div_ceil(block);
        let blob = block * bits / 8;
        if b.data.len() != n * blocks * blob || b.ty.dtype != DType::U8 {
            return err(format!("MatMulNBits's B must be uint8 [{n}, {blocks}, {blob}], not {}", b.ty.describe()));
        }
        let scales = scales.to_f64();
        if scales.len() != n * blocks {
            return err(format!("MatMulNBits's scales must hold {} values, not {}", n * blocks, scales.len()));
        }
        let groups = match constant(4)? {
            Some(g_idx) => block_of_each_k(g_idx, k, block)?,
            None => None,
        };
        let order = groups.as_deref().and_then(|g| sorted_by_block(g, k, block));
        let w = NBits { k, n, bits, block, blocks, b, scales, zeros, groups, order };
        if let Some(z) = zeros {
            let want = if z.ty.dtype == DType::U8 { n * blocks.div_ceil(8 / bits) } else { n * blocks };
            if z.ty.numel() != want {
                return err(format!("MatMulNBits's zero_points must hold {want} values, not {}", z.ty.numel()));
            }
        }
        Ok(w)
    }

    /// Value `index` of packed `data`.
    fn packed(&self, data: &[u8], index: usize) -> u32 {
        let per_byte = 8 / self.bits;
        (u32::from(data[index / per_byte]) >> ((index % per_byte) * self.bits)) & ((1 << self.bits) - 1)
    }

    /// The quantized value of column `col` at position `i` of the packed layout: K index `i`,
    /// or the `i`-th of K's indices sorted by block ([`NBits::order`]).
    fn packed_value(&self, col: usize, i: usize) -> u32 {
        self.value(col, self.order.as_ref().map_or(i, |o| o[i]))
    }

    /// The quantized value of column `col` at K index `i` (within the blocks).
    fn value(&self, col: usize, i: usize) -> u32 {
        let blob = self.block * self.bits / 8;
        let (blk, within) = (i / self.block, i % self.block);
        self.packed(&self.b.data[(col * self.blocks + blk) * blob..][..blob], within)
    }

    /// The zero point of column `col`'s block `blk`: packed like the values (uint8), a float,
    /// or `2^(bits - 1)` when absent.
    fn zero(&self, col: usize, blk: usize) -> f64 {
        match self.zeros {
            None => (1u32 << (self.bits - 1)) as f64,
            Some(z) if z.ty.dtype == DType::U8 => {
                let row = self.blocks.div_ceil(8 / self.bits);
                self.packed(&z.data[col * row..], blk) as f64
            }
            Some(z) => z.to_f64()[col * self.blocks + blk],
        }
    }

    fn scale(&self, col: usize, blk: usize) -> f64 {
        self.scales[col * self.blocks + blk]
    }

    /// Whether `kernel.matmul_blockwise` takes these weights (and an f32 A).
    fn packs(&self, a: DType) -> bool {
        let integer_zeros = self.zeros.is_none_or(|z| z.ty.dtype == DType::U8);
        let blocks_in_order = self.groups.is_none() || (self.order.is_some() && !self.padded());
        (16..=256).contains(&self.block) && integer_zeros && blocks_in_order && a == DType::F32
    }

    /// Whether each block takes a whole run of the kernel's, half of it padding (blocks of 16).
    fn padded(&self) -> bool {
        self.block < RUN
    }

    /// The kernel's block: a block of K, or a run where blocks are padded to one.
    fn kernel_block(&self) -> usize {
        self.block.max(RUN)
    }

    /// The K index at position `i` of block `blk` in the kernel's layout (`i` from the block's
    /// start), `None` for padding: past the block's own values or past K.
    fn k_at(&self, blk: usize, i: usize) -> Option<usize> {
        let k = blk * self.block + i;
        (i < self.block && k < self.k).then_some(k)
    }

    /// The bits of a value in the kernel's layout: 2-bit values take a nibble each.
    fn kernel_bits(&self) -> usize {
        self.bits.max(4)
    }

    /// The `[K, N]` weights, `(q - zero) * scale`, with the scale and zero point of K index `i`'s
    /// block (`g_idx[i]` where given).
    fn dequantized(&self) -> Vec<f64> {
        let mut w = vec![0.0; self.k * self.n];
        for col in 0..self.n {
            for i in 0..self.k {
                let blk = self.groups.as_ref().map_or(i / self.block, |g| g[i]);
                w[i * self.n + col] = (self.value(col, i) as f64 - self.zero(col, blk)) * self.scale(col, blk);
            }
        }
        w
    }

    /// The weights in `kernel.matmul_blockwise`'s layout (`[groups, Kp * bits]`: per group of 8
    /// columns, per block, each column's runs): with 4 bits a run's byte j holds its value j in
    /// the low 4 bits and value j + 16 in the high ones, with 8 bits its bytes are its values;
    /// past K, the block's zero point (a product of 0); columns past N are zeros.
    fn runs(&self) -> Vec<u8> {
        let kp = self.blocks * self.kernel_block();
        let mut out = Vec::with_capacity(self.n.div_ceil(GROUP) * GROUP * kp * self.kernel_bits() / 8);
        for (col, blk) in self.group_blocks() {
            let value = |i: usize| match (col, self.k_at(blk, i)) {
                (Some(col), Some(k)) => self.packed_value(col, k),
                (Some(col), None) => self.zero(col, blk) as u32,
                (None, _) => 0,
            };
            for run in (0..self.kernel_block()).step_by(RUN) {
                match self.kernel_bits() {
                    4 => out.extend((0..RUN / 2).map(|j| (value(run + j) | (value(run + j + RUN / 2) << 4)) as u8)),
                    _ => out.extend((0..RUN).map(|j| value(run + j) as u8)),
                }
            }
        }
        out
    }

    /// A value per block in the layout of `kernel.matmul_blockwise`'s scales and zero points
    /// (`[groups, blocks * 8]`), `pad` for the columns past N.
    fn per_block(&self, of: impl Fn(usize, usize) -> f64, pad: f64) -> Tensor {
        let values: Vec<f64> = self.group_blocks().map(|(col, blk)| col.map_or(pad, |c| of(c, blk))).collect();
        Tensor::from_f64(DType::F32, vec![self.n.div_ceil(GROUP), self.blocks * GROUP], &values)
    }

    /// Every (column, block) in the layout's order: per group of 8 columns, per block, per
    /// column of the group (`None` past N).
    fn group_blocks(&self) -> impl Iterator<Item = (Option<usize>, usize)> + '_ {
        (0..self.n.div_ceil(GROUP)).flat_map(move |g| {
            (0..self.blocks)
                .flat_map(move |blk| (g * GROUP..(g + 1) * GROUP).map(move |col| ((col < self.n).then_some(col), blk)))
        })
    }
}

/// `g_idx` (the block of each of K's indices), checked; `None` where it is each index's own block
/// (`i / block`), as exporters that do not reorder K write it.
fn block_of_each_k(g_idx: &Tensor, k: usize, block: usize) -> OResult<Option<Vec<usize>>> {
    let blocks = k.div_ceil(block);
    let values = g_idx.to_f64();
    if values.len() != k {
        return err(format!("MatMulNBits's g_idx must hold K = {k} values, not {}", values.len()));
    }
    if let Some(v) = values.iter().find(|&&v| !(0.0..blocks as f64).contains(&v) || v.fract() != 0.0) {
        return err(format!("MatMulNBits's g_idx holds {v}, not a block of 0 to {}", blocks - 1));
    }
    let groups: Vec<usize> = values.iter().map(|&v| v as usize).collect();
    Ok((!groups.iter().enumerate().all(|(i, &g)| g == i / block)).then_some(groups))
}

/// K's indices sorted by their block (stably), where that puts each index `j`-th in block
/// `j / block`: every block but the last holds `block` indices. `None` for groups of other
/// sizes, which no block layout holds.
fn sorted_by_block(groups: &[usize], k: usize, block: usize) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by_key(|&i| groups[i]);
    order.iter().enumerate().all(|(j, &i)| groups[i] == j / block).then_some(order)
}

/// A (`rank` dims, K last) with each block of K followed by zeros up to a run: K padded to whole
/// blocks, seen as `[..., blocks, block]`, padded to `[..., blocks, RUN]`, and flattened back.
fn padded_blocks(x: &mut Expansion, a: &str, rank: usize, w: &NBits) -> String {
    let last_pad = |x: &mut Expansion, v: &str, r: usize, after: usize| {
        let mut pads = vec![0i64; 2 * r];
        pads[2 * r - 1] = after as i64;
        let pads = x.ints(&pads);
        x.op("Pad", &[v, &pads], &[])
    };
    let whole =
        if w.k.is_multiple_of(w.block) { a.to_string() } else { last_pad(x, a, rank, w.blocks * w.block - w.k) };
    // 0 keeps a leading dim as it is (ONNX Reshape), whatever its size at run time.
    let lead = vec![0i64; rank - 1];
    let split = x.ints(&[lead.clone(), vec![w.blocks as i64, w.block as i64]].concat());
    let blocks = x.op("Reshape", &[&whole, &split], &[]);
    let runs = last_pad(x, &blocks, rank + 1, RUN - w.block);
    let flat = x.ints(&[lead, vec![(w.blocks * RUN) as i64]].concat());
    x.op("Reshape", &[&runs, &flat], &[])
}

impl Expanded for MatMulNBits {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let w = NBits::new(node, g)?;
        let a_t = g.ty(&node.inputs[0])?;
        let y = if w.packs(a_t.dtype) {
            let groups = w.n.div_ceil(GROUP);
            let bytes = w.blocks * w.kernel_block() * GROUP * w.kernel_bits() / 8;
            let q = Tensor { ty: TensorType::new(DType::I8, vec![groups, bytes]), data: w.runs() };
            let q = x.constant(q);
            let scales = x.constant(w.per_block(|c, b| w.scale(c, b), 0.0));
            // The zero points' bytes (unsigned: 0..255 as int8's bits).
            let mut zeros = w.per_block(|c, b| w.zero(c, b), 0.0);
            zeros = Tensor {
                ty: TensorType::new(DType::I8, zeros.ty.shape.clone()),
                data: zeros.to_f64().iter().map(|&z| z as u8).collect(),
            };
            let zeros = x.constant(zeros);
            let attrs = [
                ("bits", Attr::Int(w.kernel_bits() as i64)),
                ("K", Attr::Int(if w.padded() { w.blocks * RUN } else { w.k } as i64)),
                ("N", Attr::Int(w.n as i64)),
                ("block_size", Attr::Int(w.kernel_block() as i64)),
                // With g_idx ONNX Runtime computes in f32 at every accuracy_level.
                (
                    "int8_activations",
                    Attr::Int(i64::from(node.int("accuracy_level", 0) == 4 && node.input(4).is_none())),
                ),
            ];
            let a = match &w.order {
                Some(order) => {
                    let order = x.ints(&order.iter().map(|&i| i as i64).collect::<Vec<_>>());
                    x.op("Gather", &[&node.inputs[0], &order], &[("axis", Attr::Int(-1))])
                }
                None if w.padded() => padded_blocks(x, &node.inputs[0], a_t.shape.len(), &w),
                None => node.inputs[0].clone(),
            };
            let y = x.fresh();
            x.op_in(crate::ops::XCC_DOMAIN, "MatMulBlockwise", &[&a, &q, &scales, &zeros], &attrs, &[&y]);
            y
        } else {
            let weights = x.constant(Tensor::from_f64(a_t.dtype, vec![w.k, w.n], &w.dequantized()));
            x.op("MatMul", &[&node.inputs[0], &weights], &[])
        };
        super::quantized::add_bias(x, &y, node.input(5), &node.outputs[0]);
        Ok(())
    }
}

impl OnnxOp for MatMulBlockwise {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let a = g.ty(&node.inputs[0])?;
        let (k, n) = (node.int("K", 0) as usize, node.int("N", 0) as usize);
        let mut dims = a.dims();
        if a.dtype != DType::F32 || dims.last().and_then(|d| d.as_fixed()) != Some(k) {
            return err(format!("A must be float32 [..., {k}], not {}", a.describe()));
        }
        *dims.last_mut().expect("K") = crate::dim::Dim::fixed(n);
        Ok(vec![TensorType::with_dims(DType::F32, dims)])
    }

    fn lower(&self, node: &Node, _: &Graph, e: &mut Emitter) -> OResult<()> {
        let operands: Vec<xcc_ir::ValueId> =
            node.inputs.iter().chain(&node.outputs).map(|name| e.buf(name)).collect::<OResult<_>>()?;
        let mut spec = xcc_ir::OpSpec::new("kernel.matmul_blockwise", xcc_ir::Span::UNKNOWN)
            .operands(operands)
            .attr("block_size", xcc_ir::Attribute::i64(node.int("block_size", 0)))
            .attr("bits", xcc_ir::Attribute::i64(node.int("bits", 4)));
        if node.int("int8_activations", 0) != 0 {
            spec = spec.attr("int8_activations", xcc_ir::Attribute::Unit);
        }
        e.op(spec);
        Ok(())
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }
}
