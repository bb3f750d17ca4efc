//! `kernel-choose-strategies`: how each matmul and convolution is computed on the target,
//! chosen once and recorded on the op, so that the passes after it only apply the choice (as
//! IREE's `KernelDispatch` records a lowering configuration). What it records can be printed
//! (`--passes=...,kernel-choose-strategies --emit=mlir`) and written by hand in golden tests:
//!
//! - `register_tiles` on a CPU's f32 `kernel.matmul` and `kernel.conv`: the GEMM micro-kernel's
//!   register tiles from the target's table (`xcc_targets::ArchInfo::matmul_tiles`), as
//!   `[min_level, rows, vectors]` triples; the kernel branches on the CPU level between them.
//! - `l2_cache_bytes` on a CPU's f32 `kernel.conv`: the L2 cache its im2col blocks are sized for
//!   (`xcc_targets::ArchInfo::caches`).
//! - `strategy` on a CPU's `kernel.conv`: `"winograd"` (F(2x2, 3x3); `kernel-pack-weights`
//!   transforms its constant weights), `"depthwise"`, `"im2col"` (a GEMM over the input's
//!   columns, in place for a pointwise convolution), or `"direct"` (the sums, for integer and
//!   other non-f32 convolutions).
//!
//! - `byte_dots` on a CPU's integer `kernel.matmul`, `kernel.conv_planes` and
//!   `kernel.matmul_blockwise` with `int8_activations`: the byte dot
//!   products its quads multiply with where they take the operands' signs (`"vnni"`,
//!   `"neon"`, `"neon_i8mm"`, or `"none"`; elsewhere `kernel-pack-weights` widens the constant
//!   weights to i16): the baseline CPU's, but for `kernel.matmul_blockwise`, whose weights are
//!   the same bytes either way, the best copy's (its kernel tests the level for VNNI); and
//!   `pair_products` where some copy of the code is for a CPU with AVX2: widened weights then
//!   multiply as 16-bit pairs (`vpmaddwd`) on those CPUs (`qgemm.rs`, `qconv.rs`).
//! - `heads_per_pass` on a CPU's `kernel.attention`: the query heads of a group whose rows one
//!   task computes in one pass over the group's keys and values ([`heads_per_pass`]), and
//!   `key_parts`, the parts a decode step's keys may be split into across tasks.
//! - on a GPU, `gpu_strategy` (and its parameters) on each `kernel.matmul` and `kernel.conv`:
//!   a GEMM tiled through shared memory, sums split over K, or a thread per few outputs
//!   ([`super::gpu_strategy`]).

use super::ops_named;
use super::winograd::Plane;
use crate::pass::{ByteDots, LoweringOptions, Pass};
use xcc_ir::dialects::kernel::EpilogueOperands;
use xcc_ir::dialects::kernel_attention::{HEADS_PER_PASS, KEY_PARTS};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, Type};
use xcc_targets::LevelTiles;

pub struct ChooseStrategies;

impl Pass for ChooseStrategies {
    fn name(&self) -> &'static str {
        "kernel-choose-strategies"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            choose_for_gpu(&mut m, options);
            return Ok(m);
        }
        let tiles = options.target.info().matmul_tiles;
        for op in ops_named(&m, &["kernel.matmul", "kernel.conv"]) {
            if writes_f32(&m, op) && m.attr(op, "register_tiles").is_none() {
                m.set_attr(op, "register_tiles", tiles_attribute(tiles));
            }
            let conv = m.ops[op].name == "kernel.conv";
            if conv && writes_f32(&m, op) && m.attr(op, "l2_cache_bytes").is_none() {
                let l2 = options.target.info().caches.l2 as i64;
                m.set_attr(op, "l2_cache_bytes", Attribute::i64(l2));
            }
        }
        for op in ops_named(&m, &["kernel.matmul", "kernel.conv_planes", "kernel.matmul_blockwise"]) {
            let integer = match m.ops[op].name.as_str() {
                "kernel.conv_planes" => true,
                "kernel.matmul_blockwise" => m.attr(op, "int8_activations").is_some(),
                _ => xcc_ir::dialects::kernel::is_integer_matmul(&m, op),
            };
            if integer && m.attr(op, BYTE_DOTS).is_none() {
                let dots = match m.ops[op].name.as_str() {
                    "kernel.matmul_blockwise" => options.best_byte_dots(),
                    _ => options.byte_dots(),
                };
                m.set_attr(op, BYTE_DOTS, Attribute::String(byte_dots_name(dots).into()));
                if super::qgemm::some_copy_has_avx2(options) {
                    m.set_attr(op, PAIR_PRODUCTS, Attribute::Unit);
                }
            }
        }
        for op in ops_named(&m, &["kernel.attention"]) {
            if m.attr(op, HEADS_PER_PASS).is_none() {
                let shape = xcc_ir::dialects::kernel_attention::AttentionShape::of(&m, op);
                m.set_attr(op, HEADS_PER_PASS, Attribute::i64(heads_per_pass(shape) as i64));
            }
            if m.attr(op, KEY_PARTS).is_none() {
                m.set_attr(op, KEY_PARTS, Attribute::i64(KEY_PARTS_ON_A_CPU as i64));
            }
        }
        for op in ops_named(&m, &["kernel.conv"]) {
            if m.attr(op, "strategy").is_none() {
                let strategy = conv_strategy(&m, op, !options.no_winograd);
                m.set_attr(op, "strategy", Attribute::String(strategy.name().into()));
            }
        }
        Ok(m)
    }
}

