//! The copies `plan-workspace` makes free: a buffer copied whole into a contiguous run of
//! another, as its last use, can live in that run from the start. The copy then has nothing left
//! to do. This is how a Concat's inputs are computed in place, and how a reshape of a tensor
//! nothing reads afterwards costs nothing.
//!
//! A `memref.copy` from buffer A (all of it) into elements `[o, o + n)` of buffer B is elided
//! when:
//! - both are statically sized allocations that the workspace places, of one element type;
//! - the copy is A's last use, so nothing reads A's run of B as A after it;
//! - every use of B before the copy is a copy into B at a run that does not meet `[o, o + n)`
//!   (a Concat's other inputs), so while A is live nothing else reads or writes its run.
//!
//! B may itself be elided into a third buffer (a Concat of a Concat, a reshape of a Concat):
//! the buffers nest, and the outermost is placed for the union of their lifetimes.

use std::collections::HashMap;
use xcc_ir::types::{identity_strides, MemRefType};
use xcc_ir::{Module, OpId, ValueId};

/// A copy to elide: `child` lives in `parent` from `offset` bytes.
pub struct Slot {
    pub child: usize,
    pub parent: usize,
    pub offset: u64,
    pub copy: OpId,
}

/// A buffer the workspace places, as the analysis needs it.
pub struct Placed {
    pub value: ValueId,
    pub bytes: u64,
    pub elem_bytes: u64,
    pub last: usize,
    pub is_static: bool,
}

/// Where a value lies in a placed buffer: its index and the element offset of its first
/// element, for the buffer itself and the static contiguous `memref.reinterpret_cast`s of it.
fn place_in(m: &Module, v: ValueId, index: &HashMap<ValueId, usize>) -> Option<(usize, u64)> {
    if let Some(&k) = index.get(&v) {
        return Some((k, 0));
    }
    let def = m.defining_op(v)?;
    if m.ops[def].name != "memref.reinterpret_cast" || m.ops[def].operands.len() != 1 {
        return None;
    }
    let &k = index.get(&m.ops[def].operands[0])?;
    let mt = m.ty(v).as_memref()?;
    let (strides, offset) = mt.strides_and_offset()?;
    if strides != identity_strides(&mt.shape) {
        return None;
    }
    Some((k, u64::try_from(offset?).ok()?))
}

/// The static element count of a memref value.
fn elements(m: &Module, v: ValueId) -> Option<u64> {
    let mt: &MemRefType = m.ty(v).as_memref()?;
    mt.shape.iter().copied().product::<Option<u64>>()
}

/// A copy's source and destination runs: `(buffer, first element, elements)` each.
type Run = (usize, u64, u64);

fn copy_runs(m: &Module, copy: OpId, index: &HashMap<ValueId, usize>) -> Option<(Run, Run)> {
    let [src, dst] = m.ops[copy].operands[..] else { return None };
    let n = elements(m, src)?;
    let (a, a_off) = place_in(m, src, index)?;
    let (b, b_off) = place_in(m, dst, index)?;
    (elements(m, dst)? == n).then_some(((a, a_off, n), (b, b_off, n)))
}

/// The copies to elide, in program order. `top` is the body's operations; `uses[k]` the
/// operations that use buffer `k` (through views), with their positions in `top`.
pub fn copies_into_slots(m: &Module, top: &[OpId], buffers: &[Placed], uses: &[Vec<(usize, OpId)>]) -> Vec<Slot> {
    let index: HashMap<ValueId, usize> = buffers.iter().enumerate().map(|(k, b)| (b.value, k)).collect();
    let mut slots = Vec::new();
    for (p, &copy) in top.iter().enumerate() {
        if m.ops[copy].name != "memref.copy" {
            continue;
        }
        let Some(((a, a_off, n), (b, o, _))) = copy_runs(m, copy, &index) else { continue };
        let (src, dst) = (&buffers[a], &buffers[b]);
        let whole = a_off == 0 && n * src.elem_bytes == src.bytes;
        let fits = (o + n) * dst.elem_bytes <= dst.bytes;
        if a == b || !whole || !fits || !src.is_static || !dst.is_static || src.elem_bytes != dst.elem_bytes {
            continue;
        }
        if src.last != p || !only_other_runs_before(m, &uses[b], p, b, (o, o + n), &index) {
            continue;
        }
        slots.push(Slot { child: a, parent: b, offset: o * dst.elem_bytes, copy });
    }
    slots
}

/// Whether every use of buffer `b` before position `p` is a copy into `b` at a run that does
/// not meet `run`.
fn only_other_runs_before(
    m: &Module,
    uses: &[(usize, OpId)],
    p: usize,
    b: usize,
    run: (u64, u64),
    index: &HashMap<ValueId, usize>,
) -> bool {
    let into_other_run = |u: OpId| {
        let [src, dst] = m.ops[u].operands[..] else { return false };
        let (Some((d, o)), Some(n)) = (place_in(m, dst, index), elements(m, dst)) else { return false };
        d == b && underlying(m, src) != underlying(m, dst) && (o + n <= run.0 || o >= run.1)
    };
    uses.iter().filter(|&&(q, _)| q < p).all(|&(_, u)| m.ops[u].name == "memref.copy" && into_other_run(u))
}

/// The buffer a value is a view of (itself if it is none).
fn underlying(m: &Module, mut v: ValueId) -> ValueId {
    while let Some(def) = m.defining_op(v).filter(|&d| super::plan_workspace::VIEWS.contains(&m.ops[d].name.as_str())) {
        v = m.ops[def].operands[0];
    }
    v
}

/// For every buffer, the buffer it lives in at the outermost level and its byte offset there
/// (itself at 0 for a buffer no copy is elided from).
pub fn outermost(count: usize, slots: &[Slot]) -> Vec<(usize, u64)> {
    let parent: HashMap<usize, (usize, u64)> = slots.iter().map(|s| (s.child, (s.parent, s.offset))).collect();
    (0..count)
        .map(|k| {
            let (mut at, mut offset) = (k, 0);
            while let Some(&(p, o)) = parent.get(&at) {
                at = p;
                offset += o;
            }
            (at, offset)
        })
        .collect()
}
