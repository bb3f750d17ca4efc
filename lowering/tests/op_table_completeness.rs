//! Every operation in the op tables either reaches LLVM IR or says why not: a pass lowers it
//! away, the translation has a rule for it (the llvm dialect), or its definition carries a
//! `not_lowered("why")` mark.

use xcc_ir::op_def::Lowering;

#[test]
fn every_op_is_lowered_or_says_why_not() {
    let mut missing = Vec::new();
    for def in xcc_ir::dialects::all() {
        let ok = match def.lowering {
            Lowering::Converted => xcc_lowering::is_lowered_by_a_pass(def.name),
            Lowering::Translated => xcc_llvm_dialect::translates(def.name),
            Lowering::NotLowered(why) => !why.is_empty(),
        };
        if !ok {
            missing.push(format!("{} ({:?})", def.name, def.lowering));
        }
    }
    assert!(missing.is_empty(), "operations without a lowering or a reason:\n  {}", missing.join("\n  "));
}

#[test]
fn conversions_only_claim_registered_ops() {
    // A pattern keyed by a misspelled name would never fire.
    for set in xcc_lowering::conversion::TO_LLVM {
        for (name, _) in set.one_to_one {
            assert!(xcc_ir::dialects::lookup(name).is_some(), "{}: '{name}' is not registered", set.name);
        }
        for (name, _) in set.patterns {
            assert!(xcc_ir::dialects::lookup(name).is_some(), "{}: '{name}' is not registered", set.name);
        }
    }
}
