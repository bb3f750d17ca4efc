//! `convert-scf-to-cf`: `scf.for`, `scf.if`, `scf.while` and `scf.parallel` become blocks and
//! branches. A
//! parallel loop runs serially here, as a nest of `scf.for` (the CPU thread and GPU grid
//! lowerings of the same loops come before this pass when they are wanted).
//!
//! ```text
//! scf.for:  pre: br ^header(lb, inits)
//!           ^header(iv, iters..): cond_br (iv < ub), ^body(iv, iters..), ^after(iters..)
//!           ^body..: ...; next = iv + step; br ^header(next, yielded..)
//!           ^after(results..): rest of the original block
//! scf.if:   pre: cond_br c, ^then, ^else (or ^after)
//!           then/else blocks end in br ^after(yielded..)
//! ```

use crate::builder::Builder;
use crate::kernel::ops_named;
use crate::pass::{LoweringOptions, Pass};
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type};

pub struct ScfToCf;

impl Pass for ScfToCf {
    fn name(&self) -> &'static str {
        "convert-scf-to-cf"
    }

    fn lowers(&self, op: &str) -> bool {
        matches!(
            op,
            "scf.for"
                | "scf.if"
                | "scf.while"
                | "scf.condition"
                | "scf.index_switch"
                | "scf.parallel"
                | "scf.yield"
                | "scf.reduce"
        )
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        // Each list is gathered once, outer operations first (an inner one stays valid when the
        // blocks around it move): searching the module again after every rewrite made this pass
        // quadratic in the number of loops.
        for op in ops_named(&m, &["scf.parallel"]) {
            parallel_to_nested_for(&mut m, op);
        }
        for op in ops_named(&m, &["scf.for", "scf.if", "scf.while", "scf.index_switch"]) {
            match m.ops[op].name.as_str() {
                "scf.for" => lower_for(&mut m, op),
                "scf.if" => lower_if(&mut m, op),
                "scf.while" => lower_while(&mut m, op),
                _ => lower_index_switch(&mut m, op),
            }
        }
        Ok(m)
    }
}

/// Splits the block at `op`, giving `op`'s results to the new block as arguments.
fn split_for_results(m: &mut Module, op: OpId) -> BlockId {
    let (block, idx) = m.op_index(op).expect("op in a block");
    let after = m.split_block_after(block, idx);
    let root = m.top_level_ancestor(op);
    for r in m.ops[op].results.clone() {
        let ty = m.ty(r).clone();
        let arg = m.add_block_arg(after, ty, Span::UNKNOWN);
        m.replace_uses_in(root, r, arg);
    }
    after
}

/// Replaces the `scf.yield` ending each of `blocks` with a branch to `target`.
fn yields_to_branch(
    m: &mut Module,
    blocks: &[BlockId],
    target: BlockId,
    mut extra: impl FnMut(&mut Module, OpId) -> Vec<xcc_ir::ValueId>,
) {
    for &b in blocks {
        let Some(t) = m.terminator(b) else { continue };
        if m.ops[t].name != "scf.yield" {
            continue;
        }
        let args = extra(m, t);
        let span = m.ops[t].span;
        m.erase_op(t);
        m.build(b, OpSpec::new("cf.br", span).successor(target, args));
    }
}

fn lower_for(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let (pre, _) = m.op_index(op).expect("op in a block");
    let after = split_for_results(m, op);
    let operands = m.ops[op].operands.clone();
    let (lb, ub, step, inits) = (operands[0], operands[1], operands[2], operands[3..].to_vec());
    let iv_ty = m.ty(lb).clone();
    let body_region = m.ops[op].regions[0];
    m.erase_op(op);
    let header = m.insert_block_after(pre);
    let iv = m.add_block_arg(header, iv_ty.clone(), span);
    let iters: Vec<_> = inits
        .iter()
        .map(|&v| {
            let t = m.ty(v).clone();
            m.add_block_arg(header, t, span)
        })
        .collect();
    m.build(pre, OpSpec::new("cf.br", span).successor(header, [lb].into_iter().chain(inits).collect()));
    let body_blocks = m.inline_region_after(body_region, header);
    let body_entry = body_blocks[0];
    let mut b = Builder::at_end(m, header, span);
    let cond = b.value_with("arith.cmpi", &[iv, ub], Type::i1(), vec![("predicate".into(), Attribute::i64(2))]);
    let spec = b
        .spec("cf.cond_br")
        .operands([cond])
        .successor(body_entry, [iv].into_iter().chain(iters.iter().copied()).collect())
        .successor(after, iters.clone());
    b.insert(spec);
    let body_iv = m.blocks[body_entry].args[0];
    yields_to_branch(m, &body_blocks, header, |m, y| {
        let mut b = Builder::before(m, y);
        let next = b.value("arith.addi", &[body_iv, step], iv_ty.clone());
        let mut args = vec![next];
        args.extend(m.ops[y].operands.iter().copied());
        args
    });
}

