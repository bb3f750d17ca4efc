//! A transpose that interleaves a few planes (`out[.., w, q] = in[.., q, .., w]` for a small
//! innermost `q`): the layout the integer convolutions read their input in (quads of channels,
//! `[N, C/4, H * W, 4]`), and any channels-last move of few channels.
//!
//! As a plain `kernel.generic` its innermost loop runs over `q`, reading each element from
//! another plane: one byte moved per load and store. Here the loop over `w` goes in vectors:
//! the `k` planes' runs of `V` elements are loaded whole, interleaved by shuffles
//! (`punpck*` on x86) and stored as one run of `k V`; the last `w`s that fill no vector go one
//! element at a time.

use super::lower::affine_index;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::dialects::kernel::Generic;
use xcc_ir::types::Layout;
use xcc_ir::{Attribute, Module, OpId, OpSpec, Span, Type, ValueId};

/// The planes interleaved at most (the innermost loop's size).
const MAX_PLANES: u64 = 8;

/// Bits stored per vector step at least: two AVX2 registers.
const STORE_BITS: u64 = 512;

/// Bits per loaded run at least: one SSE register.
const LOAD_BITS: u64 = 128;

/// What an interleaving generic is: its loop sizes, the loop `w` that runs along the input's
/// rows, the planes `k` (the innermost loop's size), and the elements per loaded run.
struct Interleave {
    sizes: Vec<u64>,
    w: usize,
    planes: u64,
    lanes: u64,
    elem: Type,
}

/// Lowers `op` if it is an interleaving move; `false` leaves it to the generic lowering.
pub fn lower(m: &mut Module, op: OpId) -> bool {
    let Some(g) = Generic::of(m, op) else { return false };
    let Some(plan) = plan(m, &g) else { return false };
    emit(m, op, &g, &plan);
    true
}

fn plan(m: &Module, g: &Generic) -> Option<Interleave> {
    let (src, dst) = super::lower::moved(m, g)?;
    let (from, to) = (m.ty(src).as_memref()?, m.ty(dst).as_memref()?);
    if from.layout != Layout::Identity || to.layout != Layout::Identity || from.elem != to.elem {
        return None;
    }
    let bits = match &*from.elem {
        Type::Integer { width, .. } => u64::from(*width),
        Type::Float(kind) => u64::from(kind.width()),
        _ => return None,
    };
    let sizes = super::lower::static_loop_sizes(m, g)?;
    let n = sizes.len();
    let dims = |map: &AffineMap| {
        map.results
            .iter()
            .map(|e| match e {
                AffineExpr::Dim(d) => Some(*d as usize),
                _ => None,
            })
            .collect::<Option<Vec<usize>>>()
    };
    let (reads, writes) = (dims(&g.maps[0])?, dims(&g.maps[1])?);
    let last = n.checked_sub(1)?;
    let planes = sizes[last];
    // The output written in loop order, the input read along `w` in its rows, `q` elsewhere.
    let w = *reads.last()?;
    if writes != (0..n).collect::<Vec<_>>()
        || !(2..=MAX_PLANES).contains(&planes)
        || !planes.is_power_of_two()
        || w == last
        || reads.iter().filter(|&&d| d == w).count() != 1
        || !reads.contains(&last)
        || to.shape.iter().any(Option::is_none)
        || ![8, 16, 32].contains(&bits)
        || to.shape.get(last) != Some(&Some(planes))
        || (w + 1..last).any(|d| to.shape[d] != Some(1))
    {
        return None;
    }
    let lanes = (LOAD_BITS / bits).max(STORE_BITS / (planes * bits));
    (sizes[w] >= lanes).then(|| Interleave { sizes, w, planes, lanes, elem: (*from.elem).clone() })
}

fn emit(m: &mut Module, op: OpId, g: &Generic, plan: &Interleave) {
    let span = m.ops[op].span;
    let (src, dst) = (g.inputs[0], g.outputs[0]);
    let (read, write) = (g.maps[0].clone(), g.maps[1].clone());
    let n = plan.sizes.len();
    let (w, q) = (plan.w, n - 1);
    let outer: Vec<usize> = (0..n).filter(|&d| d != w && d != q).collect();
    // The output with its rows of `w` and `q` merged: each step stores one run of that row.
    let mut row_view = m.ty(dst).as_memref().expect("checked").clone();
    let run: u64 = row_view.shape[w..].iter().map(|d| d.expect("static")).product();
    row_view.shape.truncate(w);
    row_view.shape.push(Some(run));
    let rows = m.build_before(op, xcc_ir::dialects::memref::reinterpret_spec(dst, &row_view, span));
    let rows = m.result(rows, 0);
    let mut c = Cursor::new(m, span);
    let outer_sizes: Vec<Extent> = outer.iter().map(|&d| Extent::Fixed(plan.sizes[d] as usize)).collect();
    let whole = plan.sizes[w] / plan.lanes * plan.lanes;
    c.parallel_over(&outer_sizes, &mut |c, ovs| {
        let mut ivs = vec![ValueId::from_index(0); n];
        for (&d, &iv) in outer.iter().zip(ovs) {
            ivs[d] = iv;
        }
        let (zero, full, end) = (c.idx(0), c.idx(whole as i64), c.idx(plan.sizes[w] as i64));
        c.for_step(zero, full, plan.lanes as usize, |c, at| {
            ivs[w] = at;
            let runs: Vec<ValueId> = (0..plan.planes)
                .map(|p| {
                    ivs[q] = c.idx(p as i64);
                    let idx: Vec<ValueId> = read.results.iter().map(|e| affine_index(c, e, &ivs)).collect();
                    let vt = vector(&plan.elem, plan.lanes);
                    c.value_op("vector.load", &[&[src][..], &idx].concat(), vt)
                })
                .collect();
            let row = interleaved(c, &runs, &plan.elem);
            let mut idx: Vec<ValueId> = ivs[..w].to_vec();
            idx.push(c.affine(&[(at, plan.planes as i64)], 0));
            c.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([&[row, rows][..], &idx].concat()));
        });
        c.for_step(full, end, 1, |c, at| {
            ivs[w] = at;
            for p in 0..plan.planes {
                ivs[q] = c.idx(p as i64);
                let v = super::lower::read(c, src, &read, &ivs);
                super::lower::write(c, v, dst, &write, &ivs);
            }
        });
    });
    c.finish(op);
}

fn vector(elem: &Type, lanes: u64) -> Type {
    Type::Vector { shape: vec![lanes], elem: Box::new(elem.clone()) }
}

/// One vector holding element `j` of run `p` at lane `j * runs.len() + p`: the even runs
/// interleaved, the odd runs interleaved, then the two zipped.
fn interleaved(c: &mut Cursor, runs: &[ValueId], elem: &Type) -> ValueId {
    if runs.len() == 1 {
        return runs[0];
    }
    let pick = |parity: usize| runs.iter().copied().skip(parity).step_by(2).collect::<Vec<_>>();
    let (evens, odds) = (pick(0), pick(1));
    let (a, b) = (interleaved(c, &evens, elem), interleaved(c, &odds, elem));
    let lanes = match c.ty(a) {
        Type::Vector { shape, .. } => shape[0],
        _ => unreachable!("runs are vectors"),
    };
    let mask = Attribute::DenseArray {
        elem: Type::i64(),
        values: (0..lanes).flat_map(|l| [l, l + lanes]).map(i128::from).collect(),
    };
    c.value_attr("vector.shuffle", &[a, b], vector(elem, 2 * lanes), vec![("mask", mask)])
}
