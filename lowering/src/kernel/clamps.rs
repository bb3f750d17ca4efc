//! Clamps of values that cannot be NaN, as compares and selects: `maximumf(x, c)` becomes
//! `select(x > c, x, c)` (and `minimumf` with `<`) where `c` is a constant and `x` is bounded
//! (a requantization: integer sums converted, scaled by constants, rounded). The two agree on
//! every such `x` (a zero `c` only where the select picks the zero they pick), and x86 computes
//! the select in one `vmaxps` where `maximumf`, which must return a NaN operand, takes a compare
//! and a blend besides.

use std::collections::HashMap;
use xcc_ir::{Attribute, BlockId, Module, OpId, OpSpec, Type, ValueId};

/// Rewrites, in `block`, each `maximumf` / `minimumf` of a bounded value and a constant.
pub fn fold(m: &mut Module, block: BlockId) {
    let ops = m.blocks[block].ops.clone();
    let mut replaced: HashMap<ValueId, ValueId> = HashMap::new();
    for op in ops {
        for v in m.ops[op].operands.iter_mut() {
            if let Some(&to) = replaced.get(v) {
                *v = to;
            }
        }
        let predicate = match m.ops[op].name.as_str() {
            "arith.maximumf" => "ogt",
            "arith.minimumf" => "olt",
            _ => continue,
        };
        let [a, b] = m.ops[op].operands[..] else { continue };
        let (x, c) = match (bound(m, a), constant(m, b), constant(m, a), bound(m, b)) {
            (Some(_), Some(c), _, _) if zero_agrees(predicate, c) => (a, b),
            (_, _, Some(c), Some(_)) if zero_agrees(predicate, c) => (b, a),
            _ => continue,
        };
        let ty = m.ty(x).clone();
        let select = as_select(m, op, (x, c), predicate, ty);
        replaced.insert(m.ops[op].results[0], select);
        // Its uses, all later in this block, are redirected as the walk reaches them.
        m.erase_op(op);
    }
}

/// Whether the select returns the zero `maximumf` / `minimumf` would where `x` and `c` are zeros
/// of opposite signs: it returns `c`, right for a maximum with `+0` or a minimum with `-0`.
fn zero_agrees(predicate: &str, c: f64) -> bool {
    c != 0.0 || (predicate == "ogt") == c.is_sign_positive()
}

/// `select(x PRED c, x, c)` before `op`.
fn as_select(m: &mut Module, op: OpId, (x, c): (ValueId, ValueId), predicate: &str, ty: Type) -> ValueId {
    let span = m.ops[op].span;
    let table = xcc_ir::dialects::arith::CMPF_PREDICATES;
    let pred = table.iter().position(|p| *p == predicate).expect("an arith.cmpf predicate") as i64;
    let compare =
        OpSpec::new("arith.cmpf", span).operands([x, c]).results([Type::i1()]).attr("predicate", Attribute::i64(pred));
    let compare = m.build_before(op, compare);
    let taken = m.result(compare, 0);
    let select = m.build_before(op, OpSpec::new("arith.select", span).operands([taken, x, c]).results([ty]));
    m.result(select, 0)
}

/// A finite float constant.
fn constant(m: &Module, v: ValueId) -> Option<f64> {
    let op = m.defining_op(v)?;
    match (m.ops[op].name.as_str(), m.attr(op, "value")?) {
        ("arith.constant", Attribute::Float { value, .. }) if value.is_finite() => Some(*value),
        _ => None,
    }
}

/// A bound on `|v|` below f32's largest finite value, where there is one (then `v` is never
/// NaN): integers converted, finite constants, and sums, differences, products, roundings,
/// minima and maxima of these.
fn bound(m: &Module, v: ValueId) -> Option<f64> {
    let op = m.defining_op(v)?;
    let operand = |k: usize| bound(m, m.ops[op].operands[k]);
    let both = || operand(0).zip(operand(1));
    let b = match m.ops[op].name.as_str() {
        "arith.constant" => constant(m, v).map(f64::abs),
        "arith.sitofp" | "arith.uitofp" => m.ty(m.ops[op].operands[0]).int_width().map(|w| 2f64.powi(w as i32)),
        "arith.addf" | "arith.subf" => both().map(|(a, b)| a + b),
        "arith.mulf" => both().map(|(a, b)| a * b),
        "math.roundeven" | "math.round" | "math.floor" | "math.ceil" | "math.trunc" => operand(0).map(|a| a + 1.0),
        "arith.maximumf" | "arith.minimumf" => both().map(|(a, b)| a.max(b)),
        "arith.select" => bound(m, m.ops[op].operands[1]).zip(bound(m, m.ops[op].operands[2])).map(|(a, b)| a.max(b)),
        _ => None,
    }?;
    (b < f64::from(f32::MAX) / 2.0).then_some(b)
}
