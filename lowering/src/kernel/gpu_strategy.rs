//! How a GPU computes a `kernel.matmul` or `kernel.conv`, chosen by `kernel-choose-strategies`
//! ([`super::strategy`]) from the op's types and recorded on it; `kernel-to-loops` applies what is
//! recorded ([`recorded_matmul`], [`recorded_conv`]). Recorded as
//!
//! - `gpu_strategy = "tiled_gemm"`: a GEMM tiled through shared memory ([`super::gpu_gemm`]; a
//!   convolution as an implicit GEMM over its windows), `tensor_cores` on it for TF32 products
//!   (`--tf32`). For f32 of static sizes at the function's top (not inside a loop a kernel would
//!   run as one thread), chosen where the GEMM has enough tiles to fill a GPU
//!   ([`super::gpu_gemm::Gemm::worth_tiling`]), or everywhere with `--gpu-gemm=tiled`;
//! - `gpu_strategy = "split_k"`, `splits = S`: a thread per output and per run of K (input
//!   channels), its partial sums added by a second loop: for f32 of static sizes whose outputs are
//!   too few to fill a GPU ([`splits`]);
//! - `gpu_strategy = "direct"`, `thread_tile = T`: a thread per T outputs (rows of a matmul,
//!   output channels of a convolution), T > 1 once the outputs are many.
//!
//! The sizes at which the choice changes are the target's ([`GpuKernelChoice`]).

use super::gpu_gemm::{in_function_body, Gemm};
use crate::pass::GpuGemm;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, Type};
use xcc_targets::GpuKernelChoice;

/// How a GPU computes one matmul or convolution (see the module's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuStrategy {
    TiledGemm { tensor_cores: bool },
    SplitK { splits: usize },
    Direct { thread_tile: usize },
}

const STRATEGY: &str = "gpu_strategy";

impl GpuStrategy {
    fn name(self) -> &'static str {
        match self {
            GpuStrategy::TiledGemm { .. } => "tiled_gemm",
            GpuStrategy::SplitK { .. } => "split_k",
            GpuStrategy::Direct { .. } => "direct",
        }
    }

    /// Sets the op's attributes to this strategy.
    pub fn record(self, m: &mut Module, op: OpId) {
        m.set_attr(op, STRATEGY, Attribute::String(self.name().into()));
        match self {
            GpuStrategy::TiledGemm { tensor_cores: true } => m.set_attr(op, "tensor_cores", Attribute::Unit),
            GpuStrategy::TiledGemm { tensor_cores: false } => {}
            GpuStrategy::SplitK { splits } => m.set_attr(op, "splits", Attribute::i64(splits as i64)),
            GpuStrategy::Direct { thread_tile } => m.set_attr(op, "thread_tile", Attribute::i64(thread_tile as i64)),
        }
    }

    /// The strategy the op's attributes record, if any.
    fn read(m: &Module, op: OpId) -> Option<Result<GpuStrategy, Diagnostic>> {
        let name = m.attr(op, STRATEGY)?.as_str().unwrap_or("");
        let count = |key: &str| m.attr(op, key).and_then(Attribute::as_int).filter(|&n| n > 0).map(|n| n as usize);
        let error = |why: String| Some(Err(Diagnostic::new(m.ops[op].span, why)));
        let of = m.ops[op].name.as_str();
        Some(Ok(match name {
            "tiled_gemm" => GpuStrategy::TiledGemm { tensor_cores: m.attr(op, "tensor_cores").is_some() },
            "split_k" => match count("splits") {
                Some(splits) => GpuStrategy::SplitK { splits },
                None => return error(format!("{of} gpu_strategy 'split_k' needs a positive 'splits'")),
            },
            "direct" => GpuStrategy::Direct { thread_tile: count("thread_tile").unwrap_or(1) },
            other => {
                return error(format!("{of} gpu_strategy '{other}' is not one of tiled_gemm, split_k, direct"));
            }
        }))
    }
}

/// A buffer's dims, `None` for one known only at run time.
fn dims(m: &Module, v: xcc_ir::ValueId) -> Vec<Option<usize>> {
    m.ty(v).as_memref().map_or(Vec::new(), |t| t.shape.iter().map(|d| d.map(|d| d as usize)).collect())
}

fn writes_f32(m: &Module, op: OpId) -> bool {
    let output = xcc_ir::dialects::kernel::EpilogueOperands::of(m, op).output;
    m.ty(output).as_memref().is_some_and(|t| *t.elem == Type::f32())
}