fn lower_if(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let (pre, _) = m.op_index(op).expect("op in a block");
    let after = split_for_results(m, op);
    let cond = m.ops[op].operands[0];
    let regions = m.ops[op].regions.clone();
    m.erase_op(op);
    let then_blocks = m.inline_region_after(regions[0], pre);
    let last_then = *then_blocks.last().unwrap_or(&pre);
    let else_blocks = if regions.len() > 1 && !m.regions[regions[1]].blocks.is_empty() {
        m.inline_region_after(regions[1], last_then)
    } else {
        Vec::new()
    };
    let then_target = then_blocks.first().copied().unwrap_or(after);
    let else_target = else_blocks.first().copied().unwrap_or(after);
    m.build(
        pre,
        OpSpec::new("cf.cond_br", span).operands([cond]).successor(then_target, vec![]).successor(else_target, vec![]),
    );
    yields_to_branch(m, &then_blocks, after, |m, y| m.ops[y].operands.clone());
    yields_to_branch(m, &else_blocks, after, |m, y| m.ops[y].operands.clone());
}

/// `scf.while`: the test's blocks, entered with the initial values, end in a conditional branch
/// to the body (`scf.condition`'s values) or out of the loop with the same values; the body's
/// yield branches back to the test.
fn lower_while(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let (pre, _) = m.op_index(op).expect("op in a block");
    let exit = split_for_results(m, op);
    let inits = m.ops[op].operands.clone();
    let regions = m.ops[op].regions.clone();
    m.erase_op(op);
    let test_blocks = m.inline_region_after(regions[0], pre);
    let last_test = *test_blocks.last().expect("a test block");
    let body_blocks = m.inline_region_after(regions[1], last_test);
    let (test_entry, body_entry) = (test_blocks[0], body_blocks[0]);
    m.build(pre, OpSpec::new("cf.br", span).successor(test_entry, inits));
    for &b in &test_blocks {
        let Some(t) = m.terminator(b) else { continue };
        if m.ops[t].name != "scf.condition" {
            continue;
        }
        let operands = m.ops[t].operands.clone();
        let span = m.ops[t].span;
        m.erase_op(t);
        let (cond, values) = (operands[0], operands[1..].to_vec());
        let spec = OpSpec::new("cf.cond_br", span)
            .operands([cond])
            .successor(body_entry, values.clone())
            .successor(exit, values);
        m.build(b, spec);
    }
    yields_to_branch(m, &body_blocks, test_entry, |m, y| m.ops[y].operands.clone());
}

/// `scf.index_switch`: a `cf.switch` on the index (as an i64) to the inlined case regions and
/// the default region, each of which branches to the rest of the block with its yielded values.
fn lower_index_switch(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let (pre, _) = m.op_index(op).expect("op in a block");
    let after = split_for_results(m, op);
    let index = m.ops[op].operands[0];
    let cases = m.attr(op, "cases").and_then(Attribute::as_int_list).unwrap_or_default();
    let regions = m.ops[op].regions.clone();
    m.erase_op(op);
    let mut last = pre;
    let mut entries = Vec::new();
    for &r in &regions {
        let blocks = m.inline_region_after(r, last);
        last = *blocks.last().expect("a region block");
        entries.push(blocks[0]);
        yields_to_branch(m, &blocks, after, |m, y| m.ops[y].operands.clone());
    }
    let mut b = Builder::at_end(m, pre, span);
    let flag = b.value("arith.index_cast", &[index], Type::i64());
    let mut spec = b
        .spec("cf.switch")
        .operands([flag])
        .attr("case_values", Attribute::DenseArray { elem: Type::i64(), values: cases });
    for &e in &entries {
        spec = spec.successor(e, vec![]);
    }
    b.insert(spec);
}

/// `scf.parallel (i, j) = (l0, l1) to (u0, u1) step (s0, s1) { body }` becomes
/// `scf.for i = l0 to u0 step s0 { scf.for j = l1 to u1 step s1 { body } }`: the innermost loop
/// takes the body (its `scf.reduce` becomes `scf.yield`), and each induction variable keeps its
/// value, now the argument of its loop's block.
fn parallel_to_nested_for(m: &mut Module, op: OpId) {
    let span = m.ops[op].span;
    let operands = m.ops[op].operands.clone();
    let n = operands.len() / 3;
    let body = m.ops[op].regions[0];
    let body_entry = m.regions[body].blocks[0];
    let ivs = m.blocks[body_entry].args.clone();
    if let Some(t) = m.terminator(body_entry) {
        if m.ops[t].name == "scf.reduce" {
            m.ops[t].name = "scf.yield".into();
        }
    }
    let (parent, index) = m.op_index(op).expect("op in a block");
    m.erase_op(op);
    let mut outer_block: Option<BlockId> = None;
    for (d, &iv) in ivs.iter().enumerate() {
        let (region, block) = if d + 1 == n {
            (body, body_entry)
        } else {
            let r = m.new_region();
            let b = m.append_block(r, span);
            (r, b)
        };
        m.blocks[block].args = vec![iv];
        m.values[iv].def = xcc_ir::module::ValueDef::BlockArg { block, index: 0 };
        let spec =
            OpSpec::new("scf.for", span).operands([operands[d], operands[n + d], operands[2 * n + d]]).region(region);
        let for_op = m.create_op(spec);
        match outer_block {
            None => {
                m.ops[for_op].parent = Some(parent);
                m.blocks[parent].ops.insert(index, for_op);
            }
            Some(b) => {
                m.append_op(b, for_op);
                m.build(b, OpSpec::new("scf.yield", span));
            }
        }
        outer_block = Some(block);
    }
}
