//! `kernel-pack-weights`: a `kernel.matmul` whose B is a constant global gets B laid out at
//! compile time as the GEMM micro-kernel reads it: read transposed (`transpose_b`, as Gemm's
//! `transB` weights are), it is first stored `[.., K, N]`; then, where the micro-kernel runs
//! (f32, no batch on B), in column panels `[ceil(N / NR), K, NR]` (`b_panels = NR`): each tile
//! of NR columns reads one contiguous stream over K instead of K rows a leading dimension apart
//! (which, for power-of-two N, all fall in the same cache sets), and the last, ragged panel is
//! padded with zeros. The packed copy is a new global; the original goes when nothing else
//! reads it.
//!
//! A `kernel.conv_planes` for a CPU without byte dot products gets its constant byte weights
//! widened to i16 ([`widen_plane_weights`]).
//!
//! A convolution that Winograd's F(2x2, 3x3) applies to ([`super::winograd`]) gets its constant
//! weights transformed, `[K, C, 3, 3]` to `[4, 4, K, C]`, and is marked `winograd`.

use super::ops_named;
use super::winograd::Plane;
use crate::pass::{LoweringOptions, Pass};
use xcc_ir::attributes::DenseValues;
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Type, ValueId};

pub struct PackWeights;

impl Pass for PackWeights {
    fn name(&self) -> &'static str {
        "kernel-pack-weights"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        for op in ops_named(&m, &["kernel.matmul"]) {
            if m.attr(op, "transpose_b").is_some() {
                pack_b(&mut m, op);
            }
            if !options.gpu() && super::matmul::micro_kernel_applies(&m, op) {
                pack_panels(&mut m, op);
            }
            if !options.gpu() && xcc_ir::dialects::kernel::is_integer_matmul(&m, op) {
                let dots = super::strategy::recorded_byte_dots(&m, op, options)?
                    .multiply(m.attr(op, "a_unsigned").is_some(), m.attr(op, "b_unsigned").is_some());
                pack_quads(&mut m, op, !dots);
            }
        }
        if !options.gpu() {
            for op in ops_named(&m, &["kernel.conv_planes"]) {
                let signs = ["input_unsigned", "weights_unsigned"].map(|key| m.attr(op, key).is_some());
                if !super::strategy::recorded_byte_dots(&m, op, options)?.multiply(signs[0], signs[1]) {
                    widen_plane_weights(&mut m, op);
                }
            }
        }
        for op in ops_named(&m, &["kernel.conv"]) {
            let chosen = m.attr(op, "strategy").and_then(Attribute::as_str) == Some("winograd");
            if let Some(plane) = Plane::of_conv(&m, op).filter(|_| chosen && m.attr(op, "winograd").is_none()) {
                pack_winograd(&mut m, op, &plane);
            }
        }
        Ok(m)
    }
}

/// The global a value reads, with its raw bytes, if it is a constant one.
pub(crate) fn constant_global(m: &Module, v: ValueId) -> Option<(OpId, OpId, Vec<u8>)> {
    let get = m.defining_op(v).filter(|&d| m.ops[d].name == "memref.get_global")?;
    let sym = m.attr(get, "name")?.as_symbol()?;
    let global = m.lookup_symbol(sym)?;
    m.attr(global, "constant")?;
    match m.attr(global, "initial_value")? {
        Attribute::Dense { values: DenseValues::Hex(bytes), .. } => Some((get, global, bytes.clone())),
        _ => None,
    }
}

fn element_bytes(t: &Type) -> Option<usize> {
    match t {
        Type::Float(k) => Some(k.width() as usize / 8),
        Type::Integer { width, .. } if width % 8 == 0 => Some(*width as usize / 8),
        _ => None,
    }
}

fn pack_b(m: &mut Module, op: OpId) {
    let b = m.ops[op].operands[1];
    let Some((get, global, bytes)) = constant_global(m, b) else { return };
    let Some(mt) = m.ty(b).as_memref().cloned() else { return };
    let Some(shape) = mt.shape.iter().map(|d| d.map(|d| d as usize)).collect::<Option<Vec<_>>>() else { return };
    let Some(esize) = element_bytes(&mt.elem) else { return };
    let r = shape.len();
    let (n, k) = (shape[r - 2], shape[r - 1]);
    let batch: usize = shape[..r - 2].iter().product();
    if bytes.len() != batch * n * k * esize || mt.layout != Layout::Identity {
        return;
    }
    // [.., N, K] -> [.., K, N]
    let mut packed = vec![0u8; bytes.len()];
    for bi in 0..batch {
        for j in 0..n {
            for kk in 0..k {
                let from = ((bi * n + j) * k + kk) * esize;
                let to = ((bi * k + kk) * n + j) * esize;
                packed[to..to + esize].copy_from_slice(&bytes[from..from + esize]);
            }
        }
    }
    let mut new_shape = shape.clone();
    new_shape.swap(r - 2, r - 1);
    replace_b(m, op, (get, global), packed, &mt.elem, &new_shape, "packed");
    m.remove_attr(op, "transpose_b");
}

