//! CacheWrite (xcc's own domain, written by the GroupQueryAttention expansion): a KV cache with
//! new rows written into it. Inputs: `past` `[batch, heads, past, head]`, `new`
//! `[batch, heads, seq, head]`, `start` (int64 `[batch]`: where row `b`'s new tokens go) and
//! `length` (an int64 scalar computed from dims: the present's length, at least the past's).
//! The output `present` `[batch, heads, length, head]` is the past (zeros after its end) with
//! `new[b, :, s]` at `start[b] + s`.
//!
//! Where the caller gives the same buffer as past and present (ONNX Runtime GenAI's shared
//! buffer: a cache of the maximum length that each step appends to), the run checks that the
//! two have one layout before any kernel runs (`length == past`, else `XCC_ERROR_BAD_DIM`:
//! nothing is read or written; the emitter's `shared_layouts`, and again here) and writes only
//! the new rows:
//! a decode step then moves one row per head, not the whole cache. A `start` that puts new rows
//! outside the present, or after the end of the past, makes the run return
//! `XCC_ERROR_INDEX_OUT_OF_RANGE` before it writes them.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::nn::rows::copy_row;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::shapes::{plainer, same_dim_in};
use crate::ops::tensor::dims_input;
use xcc_runtime_c::status;

pub struct CacheWrite;

fn length(node: &Node, g: &Graph) -> OResult<Dim> {
    match dims_input(g, node, 3, "CacheWrite's length")?.as_deref() {
        Some([l]) => Ok(l.clone()),
        _ => err("CacheWrite's length must be one value computed from dims"),
    }
}

impl OnnxOp for CacheWrite {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (past, new) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let (p, n) = (past.dims(), new.dims());
        let fits = p.len() == 4 && n.len() == 4 && {
            let mut same = true;
            for k in [0, 1, 3] {
                same = same && same_dim_in(g, &p[k], &n[k])?;
            }
            same
        };
        if !fits {
            return err(format!(
                "CacheWrite: past {} and new {} must be [batch, heads, rows, head]",
                past.describe(),
                new.describe()
            ));
        }
        // Of two dims checked equal, a number (the weights' head size, not a dim_param's).
        let dim = |k: usize| plainer(&p[k], &n[k]).clone();
        Ok(vec![TensorType::with_dims(past.dtype, vec![dim(0), dim(1), length(node, g)?, dim(3)])])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let (past_t, new_t) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let dtype = past_t.dtype;
        let p = e.dim_extents(&past_t.dims());
        let n = e.dim_extents(&new_t.dims());
        let length = e.dim_extent(&length(node, g)?);
        let (past, new, start, out) =
            (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.inputs[2])?, e.buf(&node.outputs[0])?);
        // One buffer for past and present: the same layout, or nothing is right.
        let (pa, oa) = (e.address_of(past), e.address_of(out));
        let shared = e.cmpi("eq", pa, oa);
        let (past_len, present_len) = (e.extent(p[2]), e.extent(length));
        let longer = e.cmpi("ne", past_len, present_len);
        let misfit = e.value_op("arith.andi", &[shared, longer], xcc_ir::Type::i1());
        e.fail_run_if(misfit, status::BAD_DIM);
        // The rows that stay: the past's, then zeros, unless past and present are one buffer
        // (tested outside the loop: a decode step starts no parallel loop for it).
        let apart = not(e, shared);
        e.if_then(apart, |e| {
            e.parallel_over(&[p[0], p[1], length], &mut |e, ivs| {
                let in_past = e.cmpi("ult", ivs[2], past_len);
                e.if_else(
                    in_past,
                    vec![],
                    |e| {
                        copy_row(e, (past, &ivs[..3]), (out, &ivs[..3]), p[3]);
                        vec![]
                    },
                    |e| {
                        let zero = e.const_of(0.0, dtype);
                        let zero = e.narrow_to(zero, &dtype.ir_type());
                        e.loop_nest_over(&[p[3]], &mut |e, d| e.store(zero, out, &[ivs[0], ivs[1], ivs[2], d[0]]));
                        vec![]
                    },
                );
            });
        });
        // The new rows, each start checked: at most the past's end, and every row inside.
        e.loop_nest_over(&[n[0]], &mut |e, b| {
            let raw = e.load(start, &[b[0]]);
            let raw = e.value_op("arith.index_cast", &[raw], xcc_ir::Type::Index);
            let zero = e.idx(0);
            let negative = e.cmpi("slt", raw, zero);
            let after_past = e.cmpi("sgt", raw, past_len);
            let seq = e.extent(n[2]);
            let end = e.value_op("arith.addi", &[raw, seq], xcc_ir::Type::Index);
            let past_end = e.cmpi("sgt", end, present_len);
            let bad = e.value_op("arith.ori", &[negative, after_past], xcc_ir::Type::i1());
            let bad = e.value_op("arith.ori", &[bad, past_end], xcc_ir::Type::i1());
            e.fail_run_if(bad, status::INDEX_OUT_OF_RANGE);
            // Nor into one buffer of another layout, whose rows are not the present's.
            let bad = e.value_op("arith.ori", &[bad, misfit], xcc_ir::Type::i1());
            let good = not(e, bad);
            e.if_then(good, |e| {
                e.loop_nest_over(&[n[1], n[2]], &mut |e, ivs| {
                    let row = e.value_op("arith.addi", &[raw, ivs[1]], xcc_ir::Type::Index);
                    copy_row(e, (new, &[b[0], ivs[0], ivs[1]]), (out, &[b[0], ivs[0], row]), n[3]);
                });
            });
        });
        Ok(())
    }
}

fn not(e: &mut Emitter, v: xcc_ir::ValueId) -> xcc_ir::ValueId {
    let t = e.const_int(1, xcc_ir::Type::i1());
    e.value_op("arith.xori", &[v, t], xcc_ir::Type::i1())
}
