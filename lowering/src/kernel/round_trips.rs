//! Float to integer to float round trips that change nothing, removed from a block: a
//! requantization followed by the next operator's dequantization (`uitofp(fptoui(x))`, the
//! "fake quantization" of a QDQ model) where `x` is already a whole number inside the integer
//! type's range (rounded, then clamped to `[0, 255]`). The conversions cost more than the rest of
//! a convolution's epilogue on x86 (`vcvttps2dq`, two packs, a widening, `vcvtdq2ps`).
//!
//! A NaN `x` converts to poison, so any value may replace the round trip's result; `x` itself
//! carries the NaN on (into the next layer's floats, where a byte used to stand). A `-0.0` would
//! come back `+0.0`, so the fold also needs `x` never to be `-0.0` (clamped by a maximum with a
//! zero or more: the usual uint8 range).

use std::collections::HashMap;
use xcc_ir::{Attribute, BlockId, Module, ValueId};

/// Replaces, in `block`'s operations, each round trip through an integer type by its float
/// source where that is a whole number in the type's range.
pub fn fold(m: &mut Module, block: BlockId) {
    let mut replaced: HashMap<ValueId, ValueId> = HashMap::new();
    for &op in &m.blocks[block].ops {
        let back = m.ops[op].name.as_str();
        let (Some(&narrow), [result]) = (m.ops[op].operands.first(), m.ops[op].results.as_slice()) else { continue };
        let Some(to_int) = m.defining_op(narrow) else { continue };
        let signed = match (back, m.ops[to_int].name.as_str()) {
            ("arith.uitofp", "arith.fptoui") => false,
            ("arith.sitofp", "arith.fptosi") => true,
            _ => continue,
        };
        let source = m.ops[to_int].operands[0];
        let Some(width) = m.ty(narrow).int_width().filter(|&w| w <= 32) else { continue };
        let (lo, hi) = int_range(width, signed);
        let same_type = m.ty(source) == m.ty(*result);
        let inside = whole_within(m, source).is_some_and(|(a, b)| a >= lo && b <= hi);
        if same_type && inside && never_negative_zero(m, source) {
            replaced.insert(*result, source);
        }
    }
    if replaced.is_empty() {
        return;
    }
    for op in m.blocks[block].ops.clone() {
        for v in m.ops[op].operands.iter_mut() {
            if let Some(&to) = replaced.get(v) {
                *v = to;
            }
        }
    }
}

/// Whether `v` is sure not to be `-0.0`: a maximum with a constant `+0.0` or more, an integer
/// converted, or a minimum of such values.
fn never_negative_zero(m: &Module, v: ValueId) -> bool {
    let Some(op) = m.defining_op(v) else { return false };
    let operands = &m.ops[op].operands;
    let positive_constant = |v: ValueId| {
        m.defining_op(v).is_some_and(|c| {
            m.ops[c].name == "arith.constant"
                && matches!(m.attr(c, "value"), Some(Attribute::Float { value, .. }) if *value >= 0.0 && value.is_sign_positive())
        })
    };
    match m.ops[op].name.as_str() {
        "arith.sitofp" | "arith.uitofp" => true,
        // max(-0, -5) is -0: a maximum needs a zero or more, or no -0 on either side.
        "arith.maximumf" => {
            operands.iter().any(|&a| positive_constant(a)) || operands.iter().all(|&a| never_negative_zero(m, a))
        }
        "arith.minimumf" => operands.iter().all(|&a| positive_constant(a) || never_negative_zero(m, a)),
        _ => false,
    }
}

/// Bounds `[lo, hi]` of `v` where it is sure to be a whole number (or NaN): a rounding, an
/// integer converted, a whole constant, or sums, differences, minima and maxima of these. (Any
/// float at or past 2^24 is whole (2^11 in f16), so sums of whole floats stay whole however they
/// round.)
fn whole_within(m: &Module, v: ValueId) -> Option<(f64, f64)> {
    let op = m.defining_op(v)?;
    let operand = |k: usize| whole_within(m, m.ops[op].operands[k]);
    let both = || operand(0).zip(operand(1));
    match m.ops[op].name.as_str() {
        "arith.constant" => match m.attr(op, "value")? {
            Attribute::Float { value, .. } if value.fract() == 0.0 => Some((*value, *value)),
            _ => None,
        },
        "math.roundeven" | "math.round" | "math.floor" | "math.ceil" | "math.trunc" => {
            Some((f64::NEG_INFINITY, f64::INFINITY))
        }
        name @ ("arith.sitofp" | "arith.uitofp") => {
            Some(int_range(m.ty(m.ops[op].operands[0]).int_width()?, name == "arith.sitofp"))
        }
        "arith.addf" => both().map(|((a, b), (c, d))| (a + c, b + d)),
        "arith.subf" => both().map(|((a, b), (c, d))| (a - d, b - c)),
        "arith.maximumf" | "arith.maxnumf" => both().map(|((a, b), (c, d))| (a.max(c), b.max(d))),
        "arith.minimumf" | "arith.minnumf" => both().map(|((a, b), (c, d))| (a.min(c), b.min(d))),
        _ => None,
    }
}

/// The values of an integer type of `width` bits.
fn int_range(width: u32, signed: bool) -> (f64, f64) {
    let w = width as i32;
    if signed {
        (-(2f64.powi(w - 1)), 2f64.powi(w - 1) - 1.0)
    } else {
        (0.0, 2f64.powi(w) - 1.0)
    }
}
