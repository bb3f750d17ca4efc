//! What xcc knows about operations independent of any pass: which are terminators, predicate
//! encodings (upstream's integer values), and type helpers shared by the parser and verifier.

use crate::types::Type;

/// `arith.cmpi`/`llvm.icmp` predicates, indexed by their upstream integer encoding.
pub const CMPI_PREDICATES: &[&str] = &["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"];

/// `arith.cmpf`/`llvm.fcmp` predicates, indexed by their upstream integer encoding.
pub const CMPF_PREDICATES: &[&str] = &[
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
];

pub fn is_terminator(name: &str) -> bool {
    matches!(
        name,
        "func.return"
            | "cf.br"
            | "cf.cond_br"
            | "scf.yield"
            | "affine.yield"
            | "llvm.return"
            | "llvm.br"
            | "llvm.cond_br"
            | "llvm.unreachable"
            | "gpu.return"
    )
}

/// Dialects whose operations xcc knows; anything else is an unregistered operation, which the
/// verifier treats as opaque (it may or may not be a terminator).
pub fn is_known_dialect(op_name: &str) -> bool {
    let dialect = op_name.split('.').next().unwrap_or("");
    matches!(
        dialect,
        "builtin"
            | "std"
            | "func"
            | "arith"
            | "math"
            | "cf"
            | "memref"
            | "scf"
            | "affine"
            | "vector"
            | "llvm"
            | "gpu"
            | "tensor"
    )
}

/// Operations whose regions cannot see values defined outside them.
pub fn is_isolated_from_above(name: &str) -> bool {
    matches!(name, "func.func" | "llvm.func" | "gpu.func" | "builtin.module")
}

/// The type at `position` inside an LLVM aggregate (struct or array).
pub fn aggregate_element(agg: &Type, position: &[i64]) -> Option<Type> {
    let mut t = agg.clone();
    for &i in position {
        t = match t {
            Type::LlvmStruct { fields, .. } => fields.get(usize::try_from(i).ok()?)?.clone(),
            Type::LlvmArray { len, elem } if (i as u64) < len && i >= 0 => *elem,
            _ => return None,
        };
    }
    Some(t)
}
