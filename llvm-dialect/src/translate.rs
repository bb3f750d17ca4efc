//! llvm dialect -> LLVM IR, through the LLVM C API (inkwell's `llvm_sys`) for instruction
//! building: it treats scalar and vector operands alike, as LLVM does.
//!
//! Block arguments become phis created up front in every non-entry block; each branch adds its
//! incoming values. A `cond_br` whose two edges reach the same block goes through a forwarding
//! block on one edge, since a phi cannot tell two edges from one predecessor apart.

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};
use inkwell::module::Module as LlvmModule;
use std::collections::HashMap;
use std::ffi::CString;
use xcc_ir::attributes::DenseValues;
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, BlockId, Module, OpId, Span, Type, ValueId};

#[derive(Debug, thiserror::Error)]
pub enum TranslateError {
    #[error("{message}")]
    Unsupported { span: Span, message: String },
    #[error("LLVM rejected the generated module: {0}")]
    InvalidModule(String),
}

impl TranslateError {
    pub fn span(&self) -> Span {
        match self {
            TranslateError::Unsupported { span, .. } => *span,
            TranslateError::InvalidModule(_) => Span::UNKNOWN,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct TranslateOptions {
    /// Kernels (`nvvm.kernel`) get the `ptx_kernel` calling convention.
    pub nvptx: bool,
    /// The target architecture (`x86_64`, `aarch64`, `nvptx64`): intrinsics of another target
    /// are rejected here rather than aborting inside LLVM's instruction selection.
    pub arch: String,
}

/// Operations that are one LLVM binary instruction.
const BINARY: &[(&str, LLVMOpcode)] = &[
    ("llvm.add", LLVMOpcode::LLVMAdd),
    ("llvm.sub", LLVMOpcode::LLVMSub),
    ("llvm.mul", LLVMOpcode::LLVMMul),
    ("llvm.sdiv", LLVMOpcode::LLVMSDiv),
    ("llvm.udiv", LLVMOpcode::LLVMUDiv),
    ("llvm.srem", LLVMOpcode::LLVMSRem),
    ("llvm.urem", LLVMOpcode::LLVMURem),
    ("llvm.and", LLVMOpcode::LLVMAnd),
    ("llvm.or", LLVMOpcode::LLVMOr),
    ("llvm.xor", LLVMOpcode::LLVMXor),
    ("llvm.shl", LLVMOpcode::LLVMShl),
    ("llvm.lshr", LLVMOpcode::LLVMLShr),
    ("llvm.ashr", LLVMOpcode::LLVMAShr),
    ("llvm.fadd", LLVMOpcode::LLVMFAdd),
    ("llvm.fsub", LLVMOpcode::LLVMFSub),
    ("llvm.fmul", LLVMOpcode::LLVMFMul),
    ("llvm.fdiv", LLVMOpcode::LLVMFDiv),
    ("llvm.frem", LLVMOpcode::LLVMFRem),
];

/// Operations that are one LLVM cast instruction.
const CASTS: &[(&str, LLVMOpcode)] = &[
    ("llvm.sext", LLVMOpcode::LLVMSExt),
    ("llvm.zext", LLVMOpcode::LLVMZExt),
    ("llvm.trunc", LLVMOpcode::LLVMTrunc),
    ("llvm.sitofp", LLVMOpcode::LLVMSIToFP),
    ("llvm.uitofp", LLVMOpcode::LLVMUIToFP),
    ("llvm.fptosi", LLVMOpcode::LLVMFPToSI),
    ("llvm.fptoui", LLVMOpcode::LLVMFPToUI),
    ("llvm.fpext", LLVMOpcode::LLVMFPExt),
    ("llvm.fptrunc", LLVMOpcode::LLVMFPTrunc),
    ("llvm.bitcast", LLVMOpcode::LLVMBitCast),
    ("llvm.ptrtoint", LLVMOpcode::LLVMPtrToInt),
    ("llvm.inttoptr", LLVMOpcode::LLVMIntToPtr),
    ("llvm.addrspacecast", LLVMOpcode::LLVMAddrSpaceCast),
];

/// Operations translated by a rule of their own in [`Translator::op`]; every other `llvm.*` name
/// is an intrinsic call.
const OWN_RULES: &[&str] = &[
    "llvm.fneg",
    "llvm.icmp",
    "llvm.fcmp",
    "llvm.select",
    "llvm.mlir.constant",
    "llvm.mlir.undef",
    "llvm.mlir.poison",
    "llvm.mlir.zero",
    "llvm.mlir.addressof",
    "llvm.load",
    "llvm.store",
    "llvm.alloca",
    "llvm.getelementptr",
    "llvm.extractvalue",
    "llvm.insertvalue",
    "llvm.extractelement",
    "llvm.insertelement",
    "llvm.shufflevector",
    "llvm.call",
    "llvm.br",
    "llvm.cond_br",
    "llvm.return",
    "llvm.unreachable",
];

/// Top-level operations: functions and globals.
const TOP_LEVEL: &[&str] = &["llvm.func", "llvm.mlir.global"];

/// Whether the translation has a rule for this llvm-dialect operation (the op-table
/// completeness test asks it for every operation the llvm dialect's table marks translated).
pub fn translates(name: &str) -> bool {
    BINARY.iter().chain(CASTS).any(|(n, _)| *n == name) || OWN_RULES.contains(&name) || TOP_LEVEL.contains(&name)
}

const PTX_KERNEL_CC: u32 = 71;

fn unsupported(span: Span, message: impl Into<String>) -> TranslateError {
    TranslateError::Unsupported { span, message: message.into() }
}

fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("no interior nul")
}

const EMPTY: *const CChar = c"".as_ptr();
type CChar = std::ffi::c_char;

/// Translates a module in the llvm dialect into a new LLVM module in `ctx`.
pub fn translate_module<'ctx>(
    ctx: &'ctx Context,
    m: &Module,
    name: &str,
    options: &TranslateOptions,
) -> Result<LlvmModule<'ctx>, TranslateError> {
    let module = ctx.create_module(name);
    let mut t = Translator {
        ctx: ctx.raw(),
        module: module.as_mut_ptr(),
        builder: unsafe { LLVMCreateBuilderInContext(ctx.raw()) },
        m,
        values: HashMap::new(),
        blocks: HashMap::new(),
        functions: HashMap::new(),
        options: options.clone(),
    };
    let result = t.run();
    unsafe { LLVMDisposeBuilder(t.builder) };
    result?;
    if let Err(e) = module.verify() {
        return Err(TranslateError::InvalidModule(e.to_string()));
    }
    Ok(module)
}

