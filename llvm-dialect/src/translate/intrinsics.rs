//! Operations that are calls of LLVM intrinsics (`llvm.intr.NAME`, or any `llvm.NAME` that is
//! not one of the dialect's own): looked up in LLVM's intrinsic table, the overload chosen by
//! matching the operand and result types.

use super::{cstr, unsupported, CChar, TranslateError, Translator, EMPTY};
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use xcc_ir::{Attribute, OpId};

/// An `immarg` parameter's LLVM type.
#[derive(Clone, Copy)]
enum Imm {
    I1,
    I32,
    I64,
    F64,
}

/// Intrinsics whose trailing `immarg` parameters upstream's llvm dialect writes as properties
/// (`"llvm.intr.ctlz"(%x) <{is_zero_poison = false}>`), in parameter order; the call passes
/// them as constants after the operands.
const IMMARG_PROPERTIES: &[(&str, &[(&str, Imm)])] = &[
    ("llvm.ctlz", &[("is_zero_poison", Imm::I1)]),
    ("llvm.cttz", &[("is_zero_poison", Imm::I1)]),
    ("llvm.abs", &[("is_int_min_poison", Imm::I1)]),
    ("llvm.memcpy", &[("isVolatile", Imm::I1)]),
    ("llvm.memmove", &[("isVolatile", Imm::I1)]),
    ("llvm.memset", &[("isVolatile", Imm::I1)]),
    ("llvm.is.fpclass", &[("bit", Imm::I32)]),
    ("llvm.prefetch", &[("rw", Imm::I32), ("hint", Imm::I32), ("cache", Imm::I32)]),
    ("llvm.vector.insert", &[("pos", Imm::I64)]),
    ("llvm.vector.extract", &[("pos", Imm::I64)]),
    ("llvm.expect.with.probability", &[("prob", Imm::F64)]),
];

/// NVVM intrinsics of TF32 tensor cores (sm_80 on), which LLVM cannot select for older GPUs.
const TF32_INTRINSICS: &[&str] = &["llvm.nvvm.wmma.m16n16k8.", "llvm.nvvm.f2tf32."];

impl Translator<'_> {
    /// Calls the LLVM intrinsic named by the op (`llvm.intr.X` or `llvm.X`), picking the
    /// overload whose signature matches the operands and results.
    pub(super) unsafe fn intrinsic_call(
        &mut self,
        op: OpId,
        ops: &[LLVMValueRef],
    ) -> Result<LLVMValueRef, TranslateError> {
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
        let sm = super::sm_version(&self.options.cpu).unwrap_or(u32::MAX);
        if sm < 80 && TF32_INTRINSICS.iter().any(|p| full.starts_with(p)) {
            return Err(unsupported(
                span,
                format!("'{full}' needs tensor cores with TF32, sm_80 or newer (the target is sm_{sm})"),
            ));
        }
        let id = LLVMLookupIntrinsicID(full.as_ptr() as *const CChar, full.len());
        if id == 0 {
            return Err(unsupported(
                span,
                format!("unknown operation '{}' (no LLVM intrinsic named '{full}')", d.name),
            ));
        }
        let mut ops = ops.to_vec();
        ops.extend(self.immarg_properties(op, &full));
        let ops = &ops[..];
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
            // Loads overloaded on the result and the pointer (`masked.load`).
            if let (1, Some(&first)) = (result_types.len(), operand_types.first()) {
                candidates.push(vec![result_types[0], first]);
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
        if let Some(align) = m.attr(op, "alignment") {
            let align = align.as_int().filter(|&a| a > 0 && a <= 1 << 32 && a & (a - 1) == 0).ok_or_else(|| {
                unsupported(span, format!("'{full}' needs an alignment that is a power of two, not {align}"))
            })?;
            self.align_pointer_argument(call, &operand_types, align);
        }
        if d.results.len() > 1 {
            for (i, &r) in d.results.iter().enumerate() {
                let v = LLVMBuildExtractValue(self.builder, call, i as u32, EMPTY);
                self.values.insert(r, v);
            }
        }
        Ok(call)
    }

    /// The constants for the intrinsic's `immarg` properties that the op carries.
    unsafe fn immarg_properties(&self, op: OpId, full: &str) -> Vec<LLVMValueRef> {
        let Some((_, props)) = IMMARG_PROPERTIES.iter().find(|(name, _)| *name == full) else { return Vec::new() };
        let mut out = Vec::new();
        for &(name, imm) in *props {
            let Some(a) = self.m.attr(op, name) else { break };
            let int = match a {
                Attribute::Bool(b) => *b as i128,
                Attribute::Integer { value, .. } => *value,
                _ => 0,
            };
            out.push(match imm {
                Imm::I1 => LLVMConstInt(LLVMInt1TypeInContext(self.ctx), int as u64, 0),
                Imm::I32 => LLVMConstInt(LLVMInt32TypeInContext(self.ctx), int as u64, 1),
                Imm::I64 => LLVMConstInt(LLVMInt64TypeInContext(self.ctx), int as u64, 1),
                Imm::F64 => {
                    let f = if let Attribute::Float { value, .. } = a { *value } else { int as f64 };
                    LLVMConstReal(LLVMDoubleTypeInContext(self.ctx), f)
                }
            });
        }
        out
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

    /// An intrinsic's `alignment` (the masked loads and stores, as upstream spells them) is the
    /// `align` attribute of its pointer argument, which is how LLVM 22 takes it.
    unsafe fn align_pointer_argument(&self, call: LLVMValueRef, operands: &[LLVMTypeRef], align: i128) {
        let Some(at) =
            operands.iter().position(|&t| LLVMGetTypeKind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind)
        else {
            return;
        };
        let kind = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
        let attr = LLVMCreateEnumAttribute(self.ctx, kind, align as u64);
        LLVMAddCallSiteAttribute(call, at as u32 + 1, attr);
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