/// A matmul's sizes: (batch dims, M, N, K), each `None` where known only at run time.
struct MatmulSizes {
    batch: Vec<Option<usize>>,
    m: Option<usize>,
    n: Option<usize>,
    k: Option<usize>,
    transposed: (bool, bool),
}

impl MatmulSizes {
    fn of(m: &Module, op: OpId) -> MatmulSizes {
        let ops = xcc_ir::dialects::kernel::EpilogueOperands::of(m, op);
        let (a, out) = (dims(m, ops.a), dims(m, ops.output));
        let transposed = (m.attr(op, "transpose_a").is_some(), m.attr(op, "transpose_b").is_some());
        let r = out.len().saturating_sub(2);
        let k = if transposed.0 { a.len().checked_sub(2) } else { a.len().checked_sub(1) };
        MatmulSizes {
            batch: out[..r].to_vec(),
            m: out.get(r).copied().flatten(),
            n: out.get(r + 1).copied().flatten(),
            k: k.and_then(|i| a[i]),
            transposed,
        }
    }

    /// The outputs, counting a run-time dim as 1 (as the direct lowering sizes its tiles).
    fn outputs(&self) -> usize {
        [self.m, self.n].iter().chain(&self.batch).map(|d| d.unwrap_or(1)).product()
    }

    fn gemm(&self, tensor_cores: bool) -> Option<Gemm> {
        let batch = self.batch.iter().copied().collect::<Option<Vec<usize>>>()?;
        let (a_along_k, b_along_n) = (!self.transposed.0, !self.transposed.1);
        Some(Gemm { batch, m: self.m?, n: self.n?, k: self.k?, a_along_k, b_along_n, tensor_cores })
    }
}

/// The tiled GEMM of a GPU matmul, where it applies: f32 of static sizes, at the function's top.
pub fn matmul_gemm(m: &Module, op: OpId, tensor_cores: bool) -> Option<Gemm> {
    let gemm = MatmulSizes::of(m, op).gemm(tensor_cores)?;
    (writes_f32(m, op) && in_function_body(m, op)).then_some(gemm)
}

/// How many runs of K (input channels per group) a GPU kernel of `outputs` outputs splits its
/// sums into: a divisor of `k`, 1 when the outputs are enough or a run would be shorter than 16.
pub fn splits(outputs: usize, k: usize, choice: &GpuKernelChoice) -> usize {
    let want = choice.split_threads.div_ceil(outputs.max(1));
    (1..=want.min(k / 16).max(1)).rev().find(|s| k.is_multiple_of(*s)).unwrap_or(1)
}

/// The best strategy for a GPU matmul under `tiling` (`--gpu-gemm`, `--tf32`).
pub fn choose_matmul(m: &Module, op: OpId, tiling: GpuGemm, choice: &GpuKernelChoice) -> GpuStrategy {
    let tensor_cores = tiling.tensor_cores;
    if let (Some(forced), Some(gemm)) = (tiling.forced(), matmul_gemm(m, op, tensor_cores)) {
        if gemm.worth_tiling(forced, choice.min_gemm_tiles) {
            return GpuStrategy::TiledGemm { tensor_cores };
        }
    }
    let sizes = MatmulSizes::of(m, op);
    let outputs = sizes.outputs();
    let tile = choice.thread_tile;
    if sizes.m.is_some_and(|rows| rows.is_multiple_of(tile)) && outputs >= choice.thread_tile_min_outputs {
        return GpuStrategy::Direct { thread_tile: tile };
    }
    let all_fixed = sizes.gemm(false).is_some();
    match sizes.k {
        Some(k) if all_fixed && writes_f32(m, op) => match splits(outputs, k, choice) {
            1 => GpuStrategy::Direct { thread_tile: 1 },
            splits => GpuStrategy::SplitK { splits },
        },
        _ => GpuStrategy::Direct { thread_tile: 1 },
    }
}

