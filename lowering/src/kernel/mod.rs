//! Passes over the kernel level (see `xcc_ir::dialects::kernel`), in the default pipeline's order:
//!
//! - `kernel-fuse-epilogue` ([`fuse`]): an activation or residual add that follows a matmul or
//!   convolution joins its epilogue;
//! - `kernel-fuse-elementwise` ([`fuse`]): an elementwise `kernel.generic` whose only reader is
//!   another one over the same iteration space is computed inside it;
//! - `kernel-fuse-planes-epilogue` ([`fuse_planes`]): the elementwise generic that reads a
//!   quantized convolution's sums (its requantization) is computed in the convolution's stores;
//! - `kernel-choose-strategies` ([`strategy`]): the target's choice for each matmul and
//!   convolution (the GEMM's register tiles, the convolution's algorithm; on a GPU, a GEMM tiled
//!   through shared memory, sums split over K or a thread per few outputs: [`gpu_strategy`]),
//!   recorded on the op;
//! - `kernel-pack-weights` ([`pack`]): a matmul's constant B read transposed is stored transposed
//!   at compile time, so the micro-kernel reads its rows contiguously; a 3x3 convolution's
//!   constant weights are transformed for Winograd's F(2x2, 3x3) ([`winograd`]);
//! - `kernel-to-loops` ([`lower`], [`matmul`], [`conv`], [`depthwise`], [`winograd`], [`qgemm`], [`blockwise`], [`blockwise_rows`], [`attention`], [`reduce`],
//!   [`qconv`], [`interleave`]): the kernel
//!   operations become loops, parallel loops (`scf.parallel`) where iterations are independent,
//!   with the register-tiled GEMM micro-kernel behind matmul and convolution;
//! - `plan-workspace` ([`plan_workspace`]): the buffers a function allocates are placed in its
//!   caller's workspace, by liveness, so a run does no heap allocation; a buffer copied whole
//!   into a run of another as its last use lives there, and the copy is gone ([`elide_copies`]).
//!
//! Tiling, blocked weight layouts and layout choices are further passes at this level; the mapping of
//! parallel loops to threads or to a GPU grid is a pass over the loops `kernel-to-loops` marks.

pub mod attention;
pub mod blockwise;
pub mod blockwise_int8_rows;
pub mod blockwise_rows;
pub mod clamps;
pub mod conv;
pub mod depthwise;
pub mod elide_copies;
pub mod fuse;
pub mod fuse_planes;
pub mod gpu_gemm;
pub mod gpu_strategy;
pub mod interleave;
pub use xcc_ir::builder::lanes;
pub mod lower;
pub mod matmul;
pub mod pack;
pub mod plan_workspace;
pub mod qconv;
pub mod qgemm;
pub mod reduce;
pub mod round_trips;
pub mod strategy;
pub mod winograd;

use crate::builder::LoopBuilder;
use xcc_ir::{BlockId, Module, OpId, Span};

/// A [`LoopBuilder`] that writes into a detached block, whose operations then move in front of
/// the operation being lowered ([`Cursor::finish`]).
pub struct Cursor<'m> {
    pub m: &'m mut Module,
    pub block: BlockId,
    pub span: Span,
}

impl<'m> Cursor<'m> {
    pub fn new(m: &'m mut Module, span: Span) -> Cursor<'m> {
        let region = m.new_region();
        let block = m.append_block(region, span);
        Cursor { m, block, span }
    }

    /// Moves what was built in front of `anchor`.
    pub fn finish(self, anchor: OpId) {
        let scratch = self.block;
        self.m.splice_before(scratch, anchor);
    }
}

impl LoopBuilder for Cursor<'_> {
    fn module(&mut self) -> &mut Module {
        self.m
    }
    fn block(&self) -> BlockId {
        self.block
    }
    fn set_block(&mut self, block: BlockId) -> BlockId {
        std::mem::replace(&mut self.block, block)
    }
}

/// A 64-byte aligned buffer of `elements` of `elem` (placed in the workspace by
/// `plan-workspace`).
pub fn aligned_buffer(c: &mut Cursor, elem: xcc_ir::Type, elements: usize) -> xcc_ir::ValueId {
    let t = xcc_ir::types::MemRefType {
        shape: vec![Some(elements as u64)],
        elem: Box::new(elem),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    };
    let alloc = c.op(xcc_ir::OpSpec::new("memref.alloc", Span::UNKNOWN)
        .results([xcc_ir::Type::MemRef(t)])
        .attr("alignment", xcc_ir::Attribute::i64(64))
        .attr("operandSegmentSizes", xcc_ir::parser::forms::segment_sizes(&[0, 0])));
    c.m.result(alloc, 0)
}

/// Every operation of `m` named one of `names`, in pre-order.
pub(crate) fn ops_named(m: &Module, names: &[&str]) -> Vec<OpId> {
    let mut out = Vec::new();
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if names.contains(&m.ops[op].name.as_str()) {
                out.push(op);
            }
        });
    }
    out
}
