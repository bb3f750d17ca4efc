//! One module per conversion, named after upstream's (`AffineToStandard`, `SCFToControlFlow`, ...).

pub mod affine_to_scf;
pub mod scf_to_cf;
pub mod std_to_llvm;

use xcc_ir::{Module, OpId};

/// The first operation (pre-order, over all functions) for which `pred` holds.
pub(crate) fn find_first(m: &Module, pred: impl Fn(&str) -> bool) -> Option<OpId> {
    let mut found = None;
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if found.is_none() && pred(&m.ops[op].name) {
                found = Some(op);
            }
        });
        if found.is_some() {
            break;
        }
    }
    found
}