/// The most query heads of a group, up to [`PASS_OUTPUTS`] outputs, that one task takes through
/// the keys together. A decode step's attention reads the whole cache, from memory once the
/// weights have flushed it from cache: each key and value row read once for the group rather
/// than once per head (4x fewer reads for a Llama's groups of 4) took a decode step after 1024
/// tokens from 5.8 to 4.9 ms on AVX2, 6.4 to 5.4 ms on AVX-512, even where the heads'
/// accumulators spill to L1 (AVX2's sixteen registers).
pub fn heads_per_pass(shape: xcc_ir::dialects::kernel_attention::AttentionShape) -> usize {
    let group = (shape.q_heads / shape.kv_heads) as usize;
    // Counting down from the most heads that fit, not from the group: a group may be huge.
    let fit = PASS_OUTPUTS / (shape.v_head as usize).max(1);
    (1..=group.min(fit)).rev().find(|&p| group.is_multiple_of(p)).unwrap_or(1)
}

/// The output floats a pass over the keys accumulates: a Llama's four heads of 64.
const PASS_OUTPUTS: usize = 256;

/// The parts a decode step's keys may be split into on a CPU (`key_parts`): a Llama's 4 groups
/// of heads become up to 32 tasks over a long cache, enough for 8 threads and for the shrinking
/// chunks of 2 and 3 to end together, where 4 tasks keep 4 of 8 threads waiting (or 1 of 3 for
/// half the loop). The kernel uses fewer on short caches (a part has at least
/// `attention::PART_KEYS` keys).
const KEY_PARTS_ON_A_CPU: usize = 8;

fn choose_for_gpu(m: &mut Module, options: &LoweringOptions) {
    let Some(gpu) = options.target.info().gpu else { return };
    for op in ops_named(m, &["kernel.matmul", "kernel.conv"]) {
        if m.attr(op, "gpu_strategy").is_some() {
            continue;
        }
        let strategy = match m.ops[op].name.as_str() {
            "kernel.matmul" => super::gpu_strategy::choose_matmul(m, op, options.gpu_gemm, &gpu.kernels),
            _ => super::gpu_strategy::choose_conv(m, op, options.gpu_gemm, &gpu.kernels),
        };
        strategy.record(m, op);
    }
}

const BYTE_DOTS: &str = "byte_dots";
const PAIR_PRODUCTS: &str = "pair_products";

const BYTE_DOTS_NAMES: [(ByteDots, &str); 4] = [
    (ByteDots::None, "none"),
    (ByteDots::Vnni, "vnni"),
    (ByteDots::Neon { mixed: false }, "neon"),
    (ByteDots::Neon { mixed: true }, "neon_i8mm"),
];

fn byte_dots_name(dots: ByteDots) -> &'static str {
    BYTE_DOTS_NAMES.iter().find(|(d, _)| *d == dots).map_or("none", |(_, name)| name)
}

/// The byte dot products recorded on an integer matmul or convolution, or the target's where
/// none is (a module lowered without `kernel-choose-strategies`).
pub fn recorded_byte_dots(m: &Module, op: OpId, options: &LoweringOptions) -> Result<ByteDots, Diagnostic> {
    let Some(name) = m.attr(op, BYTE_DOTS).and_then(Attribute::as_str) else { return Ok(options.byte_dots()) };
    match BYTE_DOTS_NAMES.iter().find(|(_, n)| *n == name) {
        Some((dots, _)) => Ok(*dots),
        None => {
            let names: Vec<&str> = BYTE_DOTS_NAMES.iter().map(|(_, n)| *n).collect();
            Err(Diagnostic::new(m.ops[op].span, format!("byte_dots '{name}' is not one of {names:?}")))
        }
    }
}

/// Whether widened weights multiply as 16-bit pairs on CPUs with AVX2, as recorded, or as the
/// target's copies allow where nothing is.
pub fn recorded_pair_products(m: &Module, op: OpId, options: &LoweringOptions) -> bool {
    match m.attr(op, BYTE_DOTS) {
        Some(_) => m.attr(op, PAIR_PRODUCTS).is_some(),
        None => super::qgemm::some_copy_has_avx2(options),
    }
}

/// How a CPU computes a `kernel.conv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvStrategy {
    Winograd,
    Depthwise,
    Im2col,
    Direct,
}

impl ConvStrategy {
    const ALL: [ConvStrategy; 4] =
        [ConvStrategy::Winograd, ConvStrategy::Depthwise, ConvStrategy::Im2col, ConvStrategy::Direct];

