//! The llvm dialect's own operations, one translation rule each, in one table ([`RULES`]): a
//! binary instruction, a cast, or a function of its own. Every other `llvm.*` name is an
//! intrinsic call (`intrinsics.rs`).

use super::atomics;
use super::{unsupported, TranslateError, Translator, EMPTY};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};
use xcc_ir::module::OpData;
use xcc_ir::{Attribute, OpId, Span, Type};

/// One operation being translated: its operands (already translated) and result type.
pub(super) struct Inst<'a> {
    pub op: OpId,
    pub data: &'a OpData,
    pub span: Span,
    pub operands: Vec<LLVMValueRef>,
    pub result_type: Option<LLVMTypeRef>,
    /// The function being built (`cond_br` may add a forwarding block to it).
    pub function: LLVMValueRef,
}

impl Inst<'_> {
    pub(super) fn result_type(&self) -> LLVMTypeRef {
        self.result_type.expect("the verifier checked the result count")
    }

    pub(super) fn int_attr(&self, t: &Translator, name: &str) -> Option<i128> {
        t.m.attr(self.op, name).and_then(Attribute::as_int)
    }
}

pub(super) type Translated = Result<Option<LLVMValueRef>, TranslateError>;

#[derive(Clone, Copy)]
pub(super) enum Rule {
    Binary(LLVMOpcode),
    Cast(LLVMOpcode),
    Own(unsafe fn(&mut Translator, &Inst) -> Translated),
}

impl Rule {
    pub(super) unsafe fn apply(self, t: &mut Translator, i: &Inst) -> Translated {
        let (b, ops) = (t.builder, &i.operands);
        Ok(match self {
            Rule::Binary(opcode) => Some(LLVMBuildBinOp(b, opcode, ops[0], ops[1], EMPTY)),
            Rule::Cast(opcode) => Some(LLVMBuildCast(b, opcode, ops[0], i.result_type(), EMPTY)),
            Rule::Own(f) => return f(t, i),
        })
    }
}

pub(super) fn rule(name: &str) -> Option<Rule> {
    RULES.iter().find(|(n, _)| *n == name).map(|&(_, r)| r)
}

