//! What the control-flow operators lowered at run time share: kernels emitted inside an `scf`
//! region (a Loop's `scf.for`, an If's `scf.if`) whose buffers must still be placed by the
//! workspace plan, which places only the function's top-level allocations.

use crate::emit::{Emitter, LoopBuilder};
use crate::graph::*;
use xcc_ir::{Module, OpId, ValueId};

/// Copies `src` into `dst` element by element, at `dst`'s leading indices `at` (a scan
/// output's row). A loop of loads and stores rather than a `kernel.copy`, which the workspace
/// plan could elide by placing `src` in `dst`: inside a loop, `dst` is still read after `src`
/// is written; and the two may have types that differ where their dims are equal only at run
/// time (an If's output and its branch's).
pub(crate) fn copy_elements(e: &mut Emitter, src: ValueId, dst: ValueId, at: &[ValueId]) {
    let dims = e.extents(src);
    e.loop_nest_over(&dims, &mut |e, ivs| {
        let v = e.load(src, ivs);
        let to: Vec<ValueId> = at.iter().chain(ivs).copied().collect();
        e.store(v, dst, &to);
    });
}

/// Moves the `memref.alloc`s inside `region_op` whose sizes are known outside it to just before
/// it, where the workspace plan places them, with the integer arithmetic inside that computes
/// their sizes from values outside (a dim's product, emitted where the operator asked for it).
/// An allocation sized by anything else inside is an error that says `what` ("a Loop body
/// makes a tensor whose size changes from one iteration to the next").
pub(crate) fn hoist_allocations(m: &mut Module, region_op: OpId, what: &str) -> OResult<()> {
    let mut allocs = Vec::new();
    m.walk_nested(region_op, &mut |op| {
        if m.ops[op].name == "memref.alloc" {
            allocs.push(op);
        }
    });
    for alloc in allocs {
        let mut moved = Vec::new();
        for v in m.ops[alloc].operands.clone() {
            if !size_arithmetic(m, v, region_op, &mut moved) {
                return err(what);
            }
        }
        moved.push(alloc);
        for op in moved {
            let (Some((from, at)), Some((to, before))) = (m.op_index(op), m.op_index(region_op)) else {
                return err("internal: an operation outside any block");
            };
            m.blocks[from].ops.remove(at);
            m.blocks[to].ops.insert(before, op);
            m.ops[op].parent = Some(to);
        }
    }
    Ok(())
}

/// Whether `v` is defined outside `region_op`, or inside it by integer arithmetic on such values;
/// adds the operations inside to `moved`, each after those it reads.
fn size_arithmetic(m: &Module, v: ValueId, region_op: OpId, moved: &mut Vec<OpId>) -> bool {
    if !defined_inside(m, v, region_op) {
        return true;
    }
    let Some(def) = m.defining_op(v) else { return false };
    if moved.contains(&def) {
        return true;
    }
    let pure = matches!(m.ops[def].name.as_str(), "arith.constant" | "arith.addi" | "arith.muli" | "arith.index_cast");
    if !pure || !m.ops[def].regions.is_empty() {
        return false;
    }
    for operand in m.ops[def].operands.clone() {
        if !size_arithmetic(m, operand, region_op, moved) {
            return false;
        }
    }
    moved.push(def);
    true
}

/// Whether value `v` is defined inside operation `op`'s regions.
fn defined_inside(m: &Module, v: ValueId, op: OpId) -> bool {
    let mut block = m.value_block(v);
    while let Some(b) = block {
        match m.parent_op_of_block(b) {
            Some(p) if p == op => return true,
            Some(p) => block = m.ops[p].parent,
            None => return false,
        }
    }
    false
}
