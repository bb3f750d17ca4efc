//! `convert-index-to-llvm`: the index dialect's operations to llvm instructions on the integer
//! that index becomes (i64), as arith's of the same kind.

use super::arith_to_llvm::{constant, index_cast, rounded_division};
use super::{ConversionSet, Rewriter};
use xcc_ir::{Attribute, Diagnostic, OpId, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "index",
    one_to_one: &[
        ("index.add", "llvm.add"),
        ("index.sub", "llvm.sub"),
        ("index.mul", "llvm.mul"),
        ("index.divs", "llvm.sdiv"),
        ("index.divu", "llvm.udiv"),
        ("index.rems", "llvm.srem"),
        ("index.remu", "llvm.urem"),
        ("index.maxs", "llvm.intr.smax"),
        ("index.maxu", "llvm.intr.umax"),
        ("index.mins", "llvm.intr.smin"),
        ("index.minu", "llvm.intr.umin"),
        ("index.shl", "llvm.shl"),
        ("index.shrs", "llvm.ashr"),
        ("index.shru", "llvm.lshr"),
        ("index.and", "llvm.and"),
        ("index.or", "llvm.or"),
        ("index.xor", "llvm.xor"),
        // index.cmp's predicate has llvm.icmp's encoding.
        ("index.cmp", "llvm.icmp"),
    ],
    patterns: &[
        ("index.constant", constant),
        ("index.bool.constant", constant),
        ("index.casts", index_cast),
        ("index.castu", index_cast),
        ("index.ceildivs", rounded_division),
        ("index.ceildivu", rounded_division),
        ("index.floordivs", rounded_division),
        ("index.sizeof", sizeof),
    ],
};

/// The width of the integer index becomes.
fn sizeof(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let t = rw.result_type(op, 0)?;
    let bits = t.int_width().unwrap_or(64) as i128;
    let span = rw.old.ops[op].span;
    let value = Attribute::int(bits, t.clone());
    Ok(vec![rw.builder(span).value_with("llvm.mlir.constant", &[], t, vec![("value".into(), value)])])
}