    pub fn name(self) -> &'static str {
        match self {
            ConvStrategy::Winograd => "winograd",
            ConvStrategy::Depthwise => "depthwise",
            ConvStrategy::Im2col => "im2col",
            ConvStrategy::Direct => "direct",
        }
    }

    /// Whether the strategy computes this convolution (Winograd's weights are checked where
    /// they are transformed).
    fn applies(self, m: &Module, op: OpId) -> bool {
        match self {
            ConvStrategy::Winograd => Plane::of_conv(m, op).is_some(),
            ConvStrategy::Depthwise => writes_f32(m, op) && is_depthwise(m, op),
            ConvStrategy::Im2col => writes_f32(m, op),
            ConvStrategy::Direct => true,
        }
    }
}

/// The best strategy for a convolution: Winograd where it pays and its weights are constant
/// (`winograd` allowed), a depthwise kernel for one filter per channel, the GEMM for f32, and
/// the direct sums otherwise.
pub fn conv_strategy(m: &Module, op: OpId, winograd: bool) -> ConvStrategy {
    let packable = || super::pack::winograd_weights(m, op).is_some();
    let pays = || Plane::of_conv(m, op).is_some_and(|p| p.pays());
    if winograd && pays() && packable() {
        ConvStrategy::Winograd
    } else if ConvStrategy::Depthwise.applies(m, op) {
        ConvStrategy::Depthwise
    } else if ConvStrategy::Im2col.applies(m, op) {
        ConvStrategy::Im2col
    } else {
        ConvStrategy::Direct
    }
}

/// The strategy recorded on a CPU convolution, or the one [`conv_strategy`] picks without
/// Winograd where none is (a module lowered without `kernel-choose-strategies`).
pub fn recorded_conv_strategy(m: &Module, op: OpId) -> Result<ConvStrategy, Diagnostic> {
    let Some(name) = m.attr(op, "strategy").and_then(Attribute::as_str) else {
        return Ok(conv_strategy(m, op, false));
    };
    let error = |why: String| Err(Diagnostic::new(m.ops[op].span, why));
    let Some(strategy) = ConvStrategy::ALL.into_iter().find(|s| s.name() == name) else {
        let names: Vec<&str> = ConvStrategy::ALL.iter().map(|s| s.name()).collect();
        return error(format!("kernel.conv strategy '{name}' is not one of {names:?}"));
    };
    match strategy {
        ConvStrategy::Winograd if m.attr(op, "winograd").is_none() => {
            error("kernel.conv strategy 'winograd' needs its weights transformed by kernel-pack-weights".into())
        }
        s if !s.applies(m, op) => error(format!("kernel.conv strategy '{name}' does not compute this convolution")),
        s => Ok(s),
    }
}

/// The register tiles recorded on the op, or the target's.
pub fn register_tiles(m: &Module, op: OpId, target: &[LevelTiles]) -> Result<Vec<LevelTiles>, Diagnostic> {
    let Some(list) = m.attr(op, "register_tiles").and_then(Attribute::as_int_list) else {
        return Ok(target.to_vec());
    };
    let tiles: Vec<LevelTiles> = list
        .chunks(3)
        .filter(|t| t.len() == 3 && t.iter().all(|&x| (0..=64).contains(&x)))
        .map(|t| LevelTiles { min_level: t[0] as u32, rows: t[1] as usize, vectors: t[2] as usize })
        .filter(|t| t.rows > 0 && t.vectors > 0)
        .collect();
    if tiles.len() * 3 != list.len() || !tiles.iter().any(|t| t.min_level == 0) {
        return Err(Diagnostic::new(
            m.ops[op].span,
            "register_tiles takes [min_level, rows, vectors] triples (rows and vectors 1 to 64), one of them for level 0",
        ));
    }
    Ok(tiles)
}

/// The L2 cache bytes recorded on the op (at least 4 KiB), or the target's.
pub fn l2_cache_bytes(m: &Module, op: OpId, target: usize) -> usize {
    let recorded = m.attr(op, "l2_cache_bytes").and_then(Attribute::as_int);
    recorded.and_then(|b| usize::try_from(b).ok()).map_or(target, |b| b.max(4 << 10))
}

fn tiles_attribute(tiles: &[LevelTiles]) -> Attribute {
    let values = tiles.iter().flat_map(|t| [t.min_level as i128, t.rows as i128, t.vectors as i128]).collect();
    Attribute::DenseArray { elem: Type::i64(), values }
}

fn writes_f32(m: &Module, op: OpId) -> bool {
    let out = EpilogueOperands::of(m, op).output;
    m.ty(out).as_memref().is_some_and(|t| *t.elem == Type::f32())
}

/// A 2-d convolution with one filter per channel (`group` = input channels = output channels).
fn is_depthwise(m: &Module, op: OpId) -> bool {
    let ops = EpilogueOperands::of(m, op);
    let dims = |v| m.ty(v).as_memref().map(|t| t.shape.clone()).unwrap_or_default();
    let (x, w) = (dims(ops.a), dims(ops.b));
    let group = m.attr(op, "group").and_then(Attribute::as_int).unwrap_or(1);
    let channels = x.get(1).copied().flatten().map(i128::from);
    w.len() == 4 && group > 1 && channels == Some(group) && w[0].map(i128::from) == Some(group) && w[1] == Some(1)
}