const RULES: &[(&str, Rule)] = &[
    ("llvm.add", Rule::Binary(LLVMOpcode::LLVMAdd)),
    ("llvm.sub", Rule::Binary(LLVMOpcode::LLVMSub)),
    ("llvm.mul", Rule::Binary(LLVMOpcode::LLVMMul)),
    ("llvm.sdiv", Rule::Binary(LLVMOpcode::LLVMSDiv)),
    ("llvm.udiv", Rule::Binary(LLVMOpcode::LLVMUDiv)),
    ("llvm.srem", Rule::Binary(LLVMOpcode::LLVMSRem)),
    ("llvm.urem", Rule::Binary(LLVMOpcode::LLVMURem)),
    ("llvm.and", Rule::Binary(LLVMOpcode::LLVMAnd)),
    ("llvm.or", Rule::Binary(LLVMOpcode::LLVMOr)),
    ("llvm.xor", Rule::Binary(LLVMOpcode::LLVMXor)),
    ("llvm.shl", Rule::Binary(LLVMOpcode::LLVMShl)),
    ("llvm.lshr", Rule::Binary(LLVMOpcode::LLVMLShr)),
    ("llvm.ashr", Rule::Binary(LLVMOpcode::LLVMAShr)),
    ("llvm.fadd", Rule::Binary(LLVMOpcode::LLVMFAdd)),
    ("llvm.fsub", Rule::Binary(LLVMOpcode::LLVMFSub)),
    ("llvm.fmul", Rule::Binary(LLVMOpcode::LLVMFMul)),
    ("llvm.fdiv", Rule::Binary(LLVMOpcode::LLVMFDiv)),
    ("llvm.frem", Rule::Binary(LLVMOpcode::LLVMFRem)),
    ("llvm.sext", Rule::Cast(LLVMOpcode::LLVMSExt)),
    ("llvm.zext", Rule::Cast(LLVMOpcode::LLVMZExt)),
    ("llvm.trunc", Rule::Cast(LLVMOpcode::LLVMTrunc)),
    ("llvm.sitofp", Rule::Cast(LLVMOpcode::LLVMSIToFP)),
    ("llvm.uitofp", Rule::Cast(LLVMOpcode::LLVMUIToFP)),
    ("llvm.fptosi", Rule::Cast(LLVMOpcode::LLVMFPToSI)),
    ("llvm.fptoui", Rule::Cast(LLVMOpcode::LLVMFPToUI)),
    ("llvm.fpext", Rule::Cast(LLVMOpcode::LLVMFPExt)),
    ("llvm.fptrunc", Rule::Cast(LLVMOpcode::LLVMFPTrunc)),
    ("llvm.bitcast", Rule::Cast(LLVMOpcode::LLVMBitCast)),
    ("llvm.ptrtoint", Rule::Cast(LLVMOpcode::LLVMPtrToInt)),
    ("llvm.inttoptr", Rule::Cast(LLVMOpcode::LLVMIntToPtr)),
    ("llvm.addrspacecast", Rule::Cast(LLVMOpcode::LLVMAddrSpaceCast)),
    ("llvm.fneg", Rule::Own(fneg)),
    ("llvm.icmp", Rule::Own(icmp)),
    ("llvm.fcmp", Rule::Own(fcmp)),
    ("llvm.select", Rule::Own(select)),
    ("llvm.mlir.constant", Rule::Own(constant)),
    ("llvm.mlir.undef", Rule::Own(|_, i| Ok(Some(unsafe { LLVMGetUndef(i.result_type()) })))),
    ("llvm.mlir.poison", Rule::Own(|_, i| Ok(Some(unsafe { LLVMGetPoison(i.result_type()) })))),
    ("llvm.mlir.zero", Rule::Own(|_, i| Ok(Some(unsafe { LLVMConstNull(i.result_type()) })))),
    ("llvm.mlir.addressof", Rule::Own(addressof)),
    ("llvm.load", Rule::Own(atomics::load)),
    ("llvm.store", Rule::Own(atomics::store)),
    ("llvm.atomicrmw", Rule::Own(atomics::atomicrmw)),
    ("llvm.cmpxchg", Rule::Own(atomics::cmpxchg)),
    ("llvm.fence", Rule::Own(atomics::fence)),
    ("llvm.alloca", Rule::Own(alloca)),
    ("llvm.getelementptr", Rule::Own(getelementptr)),
    ("llvm.extractvalue", Rule::Own(extractvalue)),
    ("llvm.insertvalue", Rule::Own(insertvalue)),
    ("llvm.extractelement", Rule::Own(extractelement)),
    ("llvm.insertelement", Rule::Own(insertelement)),
    ("llvm.shufflevector", Rule::Own(shufflevector)),
    ("llvm.call", Rule::Own(call)),
    ("llvm.br", Rule::Own(br)),
    ("llvm.cond_br", Rule::Own(cond_br)),
    ("llvm.switch", Rule::Own(switch)),
    ("llvm.return", Rule::Own(ret)),
    ("llvm.unreachable", Rule::Own(unreachable)),
];

unsafe fn fneg(t: &mut Translator, i: &Inst) -> Translated {
    Ok(Some(LLVMBuildFNeg(t.builder, i.operands[0], EMPTY)))
}

/// Predicates in the llvm dialect's numbering.
const INT_PREDICATES: [LLVMIntPredicate; 10] = {
    use LLVMIntPredicate::*;
    [
        LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT,
        LLVMIntUGE,
    ]
};

const REAL_PREDICATES: [LLVMRealPredicate; 16] = {
    use LLVMRealPredicate::*;
    [
        LLVMRealPredicateFalse,
        LLVMRealOEQ,
        LLVMRealOGT,
        LLVMRealOGE,
        LLVMRealOLT,
        LLVMRealOLE,
        LLVMRealONE,
        LLVMRealORD,
        LLVMRealUEQ,
        LLVMRealUGT,
        LLVMRealUGE,
        LLVMRealULT,
        LLVMRealULE,
        LLVMRealUNE,
        LLVMRealUNO,
        LLVMRealPredicateTrue,
    ]
};

fn predicate<P: Copy>(t: &Translator, i: &Inst, table: &[P], what: &str) -> Result<P, TranslateError> {
    let index = i.int_attr(t, "predicate").unwrap_or(0);
    usize::try_from(index)
        .ok()
        .and_then(|k| table.get(k).copied())
        .ok_or_else(|| unsupported(i.span, format!("{what} predicate out of range")))
}

unsafe fn icmp(t: &mut Translator, i: &Inst) -> Translated {
    let p = predicate(t, i, &INT_PREDICATES, "icmp")?;
    Ok(Some(LLVMBuildICmp(t.builder, p, i.operands[0], i.operands[1], EMPTY)))
}

unsafe fn fcmp(t: &mut Translator, i: &Inst) -> Translated {
    let p = predicate(t, i, &REAL_PREDICATES, "fcmp")?;
    Ok(Some(LLVMBuildFCmp(t.builder, p, i.operands[0], i.operands[1], EMPTY)))
}

