//! `builtin`: the module and the cast that stands between two type systems during a partial
//! conversion.

use crate::op_def::{Count, OpDef, Traits};

pub const OPS: &[OpDef] = &[
    OpDef::new("builtin.module", "a container of symbols (written as `module { ... }`)")
        .regions(Count::Exactly(1))
        .traits(Traits::ISOLATED_FROM_ABOVE.union(Traits::NO_TERMINATOR))
        .not_lowered("the module is the translation unit itself; its body is translated"),
    OpDef::new(
        "builtin.unrealized_conversion_cast",
        "a value of one type seen as another, left by a partial conversion until both sides are converted",
    )
    .operand_count(Count::AtLeast(1))
    .result_count(Count::AtLeast(1))
    .pure(),
];