/// The strategy recorded on a GPU matmul (an error where it cannot compute it), or the one
/// [`choose_matmul`] picks where none is (a module lowered without `kernel-choose-strategies`).
pub fn recorded_matmul(
    m: &Module,
    op: OpId,
    tiling: GpuGemm,
    choice: &GpuKernelChoice,
) -> Result<GpuStrategy, Diagnostic> {
    let Some(recorded) = GpuStrategy::read(m, op) else { return Ok(choose_matmul(m, op, tiling, choice)) };
    let strategy = recorded?;
    let sizes = MatmulSizes::of(m, op);
    let applies = match strategy {
        GpuStrategy::TiledGemm { tensor_cores } => matmul_gemm(m, op, tensor_cores).is_some(),
        GpuStrategy::SplitK { splits } => {
            writes_f32(m, op) && sizes.gemm(false).is_some() && sizes.k.is_some_and(|k| k.is_multiple_of(splits))
        }
        GpuStrategy::Direct { thread_tile: 1 } => true,
        GpuStrategy::Direct { thread_tile } => sizes.m.is_some_and(|rows| rows.is_multiple_of(thread_tile)),
    };
    checked(m, op, strategy, applies)
}

fn checked(m: &Module, op: OpId, strategy: GpuStrategy, applies: bool) -> Result<GpuStrategy, Diagnostic> {
    if applies {
        return Ok(strategy);
    }
    let why = format!("{} gpu_strategy {strategy:?} does not compute this operation", m.ops[op].name);
    Err(Diagnostic::new(m.ops[op].span, why))
}

/// A convolution's sizes from its types: the output's dims (batch, channels, positions), `None`
/// where one is known only at run time; the weights' dims; the group count.
struct ConvSizes {
    outs: Option<Vec<usize>>,
    weights: Vec<usize>,
    group: usize,
}

impl ConvSizes {
    fn of(m: &Module, op: OpId) -> ConvSizes {
        let ops = xcc_ir::dialects::kernel::EpilogueOperands::of(m, op);
        let (x, w, out) = (dims(m, ops.a), dims(m, ops.b), dims(m, ops.output));
        let mut outs = vec![x.first().copied().flatten()];
        outs.push(w.first().copied().flatten());
        outs.extend(out.iter().skip(2));
        let group = m.attr(op, "group").and_then(Attribute::as_int).unwrap_or(1).max(1) as usize;
        ConvSizes { outs: outs.into_iter().collect(), weights: w.iter().map(|d| d.unwrap_or(0)).collect(), group }
    }

    fn outputs(&self) -> usize {
        self.outs.as_ref().map_or(usize::MAX, |o| o.iter().product())
    }

    /// Input channels per group.
    fn icg(&self) -> usize {
        self.weights.get(1).copied().unwrap_or(0)
    }
}

/// The implicit GEMM of a GPU convolution, where it applies: f32 of static sizes, at the
/// function's top. Per group, the weights (output channels by input channels x taps) times the
/// windows (input channels x taps by images x positions).
pub fn conv_gemm(m: &Module, op: OpId, tensor_cores: bool) -> Option<Gemm> {
    let sizes = ConvSizes::of(m, op);
    let outs = sizes.outs.as_ref()?;
    let (oc_n, group) = (sizes.weights[0], sizes.group);
    let gemm = Gemm {
        batch: vec![group],
        m: oc_n / group,
        n: outs[0] * outs[2..].iter().product::<usize>(),
        k: sizes.icg() * sizes.weights[2..].iter().product::<usize>(),
        a_along_k: true,
        b_along_n: true,
        tensor_cores,
    };
    (writes_f32(m, op) && in_function_body(m, op)).then_some(gemm)
}

/// The best strategy for a GPU convolution under `tiling`.
pub fn choose_conv(m: &Module, op: OpId, tiling: GpuGemm, choice: &GpuKernelChoice) -> GpuStrategy {
    let tensor_cores = tiling.tensor_cores;
    if let (Some(forced), Some(gemm)) = (tiling.forced(), conv_gemm(m, op, tensor_cores)) {
        if gemm.worth_tiling(forced, choice.min_gemm_tiles) {
            return GpuStrategy::TiledGemm { tensor_cores };
        }
    }
    let sizes = ConvSizes::of(m, op);
    let splits = splits(sizes.outputs(), sizes.icg(), choice);
    if sizes.outs.is_some() && splits > 1 && writes_f32(m, op) {
        return GpuStrategy::SplitK { splits };
    }
    let ocg = sizes.weights[0] / sizes.group;
    // The largest of the target's tile and its halves that divides a group's channels.
    let tiles = std::iter::successors(Some(choice.thread_tile), |t| (*t > 1).then_some(t / 2));
    let thread_tile = match sizes.outputs() >= choice.thread_tile_min_outputs {
        true => tiles.into_iter().find(|t| ocg.is_multiple_of(*t)).unwrap_or(1),
        false => 1,
    };
    GpuStrategy::Direct { thread_tile }
}