unsafe fn select(t: &mut Translator, i: &Inst) -> Translated {
    let o = &i.operands;
    Ok(Some(LLVMBuildSelect(t.builder, o[0], o[1], o[2], EMPTY)))
}

unsafe fn constant(t: &mut Translator, i: &Inst) -> Translated {
    Ok(Some(t.constant(i.op, i.result_type(), t.m.ty(i.data.results[0]))?))
}

unsafe fn addressof(t: &mut Translator, i: &Inst) -> Translated {
    let sym = t.m.attr(i.op, "global_name").and_then(Attribute::as_symbol).unwrap_or_default();
    let (g, _) = *t.functions.get(sym).ok_or_else(|| unsupported(i.span, format!("unknown symbol '@{sym}'")))?;
    Ok(Some(g))
}

/// Sets the `alignment` attribute, if any, on a load, store or alloca.
unsafe fn aligned(t: &Translator, i: &Inst, v: LLVMValueRef) -> LLVMValueRef {
    if let Some(a) = i.int_attr(t, "alignment") {
        LLVMSetAlignment(v, a as u32);
    }
    v
}

/// The `elem_type` attribute of an alloca or a getelementptr, as an LLVM type.
fn elem_type(t: &Translator, i: &Inst) -> Result<LLVMTypeRef, TranslateError> {
    let et =
        t.m.attr(i.op, "elem_type")
            .and_then(Attribute::as_type)
            .ok_or_else(|| unsupported(i.span, format!("{} needs elem_type", i.data.name)))?;
    t.ty(et, i.span)
}

unsafe fn alloca(t: &mut Translator, i: &Inst) -> Translated {
    let et = elem_type(t, i)?;
    Ok(Some(aligned(t, i, LLVMBuildArrayAlloca(t.builder, et, i.operands[0], EMPTY))))
}

/// Constant indices come from `rawConstantIndices`; the marker `i32::MIN` there takes the next
/// dynamic index operand instead.
unsafe fn getelementptr(t: &mut Translator, i: &Inst) -> Translated {
    let et = elem_type(t, i)?;
    let raw = t.m.attr(i.op, "rawConstantIndices").and_then(Attribute::as_int_list).unwrap_or_default();
    let ops = &i.operands;
    let mut dynamic = ops[1..].iter();
    let mut idx = Vec::new();
    for r in raw {
        if r == i32::MIN as i128 {
            idx.push(*dynamic.next().ok_or_else(|| unsupported(i.span, "too few dynamic indices"))?);
        } else {
            idx.push(LLVMConstInt(LLVMInt32TypeInContext(t.ctx), r as i64 as u64, 1));
        }
    }
    let (b, n) = (t.builder, idx.len() as u32);
    // Upstream's generic form: `noWrapFlags = #llvm.gep_no_wrap_flags<inbounds|nuw>`.
    let flags = t.m.attr(i.op, "noWrapFlags").map(|a| a.to_string()).unwrap_or_default();
    let inbounds = t.m.attr(i.op, "inbounds").is_some() || flags.contains("inbounds");
    Ok(Some(if inbounds {
        LLVMBuildInBoundsGEP2(b, et, ops[0], idx.as_mut_ptr(), n, EMPTY)
    } else {
        LLVMBuildGEP2(b, et, ops[0], idx.as_mut_ptr(), n, EMPTY)
    }))
}

fn position(t: &Translator, i: &Inst) -> Vec<i128> {
    t.m.attr(i.op, "position").and_then(Attribute::as_int_list).unwrap_or_default()
}

unsafe fn extractvalue(t: &mut Translator, i: &Inst) -> Translated {
    let v = position(t, i).into_iter().fold(i.operands[0], |v, p| LLVMBuildExtractValue(t.builder, v, p as u32, EMPTY));
    Ok(Some(v))
}

unsafe fn insertvalue(t: &mut Translator, i: &Inst) -> Translated {
    Ok(Some(t.insert_nested(i.operands[0], i.operands[1], &position(t, i))))
}

unsafe fn extractelement(t: &mut Translator, i: &Inst) -> Translated {
    Ok(Some(LLVMBuildExtractElement(t.builder, i.operands[0], i.operands[1], EMPTY)))
}

unsafe fn insertelement(t: &mut Translator, i: &Inst) -> Translated {
    let o = &i.operands;
    Ok(Some(LLVMBuildInsertElement(t.builder, o[0], o[1], o[2], EMPTY)))
}

unsafe fn shufflevector(t: &mut Translator, i: &Inst) -> Translated {
    let mask = t.m.attr(i.op, "mask").and_then(Attribute::as_int_list).unwrap_or_default();
    let i32t = LLVMInt32TypeInContext(t.ctx);
    let mut elems: Vec<_> = mask.iter().map(|&x| LLVMConstInt(i32t, x as i64 as u64, 1)).collect();
    let mask = LLVMConstVector(elems.as_mut_ptr(), elems.len() as u32);
    Ok(Some(LLVMBuildShuffleVector(t.builder, i.operands[0], i.operands[1], mask, EMPTY)))
}