struct Translator<'a> {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    m: &'a Module,
    values: HashMap<ValueId, LLVMValueRef>,
    blocks: HashMap<BlockId, LLVMBasicBlockRef>,
    functions: HashMap<String, (LLVMValueRef, LLVMTypeRef)>,
    options: TranslateOptions,
}

impl Translator<'_> {
    fn run(&mut self) -> Result<(), TranslateError> {
        let m = self.m;
        for &op in m.top_ops() {
            if m.ops[op].name == "llvm.func" {
                self.declare_function(op)?;
            } else if m.ops[op].name == "llvm.mlir.global" {
                self.define_global(op)?;
            } else {
                return Err(unsupported(m.ops[op].span, format!("top-level operation '{}'", m.ops[op].name)));
            }
        }
        for &op in m.top_ops() {
            if m.ops[op].name == "llvm.func" {
                self.define_function(op)?;
            }
        }
        Ok(())
    }

    fn ty(&self, t: &Type, span: Span) -> Result<LLVMTypeRef, TranslateError> {
        unsafe {
            Ok(match t {
                Type::Integer { width, .. } => LLVMIntTypeInContext(self.ctx, *width),
                Type::Index => LLVMInt64TypeInContext(self.ctx),
                Type::Float(FloatKind::F16) => LLVMHalfTypeInContext(self.ctx),
                Type::Float(FloatKind::BF16) => LLVMBFloatTypeInContext(self.ctx),
                Type::Float(FloatKind::F32) => LLVMFloatTypeInContext(self.ctx),
                Type::Float(FloatKind::F64) => LLVMDoubleTypeInContext(self.ctx),
                Type::Vector { shape, elem } => {
                    LLVMVectorType(self.ty(elem, span)?, shape.iter().product::<u64>() as u32)
                }
                Type::LlvmPtr { address_space } => LLVMPointerTypeInContext(self.ctx, *address_space),
                Type::LlvmVoid => LLVMVoidTypeInContext(self.ctx),
                Type::LlvmStruct { packed, fields } => {
                    let mut fs = fields.iter().map(|f| self.ty(f, span)).collect::<Result<Vec<_>, _>>()?;
                    LLVMStructTypeInContext(self.ctx, fs.as_mut_ptr(), fs.len() as u32, *packed as i32)
                }
                Type::LlvmArray { len, elem } => LLVMArrayType2(self.ty(elem, span)?, *len),
                _ => return Err(unsupported(span, format!("type {t} in the llvm dialect"))),
            })
        }
    }

    fn fn_type(
        &self,
        ft: &xcc_ir::types::FunctionType,
        vararg: bool,
        span: Span,
    ) -> Result<LLVMTypeRef, TranslateError> {
        let ret = match ft.results.len() {
            0 => unsafe { LLVMVoidTypeInContext(self.ctx) },
            1 => self.ty(&ft.results[0], span)?,
            _ => return Err(unsupported(span, "an llvm.func with several results (pack them in a struct)")),
        };
        let mut params = ft.inputs.iter().map(|t| self.ty(t, span)).collect::<Result<Vec<_>, _>>()?;
        Ok(unsafe { LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, vararg as i32) })
    }

    fn declare_function(&mut self, op: OpId) -> Result<(), TranslateError> {
        let m = self.m;
        let span = m.ops[op].span;
        let name = m.sym_name(op).unwrap_or_default().to_string();
        let ft = m.function_type(op).ok_or_else(|| unsupported(span, "llvm.func without a function type"))?;
        let fty = self.fn_type(ft, m.attr(op, "vararg").is_some(), span)?;
        let f = unsafe { LLVMAddFunction(self.module, cstr(&name).as_ptr(), fty) };
        let internal = matches!(m.attr(op, "linkage").and_then(Attribute::as_str), Some("internal" | "private"))
            || (m.attr(op, "sym_visibility").and_then(Attribute::as_str) == Some("private")
                && !m.ops[op].regions.is_empty());
        if internal {
            unsafe { LLVMSetLinkage(f, inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage) };
        }
        if self.options.nvptx && m.attr(op, "nvvm.kernel").is_some() {
            unsafe { LLVMSetFunctionCallConv(f, PTX_KERNEL_CC) };
        }
        self.functions.insert(name, (f, fty));
        Ok(())
    }

    /// A global holding raw bytes (`dense<"0x...">`) or zeroes, stored in `functions` so that
    /// `llvm.mlir.addressof` finds it by name like a function.
    fn define_global(&mut self, op: OpId) -> Result<(), TranslateError> {
        let m = self.m;
        let span = m.ops[op].span;
        let name = m.sym_name(op).unwrap_or_default().to_string();
        let ty = m
            .attr(op, "global_type")
            .and_then(Attribute::as_type)
            .ok_or_else(|| unsupported(span, "llvm.mlir.global needs global_type"))?;
        let t = self.ty(ty, span)?;
        unsafe {
            let g = LLVMAddGlobal(self.module, t, cstr(&name).as_ptr());
            let init = match m.attr(op, "value") {
                Some(Attribute::Dense { values: DenseValues::Hex(bytes), .. }) => {
                    LLVMConstStringInContext2(self.ctx, bytes.as_ptr() as *const CChar, bytes.len(), 1)
                }
                None => LLVMConstNull(t),
                Some(v) => return Err(unsupported(span, format!("global initializer {v}"))),
            };
            LLVMSetInitializer(g, init);
            if m.attr(op, "constant").is_some() {
                LLVMSetGlobalConstant(g, 1);
            }
            if let Some(a) = m.attr(op, "alignment").and_then(Attribute::as_int) {
                LLVMSetAlignment(g, a as u32);
            }
            if m.attr(op, "linkage").and_then(Attribute::as_str) == Some("internal") {
                LLVMSetLinkage(g, inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            }
            self.functions.insert(name, (g, t));
        }
        Ok(())
    }

    fn define_function(&mut self, op: OpId) -> Result<(), TranslateError> {
        let m = self.m;
        let Some(&region) = m.ops[op].regions.first() else { return Ok(()) };
        let blocks = m.regions[region].blocks.clone();
        if blocks.is_empty() {
            return Ok(());
        }
        let name = m.sym_name(op).unwrap_or_default();
        let (f, _) = self.functions[name];
        for (i, &b) in blocks.iter().enumerate() {
            let bb = unsafe { LLVMAppendBasicBlockInContext(self.ctx, f, EMPTY) };
            self.blocks.insert(b, bb);
            if i == 0 {
                for (j, &a) in m.blocks[b].args.iter().enumerate() {
                    self.values.insert(a, unsafe { LLVMGetParam(f, j as u32) });
                }
            } else {
                unsafe { LLVMPositionBuilderAtEnd(self.builder, bb) };
                for &a in &m.blocks[b].args {
                    let t = self.ty(m.ty(a), m.values[a].span)?;
                    let phi = unsafe { LLVMBuildPhi(self.builder, t, EMPTY) };
                    self.values.insert(a, phi);
                }
            }
        }
        // Dominance order, so operands are translated before their uses.
        for b in m.reverse_post_order(region).0 {
            let bb = self.blocks[&b];
            unsafe { LLVMPositionBuilderAtEnd(self.builder, bb) };
            for &o in &m.blocks[b].ops {
                self.op(o, f)?;
            }
        }
        Ok(())
    }

    fn v(&self, v: ValueId) -> Result<LLVMValueRef, TranslateError> {
        self.values
            .get(&v)
            .copied()
            .ok_or_else(|| unsupported(self.m.values[v].span, "a value used where its definition does not dominate"))
    }

    fn add_incoming(&self, target: BlockId, args: &[ValueId], from: LLVMBasicBlockRef) -> Result<(), TranslateError> {
        let params = &self.m.blocks[target].args;
        for (&p, &a) in params.iter().zip(args) {
            let phi = self.values[&p];
            let mut val = self.v(a)?;
            let mut bb = from;
            unsafe { LLVMAddIncoming(phi, &mut val, &mut bb, 1) };
        }
        Ok(())
    }

    fn op(&mut self, op: OpId, f: LLVMValueRef) -> Result<(), TranslateError> {
        let m = self.m;
        let d = &m.ops[op];
        let span = d.span;
        let name = d.name.as_str();
        let ops = d.operands.iter().map(|&v| self.v(v)).collect::<Result<Vec<_>, _>>()?;
        let rty = match d.results.first() {
            Some(&r) => Some(self.ty(m.ty(r), span)?),
            None => None,
        };
        let b = self.builder;
        let binary = BINARY.iter().find(|(n, _)| *n == name).map(|&(_, o)| o);
        let cast = CASTS.iter().find(|(n, _)| *n == name).map(|&(_, o)| o);
        let result: Option<LLVMValueRef> = unsafe {
            match name {
                _ if binary.is_some() => Some(LLVMBuildBinOp(b, binary.expect("found"), ops[0], ops[1], EMPTY)),
                _ if cast.is_some() => {
                    Some(LLVMBuildCast(b, cast.expect("found"), ops[0], rty.expect("result"), EMPTY))
                }
                "llvm.fneg" => Some(LLVMBuildFNeg(b, ops[0], EMPTY)),
                "llvm.icmp" => {
                    use LLVMIntPredicate::*;
                    let p = [
                        LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT, LLVMIntSGE, LLVMIntULT, LLVMIntULE,
                        LLVMIntUGT, LLVMIntUGE,
                    ];
                    let i = m.attr(op, "predicate").and_then(Attribute::as_int).unwrap_or(0) as usize;
                    let p = *p.get(i).ok_or_else(|| unsupported(span, "icmp predicate out of range"))?;
                    Some(LLVMBuildICmp(b, p, ops[0], ops[1], EMPTY))
                }
                "llvm.fcmp" => {
                    use LLVMRealPredicate::*;
                    let p = [
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
                    ];
                    let i = m.attr(op, "predicate").and_then(Attribute::as_int).unwrap_or(0) as usize;
                    let p = *p.get(i).ok_or_else(|| unsupported(span, "fcmp predicate out of range"))?;
                    Some(LLVMBuildFCmp(b, p, ops[0], ops[1], EMPTY))
                }
                "llvm.select" => Some(LLVMBuildSelect(b, ops[0], ops[1], ops[2], EMPTY)),
                "llvm.mlir.constant" => Some(self.constant(op, rty.expect("result"), m.ty(d.results[0]))?),
                "llvm.mlir.undef" => Some(LLVMGetUndef(rty.expect("result"))),
                "llvm.mlir.poison" => Some(LLVMGetPoison(rty.expect("result"))),
                "llvm.mlir.zero" => Some(LLVMConstNull(rty.expect("result"))),
                "llvm.mlir.addressof" => {
                    let sym = m.attr(op, "global_name").and_then(Attribute::as_symbol).unwrap_or_default();
                    let (g, _) = *self
                        .functions
                        .get(sym)
                        .ok_or_else(|| unsupported(span, format!("unknown symbol '@{sym}'")))?;
                    Some(g)
                }
                "llvm.load" => {
                    let v = LLVMBuildLoad2(b, rty.expect("result"), ops[0], EMPTY);
                    if let Some(a) = m.attr(op, "alignment").and_then(Attribute::as_int) {
                        LLVMSetAlignment(v, a as u32);
                    }
                    Some(v)
                }
                "llvm.store" => {
                    let v = LLVMBuildStore(b, ops[0], ops[1]);
                    if let Some(a) = m.attr(op, "alignment").and_then(Attribute::as_int) {
                        LLVMSetAlignment(v, a as u32);
                    }
                    None
                }
                "llvm.alloca" => {
                    let et = m
                        .attr(op, "elem_type")
                        .and_then(Attribute::as_type)
                        .ok_or_else(|| unsupported(span, "llvm.alloca needs elem_type"))?;
                    let et = self.ty(et, span)?;
                    let v = LLVMBuildArrayAlloca(b, et, ops[0], EMPTY);
                    if let Some(a) = m.attr(op, "alignment").and_then(Attribute::as_int) {
                        LLVMSetAlignment(v, a as u32);
                    }
                    Some(v)
                }
                "llvm.getelementptr" => {
                    let et = m
                        .attr(op, "elem_type")
                        .and_then(Attribute::as_type)
                        .ok_or_else(|| unsupported(span, "llvm.getelementptr needs elem_type"))?;
                    let et = self.ty(et, span)?;
                    let raw = m.attr(op, "rawConstantIndices").and_then(Attribute::as_int_list).unwrap_or_default();
                    let mut next = 1;
                    let mut idx = Vec::new();
                    for r in raw {
                        if r == i32::MIN as i128 {
                            idx.push(ops[next]);
                            next += 1;
                        } else {
                            idx.push(LLVMConstInt(LLVMInt32TypeInContext(self.ctx), r as i64 as u64, 1));
                        }
                    }
                    Some(if m.attr(op, "inbounds").is_some() {
                        LLVMBuildInBoundsGEP2(b, et, ops[0], idx.as_mut_ptr(), idx.len() as u32, EMPTY)
                    } else {
                        LLVMBuildGEP2(b, et, ops[0], idx.as_mut_ptr(), idx.len() as u32, EMPTY)
                    })
                }
                "llvm.extractvalue" => {
                    let p = m.attr(op, "position").and_then(Attribute::as_int_list).unwrap_or_default();
                    let mut v = ops[0];
                    for i in p {
                        v = LLVMBuildExtractValue(b, v, i as u32, EMPTY);
                    }
                    Some(v)
                }
                "llvm.insertvalue" => {
                    let p = m.attr(op, "position").and_then(Attribute::as_int_list).unwrap_or_default();
                    Some(self.insert_nested(ops[0], ops[1], &p))
                }
                "llvm.extractelement" => Some(LLVMBuildExtractElement(b, ops[0], ops[1], EMPTY)),
                "llvm.insertelement" => Some(LLVMBuildInsertElement(b, ops[0], ops[1], ops[2], EMPTY)),
                "llvm.shufflevector" => {
                    let mask = m.attr(op, "mask").and_then(Attribute::as_int_list).unwrap_or_default();
                    let i32t = LLVMInt32TypeInContext(self.ctx);
                    let mut elems: Vec<_> = mask.iter().map(|&x| LLVMConstInt(i32t, x as i64 as u64, 1)).collect();
                    let mv = LLVMConstVector(elems.as_mut_ptr(), elems.len() as u32);
                    Some(LLVMBuildShuffleVector(b, ops[0], ops[1], mv, EMPTY))
                }
                "llvm.call" => {
                    let (callee, fty, args) = match m.attr(op, "callee").and_then(Attribute::as_symbol) {
                        Some(sym) => {
                            let (g, t) = *self
                                .functions
                                .get(sym)
                                .ok_or_else(|| unsupported(span, format!("call of unknown function '@{sym}'")))?;
                            (g, t, ops.clone())
                        }
                        None => {
                            let ft = m
                                .attr(op, "callee_type")
                                .and_then(Attribute::as_type)
                                .and_then(Type::as_function)
                                .ok_or_else(|| unsupported(span, "indirect llvm.call needs callee_type"))?;
                            (ops[0], self.fn_type(ft, false, span)?, ops[1..].to_vec())
                        }
                    };
                    let mut args = args;
                    let v = LLVMBuildCall2(b, fty, callee, args.as_mut_ptr(), args.len() as u32, EMPTY);
                    if d.results.is_empty() {
                        None
                    } else {
                        Some(v)
                    }
                }
                "llvm.br" => {
                    let s = &d.successors[0];
                    LLVMBuildBr(b, self.blocks[&s.block]);
                    self.add_incoming(s.block, &s.args, LLVMGetInsertBlock(b))?;
                    None
                }
                "llvm.cond_br" => {
                    let (s1, s2) = (&d.successors[0], &d.successors[1]);
                    let from = LLVMGetInsertBlock(b);
                    let t1 = self.blocks[&s1.block];
                    let mut t2 = self.blocks[&s2.block];
                    if s1.block == s2.block && !m.blocks[s2.block].args.is_empty() {
                        let fwd = LLVMAppendBasicBlockInContext(self.ctx, f, EMPTY);
                        LLVMPositionBuilderAtEnd(b, fwd);
                        LLVMBuildBr(b, t2);
                        self.add_incoming(s2.block, &s2.args, fwd)?;
                        LLVMPositionBuilderAtEnd(b, from);
                        t2 = fwd;
                        LLVMBuildCondBr(b, ops[0], t1, t2);
                        self.add_incoming(s1.block, &s1.args, from)?;
                    } else {
                        LLVMBuildCondBr(b, ops[0], t1, t2);
                        self.add_incoming(s1.block, &s1.args, from)?;
                        self.add_incoming(s2.block, &s2.args, from)?;
                    }
                    None
                }
                "llvm.return" => {
                    if ops.is_empty() {
                        LLVMBuildRetVoid(b);
                    } else {
                        LLVMBuildRet(b, ops[0]);
                    }
                    None
                }
                "llvm.unreachable" => {
                    LLVMBuildUnreachable(b);
                    None
                }
                _ => Some(self.intrinsic_call(op, &ops)?).filter(|_| !d.results.is_empty()),
            }
        };
        if let Some(v) = result {
            if d.results.len() == 1 {
                self.values.insert(d.results[0], v);
            }
        }
        Ok(())
    }

    /// `insertvalue` at a nested position: extract the inner aggregates, insert, rebuild.
    unsafe fn insert_nested(&self, agg: LLVMValueRef, v: LLVMValueRef, p: &[i128]) -> LLVMValueRef {
        if p.len() == 1 {
            return LLVMBuildInsertValue(self.builder, agg, v, p[0] as u32, EMPTY);
        }
        let inner = LLVMBuildExtractValue(self.builder, agg, p[0] as u32, EMPTY);
        let inner = self.insert_nested(inner, v, &p[1..]);
        LLVMBuildInsertValue(self.builder, agg, inner, p[0] as u32, EMPTY)
    }

    unsafe fn constant(&self, op: OpId, t: LLVMTypeRef, ty: &Type) -> Result<LLVMValueRef, TranslateError> {
        let m = self.m;
        let span = m.ops[op].span;
        let value = m.attr(op, "value").ok_or_else(|| unsupported(span, "llvm.mlir.constant without a value"))?;
        let scalar = |elem: &Type, et: LLVMTypeRef, int: Option<i128>, float: Option<f64>| -> LLVMValueRef {
            if elem.is_float() {
                LLVMConstReal(et, float.unwrap_or(int.unwrap_or(0) as f64))
            } else {
                let v = int.unwrap_or(float.unwrap_or(0.0) as i128);
                let words = [v as u64, (v >> 64) as u64];
                LLVMConstIntOfArbitraryPrecision(et, 2, words.as_ptr())
            }
        };
        Ok(match (value, ty) {
            (Attribute::Integer { value, .. }, _) => scalar(ty, t, Some(*value), None),
            (Attribute::Bool(v), _) => scalar(ty, t, Some(*v as i128), None),
            (Attribute::Float { value, .. }, _) => scalar(ty, t, None, Some(*value)),
            (Attribute::Dense { values, .. }, Type::Vector { shape, elem }) => {
                let et = self.ty(elem, span)?;
                let n = shape.iter().product::<u64>() as usize;
                let get = |i: usize| -> Result<LLVMValueRef, TranslateError> {
                    let j = if values.len() == 1 { 0 } else { i };
                    Ok(match values {
                        DenseValues::Int(v) => scalar(elem, et, Some(v[j]), None),
                        DenseValues::Float(v) => scalar(elem, et, None, Some(v[j])),
                        DenseValues::Bool(v) => scalar(elem, et, Some(v[j] as i128), None),
                        DenseValues::Hex(_) => return Err(unsupported(span, "hex dense constants")),
                    })
                };
                let mut elems = (0..n).map(get).collect::<Result<Vec<_>, _>>()?;
                LLVMConstVector(elems.as_mut_ptr(), n as u32)
            }
            (v, _) => return Err(unsupported(span, format!("constant {v}"))),
        })
    }

    /// Calls the LLVM intrinsic named by the op (`llvm.intr.X` or `llvm.X`), picking the
    /// overload whose signature matches the operands and results.
    unsafe fn intrinsic_call(&mut self, op: OpId, ops: &[LLVMValueRef]) -> Result<LLVMValueRef, TranslateError> {
        let m = self.m;
        let d = &m.ops[op];
        let span = d.span;
        let full = match d.name.strip_prefix("llvm.intr.") {
            Some(rest) => format!("llvm.{rest}"),
            None => d.name.clone(),
        };
        for (prefix, arch) in [("llvm.nvvm.", "nvptx64"), ("llvm.x86.", "x86_64"), ("llvm.aarch64.", "aarch64")] {
            if full.starts_with(prefix) && !self.options.arch.is_empty() && self.options.arch != arch {
                return Err(unsupported(
                    span,
                    format!("'{full}' is an {arch} intrinsic, but the target is {}", self.options.arch),
                ));
            }
        }
        let id = LLVMLookupIntrinsicID(full.as_ptr() as *const CChar, full.len());
        if id == 0 {
            return Err(unsupported(
                span,
                format!("unknown operation '{}' (no LLVM intrinsic named '{full}')", d.name),
            ));
        }
        let operand_types: Vec<LLVMTypeRef> = ops.iter().map(|&v| LLVMTypeOf(v)).collect();
        let result_types = d.results.iter().map(|&r| self.ty(m.ty(r), span)).collect::<Result<Vec<_>, _>>()?;
        let want_ret = match result_types.len() {
            0 => LLVMVoidTypeInContext(self.ctx),
            1 => result_types[0],
            _ => {
                let mut fs = result_types.clone();
                LLVMStructTypeInContext(self.ctx, fs.as_mut_ptr(), fs.len() as u32, 0)
            }
        };
        let decl = if LLVMIntrinsicIsOverloaded(id) == 0 {
            LLVMGetIntrinsicDeclaration(self.module, id, std::ptr::null_mut(), 0)
        } else {
            // Candidate overload lists, most common first. A wrong list can crash inside LLVM's
            // declaration builder, so each is first checked in a scratch module by the verifier,
            // which rejects a mis-mangled name or a mismatched signature with a message.
            let mut distinct: Vec<LLVMTypeRef> = Vec::new();
            for &t in &operand_types {
                if !distinct.contains(&t) {
                    distinct.push(t);
                }
            }
            let mut candidates: Vec<Vec<LLVMTypeRef>> = Vec::new();
            if result_types.len() == 1 {
                candidates.push(vec![result_types[0]]);
            }
            for &t in &operand_types {
                candidates.push(vec![t]);
            }
            candidates.push(distinct.clone());
            if result_types.len() == 1 {
                let mut v = vec![result_types[0]];
                v.extend(distinct.iter().copied());
                candidates.push(v);
            }
            if result_types.len() > 1 {
                candidates.push(vec![result_types[0]]);
            }
            // Intrinsics overloaded on several leading operands (`memcpy` on both pointers and
            // the length).
            for k in 2..=operand_types.len() {
                candidates.push(operand_types[..k].to_vec());
            }
            let mut found = None;
            for c in candidates {
                if let Some(name) = self.probe_overload(id, &c, &operand_types, want_ret) {
                    let existing = LLVMGetNamedFunction(self.module, cstr(&name).as_ptr());
                    let mut params = operand_types.clone();
                    let fty = LLVMFunctionType(want_ret, params.as_mut_ptr(), params.len() as u32, 0);
                    found = Some(if existing.is_null() {
                        LLVMAddFunction(self.module, cstr(&name).as_ptr(), fty)
                    } else {
                        existing
                    });
                    break;
                }
            }
            found.ok_or_else(|| {
                unsupported(span, format!("no overload of '{full}' takes these operand and result types"))
            })?
        };
        let fty = LLVMGlobalGetValueType(decl);
        if !self.signature_matches(fty, &operand_types, want_ret) {
            return Err(unsupported(span, format!("'{full}' does not take these operand and result types")));
        }
        let mut args = ops.to_vec();
        let call = LLVMBuildCall2(self.builder, fty, decl, args.as_mut_ptr(), args.len() as u32, EMPTY);
        if m.attr(op, "reassoc").is_some() {
            LLVMSetFastMathFlags(call, inkwell::llvm_sys::LLVMFastMathAllowReassoc);
        }
        if d.results.len() > 1 {
            for (i, &r) in d.results.iter().enumerate() {
                let v = LLVMBuildExtractValue(self.builder, call, i as u32, EMPTY);
                self.values.insert(r, v);
            }
        }
        Ok(call)
    }

    /// The mangled name for overload types `tys` if a call with these operand and result types
    /// passes LLVM's verifier.
    unsafe fn probe_overload(
        &self,
        id: u32,
        tys: &[LLVMTypeRef],
        operands: &[LLVMTypeRef],
        ret: LLVMTypeRef,
    ) -> Option<String> {
        use inkwell::llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
        let mut len = 0usize;
        let mut tys = tys.to_vec();
        let raw = LLVMIntrinsicCopyOverloadedName2(self.module, id, tys.as_mut_ptr(), tys.len(), &mut len);
        if raw.is_null() {
            return None;
        }
        let name = String::from_utf8_lossy(std::slice::from_raw_parts(raw as *const u8, len)).into_owned();
        LLVMDisposeMessage(raw as *mut CChar);
        let scratch = LLVMModuleCreateWithNameInContext(c"probe".as_ptr(), self.ctx);
        let mut params = operands.to_vec();
        let fty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let decl = LLVMAddFunction(scratch, cstr(&name).as_ptr(), fty);
        let void = LLVMVoidTypeInContext(self.ctx);
        let probe = LLVMAddFunction(scratch, c"probe".as_ptr(), LLVMFunctionType(void, std::ptr::null_mut(), 0, 0));
        let bb = LLVMAppendBasicBlockInContext(self.ctx, probe, EMPTY);
        let b = LLVMCreateBuilderInContext(self.ctx);
        LLVMPositionBuilderAtEnd(b, bb);
        // Zero constants satisfy `immarg` parameters.
        let mut args: Vec<LLVMValueRef> = operands.iter().map(|&t| LLVMConstNull(t)).collect();
        LLVMBuildCall2(b, fty, decl, args.as_mut_ptr(), args.len() as u32, EMPTY);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        let mut msg = std::ptr::null_mut();
        let failed = LLVMVerifyModule(scratch, LLVMVerifierFailureAction::LLVMReturnStatusAction, &mut msg) != 0;
        if !msg.is_null() {
            LLVMDisposeMessage(msg);
        }
        LLVMDisposeModule(scratch);
        (!failed).then_some(name)
    }

    unsafe fn signature_matches(&self, fty: LLVMTypeRef, operands: &[LLVMTypeRef], ret: LLVMTypeRef) -> bool {
        let n = LLVMCountParamTypes(fty) as usize;
        if n != operands.len() || LLVMGetReturnType(fty) != ret {
            return false;
        }
        let mut params = vec![std::ptr::null_mut(); n];
        LLVMGetParamTypes(fty, params.as_mut_ptr());
        params == operands
    }
}
