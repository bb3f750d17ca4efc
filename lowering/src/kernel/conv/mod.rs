//! `kernel.conv` to loops. An f32 convolution is a GEMM per image and group,
//! `out[oc, p] = W[oc, k] * cols[k, p] + bias`, on the micro-kernel of [`super::matmul`]: a 1x1,
//! unit-stride, unpadded one reads its input directly; any other gathers its input windows into
//! im2col columns in a buffer of its own (`memref.alloc`, placed in the workspace by
//! `plan-workspace`), written directly in the micro-kernel's column panels
//! (`[ceil(P / NR), K, NR]`), so the GEMM streams each panel instead of reading K rows a whole
//! output plane apart. An output plane known only at run time, or a static one whose columns
//! would pass 1 MiB, is gathered a block of columns at a time into a buffer of static size
//! (which stays in L2 while its GEMM streams it); a static plane's blocks are dealt to slots of
//! a parallel loop, each gathering and multiplying its own. With a "same" padding (the output
//! has the input's extents past the first spatial dim, after splitting a strided input into its
//! phases) a tap row is the input shifted, and a panel of it one masked vector load
//! (`ShiftedPlane`); other gathers go row by row, a masked vector per panel. Other element
//! types run a direct convolution: a parallel loop over the output, whose taps outside the input
//! read a clamped index masked to zero. A depthwise f32 convolution runs directly
//! ([`super::depthwise`]).
//!
//! One file per strategy, applied as `kernel-choose-strategies` recorded it: `im2col.rs`,
//! `direct.rs`, Winograd's [`super::winograd`] and [`super::depthwise`] on a CPU;
//! `gpu_implicit_gemm.rs`, `gpu_split_k.rs` and `direct.rs` on a GPU. This file holds the window
//! they share and the dispatch.

mod direct;
mod gpu_implicit_gemm;
mod gpu_split_k;
mod im2col;

use direct::*;
use gpu_implicit_gemm::*;
use gpu_split_k::*;
use im2col::*;
pub use im2col::{plane_buffer, CpuGemm};

use super::gpu_strategy::GpuStrategy;
use super::lanes;
use super::matmul::{gemm, gemm_cols_at_run_time, Activation, BOperand, Bias, Mat, TileEpilogue, NR};
use super::strategy::ConvStrategy;
use super::Cursor;
use crate::builder::{fixed, Extent, LoopBuilder};
use xcc_ir::attributes::DenseValues;
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands};
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::LevelTiles;

/// A convolution's geometry; the spatial extents may be known only at run time.
struct Window {
    kernel: Vec<usize>,
    strides: Vec<usize>,
    dilations: Vec<usize>,
    /// Begin pads, then end pads.
    pads: Vec<usize>,
    /// The input's spatial extents.
    input: Vec<Extent>,
    out: Vec<Extent>,
    group: usize,
}

/// A buffer's dims; those known only at run time (the batch, spatial dims) as 0.
fn shape(m: &Module, v: ValueId) -> Vec<usize> {
    m.ty(v).as_memref().expect("verified memref").shape.iter().map(|d| d.unwrap_or(0) as usize).collect()
}

/// Which image of the batch a GEMM works on: one the compiler unrolls to, or a loop's index
/// (a batch known only at run time).
#[derive(Clone, Copy)]
enum Image {
    At(usize),
    Var(ValueId),
}

impl Image {
    /// `terms` plus this image times `stride`, as an index.
    fn offset(self, e: &mut Cursor, terms: &[(ValueId, Extent)], stride: Extent) -> ValueId {
        match (self, stride) {
            (Image::At(nb), Extent::Fixed(stride)) => e.affine_over(terms, (nb * stride) as i64),
            (Image::At(nb), stride) => {
                let nb = e.idx(nb as i64);
                e.affine_over(&[terms, &[(nb, stride)]].concat(), 0)
            }
            (Image::Var(nb), stride) => e.affine_over(&[terms, &[(nb, stride)]].concat(), 0),
        }
    }
}

fn window(m: &Module, op: OpId, w: &[usize], (input, out): (Vec<Extent>, Vec<Extent>)) -> Window {
    let list = |k: &str| -> Vec<usize> {
        m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default().iter().map(|&v| v as usize).collect()
    };
    Window {
        kernel: w[2..].to_vec(),
        strides: list("strides"),
        dilations: list("dilations"),
        pads: list("pads"),
        input,
        out,
        group: m.attr(op, "group").and_then(Attribute::as_int).unwrap_or(1) as usize,
    }
}

fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Row-major strides of extents, folded where they are static.
fn strides_over(c: &mut Cursor, shape: &[Extent]) -> Vec<Extent> {
    (0..shape.len()).map(|q| c.extent_product(&shape[q + 1..])).collect()
}

impl Window {
    fn is_pointwise(&self) -> bool {
        self.kernel.iter().all(|&k| k == 1) && self.strides.iter().all(|&s| s == 1) && self.pads.iter().all(|&p| p == 0)
    }

    /// The output positions per image and channel.
    fn positions(&self, c: &mut Cursor) -> Extent {
        c.extent_product(&self.out)
    }
}

/// Lowers the convolution on a CPU, or on a GPU by `gpu`, the strategy recorded on it
/// ([`super::gpu_strategy::recorded_conv`]).
pub fn lower(m: &mut Module, op: OpId, gpu: Option<GpuStrategy>, cpu: &CpuGemm) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let ops = EpilogueOperands::of(m, op);
    let ep = Epilogue::of(m, op);
    // The verifier takes static channels and weights too; this keeps an unverified module
    // (`--no-verify-each`) from being lowered with a wrong size.
    let channels = |v: ValueId| m.ty(v).as_memref().is_some_and(|t| t.shape.get(1).is_some_and(Option::is_some));
    let weights = m.ty(ops.b).as_memref().is_some_and(|t| t.shape.iter().all(Option::is_some));
    if !channels(ops.a) || !channels(ops.output) || !weights {
        return Err(Diagnostic::new(span, "kernel.conv takes its channels and weights at compile time"));
    }
    let (x, w) = (shape(m, ops.a), shape(m, ops.b));
    let elem = (*m.ty(ops.output).as_memref().expect("verified").elem).clone();
    let gemm = match gpu {
        Some(GpuStrategy::TiledGemm { tensor_cores }) => super::gpu_strategy::conv_gemm(m, op, tensor_cores),
        _ => None,
    };
    let mut c = Cursor::new(m, span);
    let batch = c.extent_of(ops.a, 0);
    if c.m.attr(op, "winograd").is_some() {
        super::winograd::lower(&mut c, op, batch, &cpu.tiles);
        c.finish(op);
        return Ok(());
    }
    let spatial = |c: &mut Cursor, v: ValueId| (2..x.len()).map(|k| c.extent_of(v, k)).collect::<Vec<_>>();
    let extents = (spatial(&mut c, ops.a), spatial(&mut c, ops.output));
    let win = window(c.m, op, &w, extents);
    if let Some(strategy) = gpu {
        let mut outs = vec![batch];
        outs.extend([Extent::Fixed(w[0])]);
        outs.extend(&win.out);
        let outs: Option<Vec<usize>> = outs.iter().map(|e| e.fixed()).collect();
        // The strategies that need static sizes were checked to have them.
        match (strategy, &outs, &gemm) {
            (GpuStrategy::TiledGemm { .. }, Some(outs), Some(gemm)) => {
                implicit_gemm(&mut c, &ops, &ep, (w[0], w[1]), &win, outs, gemm)
            }
            (GpuStrategy::SplitK { splits }, Some(outs), _) => {
                direct_split(&mut c, &ops, &ep, (w[0], w[1]), &win, outs, splits)
            }
            (GpuStrategy::Direct { thread_tile }, _, _) => {
                direct::direct(&mut c, &ops, &ep, (batch, &x, &w), &win, &elem, thread_tile)
            }
            _ => unreachable!("recorded_conv checks the strategy's sizes"),
        }
    } else {
        match super::strategy::recorded_conv_strategy(c.m, op)? {
            ConvStrategy::Depthwise => depthwise(&mut c, (&ops, &ep), batch, (&x, &w), &win),
            ConvStrategy::Im2col => conv_gemm(&mut c, &ops, &ep, (batch, &x, &w), &win, cpu),
            ConvStrategy::Direct | ConvStrategy::Winograd => {
                direct::direct(&mut c, &ops, &ep, (batch, &x, &w), &win, &elem, 1)
            }
        }
    }
    c.finish(op);
    Ok(())
}

/// The depthwise kernel on the convolution's window.
fn depthwise(
    c: &mut Cursor,
    (ops, ep): (&EpilogueOperands, &Epilogue),
    batch: Extent,
    (x, _): (&[usize], &[usize]),
    win: &Window,
) {
    let axis = |q: usize| super::depthwise::Axis {
        kernel: win.kernel[q],
        stride: win.strides[q],
        dilation: win.dilations[q],
        pad: win.pads[q],
        input: win.input[q],
        output: win.out[q],
    };
    super::depthwise::lower(c, ops, ep, [batch, Extent::Fixed(x[1])], axis(0), axis(1));
}