/// A direct call of `callee`, or an indirect one through the first operand (`callee_type`).
unsafe fn call(t: &mut Translator, i: &Inst) -> Translated {
    let (callee, fty, mut args) = match t.m.attr(i.op, "callee").and_then(Attribute::as_symbol) {
        Some(sym) => {
            let (g, ft) = *t
                .functions
                .get(sym)
                .ok_or_else(|| unsupported(i.span, format!("call of unknown function '@{sym}'")))?;
            (g, ft, i.operands.clone())
        }
        None => {
            let ft =
                t.m.attr(i.op, "callee_type")
                    .and_then(Attribute::as_type)
                    .and_then(Type::as_function)
                    .ok_or_else(|| unsupported(i.span, "indirect llvm.call needs callee_type"))?;
            (i.operands[0], t.fn_type(ft, false, i.span)?, i.operands[1..].to_vec())
        }
    };
    let v = LLVMBuildCall2(t.builder, fty, callee, args.as_mut_ptr(), args.len() as u32, EMPTY);
    Ok((!i.data.results.is_empty()).then_some(v))
}

unsafe fn br(t: &mut Translator, i: &Inst) -> Translated {
    let s = &i.data.successors[0];
    LLVMBuildBr(t.builder, t.blocks[&s.block]);
    t.add_incoming(s.block, &s.args, LLVMGetInsertBlock(t.builder))?;
    Ok(None)
}

/// Two edges to the same block with arguments go through a forwarding block on the second,
/// since a phi cannot tell two edges from one predecessor apart.
unsafe fn cond_br(t: &mut Translator, i: &Inst) -> Translated {
    let b = t.builder;
    let (s1, s2) = (&i.data.successors[0], &i.data.successors[1]);
    let from = LLVMGetInsertBlock(b);
    let t1 = t.blocks[&s1.block];
    let mut t2 = t.blocks[&s2.block];
    let mut second_from = from;
    if s1.block == s2.block && !t.m.blocks[s2.block].args.is_empty() {
        let forward = LLVMAppendBasicBlockInContext(t.ctx, i.function, EMPTY);
        LLVMPositionBuilderAtEnd(b, forward);
        LLVMBuildBr(b, t2);
        LLVMPositionBuilderAtEnd(b, from);
        (t2, second_from) = (forward, forward);
    }
    LLVMBuildCondBr(b, i.operands[0], t1, t2);
    t.add_incoming(s1.block, &s1.args, from)?;
    t.add_incoming(s2.block, &s2.args, second_from)?;
    Ok(None)
}

/// Every edge to a block with arguments goes through a forwarding block of its own, since two
/// cases may reach one block with different values and a phi tells edges apart only by their
/// predecessor.
unsafe fn switch(t: &mut Translator, i: &Inst) -> Translated {
    let b = t.builder;
    let from = LLVMGetInsertBlock(b);
    let flag = i.operands[0];
    let values = xcc_ir::dialects::cf::case_values(t.m, i.op);
    let mut edges = Vec::new();
    for s in &i.data.successors {
        let target = t.blocks[&s.block];
        if t.m.blocks[s.block].args.is_empty() {
            edges.push(target);
            continue;
        }
        let forward = LLVMAppendBasicBlockInContext(t.ctx, i.function, EMPTY);
        LLVMPositionBuilderAtEnd(b, forward);
        LLVMBuildBr(b, target);
        t.add_incoming(s.block, &s.args, forward)?;
        edges.push(forward);
    }
    LLVMPositionBuilderAtEnd(b, from);
    let sw = LLVMBuildSwitch(b, flag, edges[0], values.len() as u32);
    let flag_type = LLVMTypeOf(flag);
    for (&v, &dest) in values.iter().zip(&edges[1..]) {
        let words = [v as u64, (v >> 64) as u64];
        LLVMAddCase(sw, LLVMConstIntOfArbitraryPrecision(flag_type, 2, words.as_ptr()), dest);
    }
    Ok(None)
}

unsafe fn ret(t: &mut Translator, i: &Inst) -> Translated {
    match i.operands.first() {
        None => LLVMBuildRetVoid(t.builder),
        Some(&v) => LLVMBuildRet(t.builder, v),
    };
    Ok(None)
}

unsafe fn unreachable(t: &mut Translator, _: &Inst) -> Translated {
    LLVMBuildUnreachable(t.builder);
    Ok(None)
}
