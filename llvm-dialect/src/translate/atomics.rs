//! The atomic operations and the atomic forms of loads and stores (`ir/src/dialects/
//! llvm_atomics.rs`): the dialect numbers orderings and atomicrmw operations as LLVM's C API
//! does, so each is the same number on both sides.

use super::rules::{Inst, Translated};
use super::{Translator, EMPTY};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
use xcc_ir::Attribute;

/// The ordering attribute `name` (absent: not atomic); the verifier checked its value.
fn ordering(t: &Translator, i: &Inst, name: &str) -> LLVMAtomicOrdering {
    use LLVMAtomicOrdering::*;
    match i.int_attr(t, name).unwrap_or(0) {
        1 => LLVMAtomicOrderingUnordered,
        2 => LLVMAtomicOrderingMonotonic,
        4 => LLVMAtomicOrderingAcquire,
        5 => LLVMAtomicOrderingRelease,
        6 => LLVMAtomicOrderingAcquireRelease,
        7 => LLVMAtomicOrderingSequentiallyConsistent,
        _ => LLVMAtomicOrderingNotAtomic,
    }
}

/// atomicrmw's operation, by the verified number.
fn bin_op(n: i128) -> LLVMAtomicRMWBinOp {
    use LLVMAtomicRMWBinOp::*;
    const OPS: [LLVMAtomicRMWBinOp; 21] = [
        LLVMAtomicRMWBinOpXchg,
        LLVMAtomicRMWBinOpAdd,
        LLVMAtomicRMWBinOpSub,
        LLVMAtomicRMWBinOpAnd,
        LLVMAtomicRMWBinOpNand,
        LLVMAtomicRMWBinOpOr,
        LLVMAtomicRMWBinOpXor,
        LLVMAtomicRMWBinOpMax,
        LLVMAtomicRMWBinOpMin,
        LLVMAtomicRMWBinOpUMax,
        LLVMAtomicRMWBinOpUMin,
        LLVMAtomicRMWBinOpFAdd,
        LLVMAtomicRMWBinOpFSub,
        LLVMAtomicRMWBinOpFMax,
        LLVMAtomicRMWBinOpFMin,
        LLVMAtomicRMWBinOpUIncWrap,
        LLVMAtomicRMWBinOpUDecWrap,
        LLVMAtomicRMWBinOpUSubCond,
        LLVMAtomicRMWBinOpUSubSat,
        LLVMAtomicRMWBinOpFMaximum,
        LLVMAtomicRMWBinOpFMinimum,
    ];
    OPS[n as usize]
}

/// Volatility, the synchronization scope (the default: the whole system) and the alignment of a
/// memory instruction.
unsafe fn access_flags(t: &Translator, i: &Inst, v: LLVMValueRef) -> LLVMValueRef {
    if t.m.attr(i.op, "volatile_").is_some() {
        LLVMSetVolatile(v, 1);
    }
    if let Some(Attribute::String(scope)) = t.m.attr(i.op, "syncscope") {
        let id = LLVMGetSyncScopeID(t.ctx, scope.as_ptr().cast(), scope.len());
        LLVMSetAtomicSyncScopeID(v, id);
    }
    if let Some(a) = i.int_attr(t, "alignment") {
        LLVMSetAlignment(v, a as u32);
    }
    v
}

pub(super) unsafe fn load(t: &mut Translator, i: &Inst) -> Translated {
    let v = LLVMBuildLoad2(t.builder, i.result_type(), i.operands[0], EMPTY);
    LLVMSetOrdering(v, ordering(t, i, "ordering"));
    if t.m.attr(i.op, "invariant").is_some() {
        // `!invariant.load !{}`: the memory holds the same value wherever the load is reached.
        const KIND: &str = "invariant.load";
        let kind = LLVMGetMDKindIDInContext(t.ctx, KIND.as_ptr().cast(), KIND.len() as u32);
        LLVMSetMetadata(v, kind, LLVMMetadataAsValue(t.ctx, LLVMMDNodeInContext2(t.ctx, std::ptr::null_mut(), 0)));
    }
    Ok(Some(access_flags(t, i, v)))
}

pub(super) unsafe fn store(t: &mut Translator, i: &Inst) -> Translated {
    let v = LLVMBuildStore(t.builder, i.operands[0], i.operands[1]);
    LLVMSetOrdering(v, ordering(t, i, "ordering"));
    access_flags(t, i, v);
    Ok(None)
}

pub(super) unsafe fn atomicrmw(t: &mut Translator, i: &Inst) -> Translated {
    let op = bin_op(i.int_attr(t, "bin_op").unwrap_or(0));
    let v = LLVMBuildAtomicRMW(t.builder, op, i.operands[0], i.operands[1], ordering(t, i, "ordering"), 0);
    Ok(Some(access_flags(t, i, v)))
}

pub(super) unsafe fn cmpxchg(t: &mut Translator, i: &Inst) -> Translated {
    let (success, failure) = (ordering(t, i, "success_ordering"), ordering(t, i, "failure_ordering"));
    let v = LLVMBuildAtomicCmpXchg(t.builder, i.operands[0], i.operands[1], i.operands[2], success, failure, 0);
    if t.m.attr(i.op, "weak").is_some() {
        LLVMSetWeak(v, 1);
    }
    Ok(Some(access_flags(t, i, v)))
}

pub(super) unsafe fn fence(t: &mut Translator, i: &Inst) -> Translated {
    let v = LLVMBuildFence(t.builder, ordering(t, i, "ordering"), 0, EMPTY);
    access_flags(t, i, v);
    Ok(None)
}