/// B `[K, N]` (f32, constant) as `[ceil(N / NR), K, NR]` column panels, zero-padded.
fn pack_panels(m: &mut Module, op: OpId) {
    const NR: usize = super::matmul::NR;
    let b = m.ops[op].operands[1];
    let Some((get, global, bytes)) = constant_global(m, b) else { return };
    let Some(mt) = m.ty(b).as_memref().cloned() else { return };
    let Some(shape) = mt.shape.iter().map(|d| d.map(|d| d as usize)).collect::<Option<Vec<_>>>() else { return };
    let r = shape.len();
    if *mt.elem != Type::f32() || mt.layout != Layout::Identity || shape[..r - 2].iter().any(|&d| d != 1) {
        return;
    }
    let (k, n) = (shape[r - 2], shape[r - 1]);
    if bytes.len() != k * n * 4 {
        return;
    }
    let panels = n.div_ceil(NR);
    let mut packed = vec![0u8; panels * k * NR * 4];
    for kk in 0..k {
        for j in 0..n {
            let from = (kk * n + j) * 4;
            let to = (((j / NR) * k + kk) * NR + j % NR) * 4;
            packed[to..to + 4].copy_from_slice(&bytes[from..from + 4]);
        }
    }
    replace_b(m, op, (get, global), packed, &mt.elem, &[panels, k, NR], "panels");
    m.set_attr(op, "b_panels", Attribute::i64(NR as i64));
}

/// An integer matmul's constant B `[K, N]` (bytes) as `[ceil(N / W), ceil(K / 4), W, 4]`: per
/// panel of W columns, per quad of k, each column's four bytes side by side, which the integer
/// micro-kernel loads as one vector and multiplies pairwise; zeros past N and K add nothing.
/// `widen`: for a CPU without byte dot products, each byte as an i16 of its value (signed, or
/// unsigned as `b_unsigned` says, which then goes), for the kernel of 16-bit pairs.
fn pack_quads(m: &mut Module, op: OpId, widen: bool) {
    const W: usize = super::qgemm::QUAD_COLUMNS;
    let b = m.ops[op].operands[1];
    if m.attr(op, "b_quads").is_some() {
        return;
    }
    let Some((get, global, bytes)) = constant_global(m, b) else { return };
    let Some(mt) = m.ty(b).as_memref().cloned() else { return };
    let Some(shape) = mt.shape.iter().map(|d| d.map(|d| d as usize)).collect::<Option<Vec<_>>>() else { return };
    let r = shape.len();
    if *mt.elem != Type::i8() || mt.layout != Layout::Identity || shape[..r - 2].iter().any(|&d| d != 1) {
        return;
    }
    let (k, n) = (shape[r - 2], shape[r - 1]);
    if bytes.len() != k * n {
        return;
    }
    let (panels, quads) = (n.div_ceil(W), k.div_ceil(4));
    let mut packed = vec![0u8; panels * quads * W * 4];
    for kk in 0..k {
        for j in 0..n {
            packed[(((j / W) * quads + kk / 4) * W + j % W) * 4 + kk % 4] = bytes[kk * n + j];
        }
    }
    let dims = [panels, quads, W, 4];
    if widen {
        let unsigned = m.attr(op, "b_unsigned").is_some();
        replace_b(m, op, (get, global), widened(&packed, unsigned), &Type::i16(), &dims, "quads_i16");
        m.remove_attr(op, "b_unsigned");
    } else {
        replace_b(m, op, (get, global), packed, &mt.elem, &dims, "quads");
    }
    m.set_attr(op, "b_quads", Attribute::i64(W as i64));
}

/// An integer convolution's constant byte weights widened to i16 (from signed or, as
/// `weights_unsigned` says, unsigned bytes), for a CPU without byte dot products: its kernel
/// then multiplies 16-bit pairs (`vpmaddwd` with AVX2), each row's quad of weights one 8-byte
/// broadcast load instead of a load and two shuffles per use.
fn widen_plane_weights(m: &mut Module, op: OpId) {
    let w = m.ops[op].operands[1];
    let Some((get, global, bytes)) = constant_global(m, w) else { return };
    let Some(mt) = m.ty(w).as_memref().cloned() else { return };
    let Some(shape) = mt.shape.iter().map(|d| d.map(|d| d as usize)).collect::<Option<Vec<_>>>() else { return };
    if *mt.elem != Type::i8() || mt.layout != Layout::Identity || bytes.len() != shape.iter().product::<usize>() {
        return;
    }
    let unsigned = m.attr(op, "weights_unsigned").is_some();
    replace_b(m, op, (get, global), widened(&bytes, unsigned), &Type::i16(), &shape, "i16");
    m.remove_attr(op, "weights_unsigned");
}