/// The strategy recorded on a GPU convolution (an error where it cannot compute it), or the one
/// [`choose_conv`] picks where none is.
pub fn recorded_conv(
    m: &Module,
    op: OpId,
    tiling: GpuGemm,
    choice: &GpuKernelChoice,
) -> Result<GpuStrategy, Diagnostic> {
    let Some(recorded) = GpuStrategy::read(m, op) else { return Ok(choose_conv(m, op, tiling, choice)) };
    let strategy = recorded?;
    let sizes = ConvSizes::of(m, op);
    let applies = match strategy {
        GpuStrategy::TiledGemm { tensor_cores } => conv_gemm(m, op, tensor_cores).is_some(),
        GpuStrategy::SplitK { splits } => {
            sizes.outs.is_some() && writes_f32(m, op) && sizes.icg().is_multiple_of(splits)
        }
        GpuStrategy::Direct { thread_tile } => (sizes.weights[0] / sizes.group).is_multiple_of(thread_tile),
    };
    checked(m, op, strategy, applies)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NVIDIA: GpuKernelChoice = xcc_targets::nvptx::GPU.kernels;

    /// The first kernel op of a module holding one function of `body`'s operations over `args`.
    fn module(args: &str, body: &str) -> (Module, OpId) {
        let text = format!("func.func @f({args}) {{\n{body}\n  return\n}}\n");
        let m = xcc_ir::parser::parse_module(&text).expect("parses");
        let op = super::super::ops_named(&m, &["kernel.matmul", "kernel.conv"])[0];
        (m, op)
    }

    const MATMUL_ARGS: &str = "%a: memref<8x4096xf32>, %b: memref<4096x8xf32>, %c: memref<8x8xf32>";

    fn matmul(attrs: &str) -> (Module, OpId) {
        let op = format!(
            "  kernel.matmul ins(%a, %b : memref<8x4096xf32>, memref<4096x8xf32>) outs(%c : memref<8x8xf32>) {attrs}"
        );
        module(MATMUL_ARGS, &op)
    }

    #[test]
    fn a_recorded_strategy_is_applied_in_place_of_the_choice() {
        let (m, op) = matmul("");
        assert_eq!(choose_matmul(&m, op, GpuGemm::default(), &NVIDIA), GpuStrategy::SplitK { splits: 256 });
        let (m, op) = matmul("{gpu_strategy = \"direct\", thread_tile = 2 : i64}");
        assert_eq!(recorded_matmul(&m, op, GpuGemm::default(), &NVIDIA), Ok(GpuStrategy::Direct { thread_tile: 2 }));
        let (m, op) = matmul("{gpu_strategy = \"tiled_gemm\"}");
        assert_eq!(
            recorded_matmul(&m, op, GpuGemm::default(), &NVIDIA),
            Ok(GpuStrategy::TiledGemm { tensor_cores: false })
        );
    }

    #[test]
    fn a_recorded_strategy_that_cannot_compute_the_op_is_an_error() {
        for attrs in [
            "{gpu_strategy = \"split_k\", splits = 3 : i64}",
            "{gpu_strategy = \"split_k\"}",
            "{gpu_strategy = \"direct\", thread_tile = 3 : i64}",
            "{gpu_strategy = \"winograd\"}",
        ] {
            let (m, op) = matmul(attrs);
            assert!(recorded_matmul(&m, op, GpuGemm::default(), &NVIDIA).is_err(), "{attrs}");
        }
        let args = "%x: memref<?x8x4x4xf32>, %w: memref<8x8x1x1xf32>, %y: memref<?x8x4x4xf32>";
        let conv =
            "  kernel.conv ins(%x, %w : memref<?x8x4x4xf32>, memref<8x8x1x1xf32>) outs(%y : memref<?x8x4x4xf32>) \
                    {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, \
                    group = 1 : i64, gpu_strategy = \"tiled_gemm\"}";
        let (m, op) = module(args, conv);
        let error = recorded_conv(&m, op, GpuGemm::default(), &NVIDIA).expect_err("a batch known only at run time");
        assert!(error.message.contains("does not compute"), "{}", error.message);
    }
}
