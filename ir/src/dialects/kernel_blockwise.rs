//! The kernel dialect's block-quantized matmul, a second table (`kernel.rs` holds the rest of
//! the dialect): `kernel.matmul_blockwise`, the product of float activations and weights kept as
//! 4-bit integers with a scale and a zero point per block of K (ONNX Runtime's MatMulNBits):
//!
//! ```text
//! out[m, n] = sum_k A[m, k] * (q[n, k] - zero[n, k / block]) * scale[n, k / block]
//! ```
//!
//! Operands, in order: `A` (f32, `[..., K]`, its leading dims the rows), `q` (i8), `scales`
//! (f32), `zeros` (i8, unsigned: 0..15 for 4 bits, 0..255 for 8), `out` (f32, `[..., N]`). The
//! columns go in groups of [`GROUP`] (the last one padded with columns of scale 0), and each
//! group's weights, scales and zero points block by block, so that a kernel reads one stream:
//! `q` is `[G, Kp * bits]` (G groups, `Kp = ceil(K / block) * block`), group g's block b
//! holding its columns' runs one column after another; `scales` and `zeros` are
//! `[G, blocks * 8]`, a group's block b at `8 b`. A run is 32 values: with 4 bits, 16 bytes, byte
//! j holding value j in its low 4 bits and value j + 16 in its high 4 bits (unsigned; past K, the
//! block's zero point), so a run unpacks into one 32-byte vector with one shift and one mask;
//! with 8 bits, 32 unsigned bytes. `bits` is 4 (the default) or 8; `block_size` is 32, 64, 128
//! or 256.
//!
//! With `int8_activations` (ONNX Runtime's `accuracy_level` 4), A is quantized per block to
//! int8 with a scale of `max |A| / 127` before the products, which are then exact integer dot
//! products; otherwise the arithmetic is float. `byte_dots` and `pair_products` record how the
//! integer products multiply on the target (`kernel-choose-strategies`, as on an integer
//! `kernel.matmul`).

use super::constraints::operand_types;
use crate::attributes::Attribute;
use crate::module::Module;
use crate::op_def::{optional, required, AttrKind, OpDef, Traits};
use crate::types::{MemRefType, Type};
use crate::OpId;

/// The values a run of packed bytes holds, the unit the kernels unpack.
pub const RUN: u64 = 32;

/// The columns stored together.
pub const GROUP: u64 = 8;

pub const OPS: &[OpDef] = &[OpDef::new(
    "kernel.matmul_blockwise",
    "out = A x dequantized 4-bit or 8-bit weights with a scale and zero point per block of K",
)
.operands(5)
.attrs(&[
    required("block_size", AttrKind::Integer),
    optional("bits", AttrKind::Integer),
    optional("int8_activations", AttrKind::Unit),
    optional("byte_dots", AttrKind::String),
    optional("pair_products", AttrKind::Unit),
])
.traits(Traits::READS.union(Traits::WRITES))
.verify(verify_matmul_blockwise)];

/// The sizes of a `kernel.matmul_blockwise`, read off its operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockwiseShape {
    pub k: u64,
    pub n: u64,
    pub block: u64,
    /// Blocks per column, `ceil(K / block)`.
    pub blocks: u64,
    /// The bits of a weight: 4 or 8.
    pub bits: u64,
}

impl BlockwiseShape {
    /// K padded to whole blocks.
    pub fn padded_k(&self) -> u64 {
        self.blocks * self.block
    }

    /// The bytes of a run of [`RUN`] weights.
    pub fn run_bytes(&self) -> u64 {
        RUN * self.bits / 8
    }

    /// The groups of [`GROUP`] columns.
    pub fn groups(&self) -> u64 {
        self.n.div_ceil(GROUP)
    }

    /// The shape of a verified op.
    pub fn of(m: &Module, op: OpId) -> BlockwiseShape {
        shape(m, op).expect("a verified kernel.matmul_blockwise")
    }
}

fn memref(t: &Type) -> Result<&MemRefType, String> {
    t.as_memref().ok_or_else(|| format!("operands are memrefs, not {t}"))
}

fn shape(m: &Module, op: OpId) -> Result<BlockwiseShape, String> {
    let ins = operand_types(m, op);
    let [a, q, scales, zeros, out] = [0, 1, 2, 3, 4].map(|i| memref(ins[i]));
    let (a, q, scales, zeros, out) = (a?, q?, scales?, zeros?, out?);
    let block = m.attr(op, "block_size").and_then(Attribute::as_int).unwrap_or(0);
    if ![32, 64, 128, 256].contains(&block) {
        return Err(format!("block_size is 32, 64, 128 or 256, not {block}"));
    }
    let block = block as u64;
    let bits = m.attr(op, "bits").and_then(Attribute::as_int).unwrap_or(4);
    if bits != 4 && bits != 8 {
        return Err(format!("bits is 4 or 8, not {bits}"));
    }
    let bits = bits as u64;
    let (Some(&Some(k)), Some(&Some(n))) = (a.shape.last(), out.shape.last()) else {
        return Err("A's last dim (K) and the output's (N) must be static".into());
    };
    let f32_elems = *a.elem == Type::f32() && *out.elem == Type::f32() && *scales.elem == Type::f32();
    if !f32_elems || *q.elem != Type::i8() || *zeros.elem != Type::i8() {
        return Err("A, the scales and the output are f32; the weights and zero points i8".into());
    }
    let lead = |t: &MemRefType| t.shape[..t.shape.len() - 1].to_vec();
    let rows_agree = lead(a).len() == lead(out).len()
        && lead(a).iter().zip(lead(out)).all(|(x, y)| x.is_none() || y.is_none() || *x == y);
    if !rows_agree || k == 0 || n == 0 {
        return Err(format!("A [..., K] and the output [..., N] share their leading dims: {} and {}", ins[0], ins[4]));
    }
    let blocks = k.div_ceil(block);
    let groups = n.div_ceil(GROUP);
    let want = |t: &MemRefType, dims: [u64; 2]| t.shape == [Some(dims[0]), Some(dims[1])];
    let (weights, per_block) = ([groups, blocks * block * GROUP * bits / 8], [groups, blocks * GROUP]);
    if !want(q, weights) || !want(scales, per_block) || !want(zeros, per_block) {
        return Err(format!(
            "for K {k}, N {n}, {bits} bits and blocks of {block}: the weights are {weights:?}, the scales and zero points {per_block:?}, not {}, {} and {}",
            ins[1], ins[2], ins[3]
        ));
    }
    Ok(BlockwiseShape { k, n, block, blocks, bits })
}

fn verify_matmul_blockwise(m: &Module, op: OpId) -> Result<(), String> {
    shape(m, op).map(|_| ())
}