/// Bytes as little-endian i16s of their values, signed or unsigned.
fn widened(bytes: &[u8], unsigned: bool) -> Vec<u8> {
    bytes.iter().flat_map(|&b| if unsigned { b as i16 } else { b as i8 as i16 }.to_le_bytes()).collect()
}

/// A convolution's constant `[K, C, 3, 3]` f32 weights as Winograd's `[4, 4, K, C]`
/// ([`super::winograd`]), marked `winograd`.
/// A convolution's weights as Winograd's transform reads them: a constant global of f32
/// `[K, C, 3, 3]` in the identity layout.
pub(super) fn winograd_weights(m: &Module, op: OpId) -> Option<(OpId, OpId, Vec<u8>)> {
    let w = m.ops[op].operands[1];
    let (get, global, bytes) = constant_global(m, w)?;
    let t = m.ty(w).as_memref()?;
    let elements: u64 = t.shape.iter().map(|d| d.unwrap_or(0)).product();
    (*t.elem == Type::f32() && t.layout == Layout::Identity && bytes.len() as u64 == elements * 4)
        .then_some((get, global, bytes))
}

fn pack_winograd(m: &mut Module, op: OpId, plane: &Plane) {
    let Some((get, global, bytes)) = winograd_weights(m, op) else { return };
    let (k, c) = (plane.filters, plane.channels);
    if bytes.len() != k * c * 9 * 4 {
        return;
    }
    let weights: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))).collect();
    let u = super::winograd::transform_filters(&weights, k, c);
    let bytes = u.iter().flat_map(|v| v.to_le_bytes()).collect();
    let side = super::winograd::TILE + 2;
    replace_b(m, op, (get, global), bytes, &Type::f32(), &[side, side, k, c], "winograd");
    m.set_attr(op, "winograd", Attribute::i64(super::winograd::TILE as i64));
}

/// Makes `op` read B from a new constant global `GLOBAL_suffix` of `shape` holding `bytes`; the
/// old global goes when nothing reads it any more.
/// A constant global beside `global` (named after it with `suffix`; made once) holding `bytes`
/// as `elem`s of `shape`, and its value read just before `op`.
pub(crate) fn sibling_global(
    m: &mut Module,
    op: OpId,
    global: OpId,
    (bytes, elem, shape): (Vec<u8>, &Type, &[usize]),
    suffix: &str,
) -> ValueId {
    let new_type = Type::MemRef(MemRefType {
        shape: shape.iter().map(|&d| Some(d as u64)).collect(),
        elem: Box::new(elem.clone()),
        layout: Layout::Identity,
        memory_space: None,
    });
    let name = format!("{}_{suffix}", m.sym_name(global).unwrap_or("w"));
    if m.lookup_symbol(&name).is_none() {
        let mut spec = OpSpec::new("memref.global", m.ops[global].span);
        spec.attrs = m.ops[global].attrs.clone();
        let data_ty = Type::Tensor { shape: Some(vec![Some(bytes.len() as u64)]), elem: Box::new(Type::i8()) };
        let g = m.create_op(spec);
        m.set_attr(g, "sym_name", Attribute::String(name.clone()));
        m.set_attr(g, "type", Attribute::Type(new_type.clone()));
        m.set_attr(g, "initial_value", Attribute::Dense { values: DenseValues::Hex(bytes), ty: data_ty });
        let (block, index) = m.op_index(global).expect("a top-level global");
        m.ops[g].parent = Some(block);
        m.blocks[block].ops.insert(index + 1, g);
    }
    let get = m.build_before(
        op,
        OpSpec::new("memref.get_global", m.ops[op].span).results([new_type]).attr("name", Attribute::symbol(&name)),
    );
    m.result(get, 0)
}

fn replace_b(
    m: &mut Module,
    op: OpId,
    (get, global): (OpId, OpId),
    bytes: Vec<u8>,
    elem: &Type,
    shape: &[usize],
    suffix: &str,
) {
    let b = m.ops[op].operands[1];
    m.ops[op].operands[1] = sibling_global(m, op, global, (bytes, elem, shape), suffix);
    if m.users(b).is_empty() {
        m.erase_op(get);
        let sym = m.sym_name(global).unwrap_or_default().to_string();
        let still_read = ops_named(m, &["memref.get_global"])
            .into_iter()
            .any(|g| m.attr(g, "name").and_then(Attribute::as_symbol) == Some(sym.as_str()));
        if !still_read {
            m.erase_op(global);
        }
    }
}
