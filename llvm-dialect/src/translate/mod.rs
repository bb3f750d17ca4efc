//! llvm dialect -> LLVM IR, through the LLVM C API (inkwell's `llvm_sys`) for instruction
//! building: it treats scalar and vector operands alike, as LLVM does.
//!
//! Block arguments become phis created up front in every non-entry block; each branch adds its
//! incoming values. A `cond_br` whose two edges reach the same block goes through a forwarding
//! block on one edge, since a phi cannot tell two edges from one predecessor apart.

use inkwell::context::Context;
use inkwell::llvm_sys::core::*;
use inkwell::llvm_sys::prelude::*;
use inkwell::llvm_sys::LLVMVisibility;
use inkwell::module::Module as LlvmModule;
use std::collections::HashMap;
use std::ffi::CString;
use xcc_ir::types::FloatKind;
use xcc_ir::{Attribute, BlockId, Module, OpId, Span, Type, ValueId};

mod atomics;
pub(crate) mod globals;
mod intrinsics;
mod rules;

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
    /// The CPU compiled for (`sm_90` on `nvptx64`): NVVM intrinsics newer than it are rejected
    /// here, as LLVM would abort selecting them.
    pub cpu: String,
    /// The most bytes a global filled with one non-zero value may be written out to (a zero
    /// fill costs nothing): the driver's `--fold-budget`, or its default for the input.
    pub constant_budget: u64,
    /// The part of the module to define, where it is split into codegen units
    /// ([`crate::units`]); the whole module where `None`.
    pub unit: Option<crate::units::Unit>,
}

/// The compute capability an `sm_NN` (or `sm_NNa`) names.
pub fn sm_version(cpu: &str) -> Option<u32> {
    cpu.strip_prefix("sm_")?.trim_end_matches(|c: char| c.is_ascii_alphabetic()).parse().ok()
}

/// Top-level operations: functions and globals.
const TOP_LEVEL: &[&str] = &["llvm.func", "llvm.mlir.global"];

/// Whether the translation has a rule for this llvm-dialect operation (the op-table
/// completeness test asks it for every operation the llvm dialect's table marks translated).
pub fn translates(name: &str) -> bool {
    rules::rule(name).is_some() || TOP_LEVEL.contains(&name)
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
        let f = unsafe { LLVMAddFunction(self.module, cstr(self.link_name(&name)).as_ptr(), fty) };
        // A declaration stays external whatever its symbol visibility: the generic form gives it
        // an empty region, which is no body.
        let has_body = m.ops[op].regions.first().is_some_and(|&r| !m.regions[r].blocks.is_empty());
        let internal = matches!(m.attr(op, "linkage").and_then(Attribute::as_str), Some("internal" | "private"))
            || (m.attr(op, "sym_visibility").and_then(Attribute::as_str) == Some("private") && has_body);
        if self.hidden(&name) {
            unsafe { LLVMSetVisibility(f, LLVMVisibility::LLVMHiddenVisibility) };
        } else if internal && self.defines(op, &name) {
            unsafe { LLVMSetLinkage(f, inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage) };
        }
        if self.options.nvptx && m.attr(op, "nvvm.kernel").is_some() {
            unsafe { LLVMSetFunctionCallConv(f, PTX_KERNEL_CC) };
        }
        // Upstream's `target_cpu` / `target_features` (a string here): code for one CPU inside a
        // module built for another, as the per-CPU versions of a dispatched library are.
        for (attr, key) in [("target_cpu", "target-cpu"), ("target_features", "target-features")] {
            if let Some(value) = m.attr(op, attr).and_then(Attribute::as_str) {
                unsafe {
                    let a = LLVMCreateStringAttribute(
                        self.ctx,
                        key.as_ptr() as *const CChar,
                        key.len() as u32,
                        value.as_ptr() as *const CChar,
                        value.len() as u32,
                    );
                    LLVMAddAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, a);
                }
            }
        }
        // Upstream's `passthrough`: LLVM function attributes by name (`["optsize"]`).
        if let Some(Attribute::Array(items)) = m.attr(op, "passthrough") {
            for item in items.iter().filter_map(Attribute::as_str) {
                unsafe {
                    let kind = LLVMGetEnumAttributeKindForName(item.as_ptr() as *const CChar, item.len());
                    if kind == 0 {
                        return Err(unsupported(span, format!("unknown LLVM function attribute '{item}'")));
                    }
                    let a = LLVMCreateEnumAttribute(self.ctx, kind, 0);
                    LLVMAddAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, a);
                }
            }
        }
        if let Some(Attribute::Array(params)) = m.attr(op, "arg_attrs") {
            for (i, dict) in params.iter().enumerate() {
                self.add_param_attributes(f, i as u32 + 1, dict);
            }
        }
        self.functions.insert(name, (f, fty));
        Ok(())
    }

    /// Upstream's parameter attributes that say what LLVM may assume of an argument
    /// (`{llvm.noalias, llvm.dereferenceable = 64 : i64}`); others are left out, as before.
    fn add_param_attributes(&self, f: LLVMValueRef, index: u32, dict: &Attribute) {
        let Attribute::Dict(entries) = dict else { return };
        for (key, value) in entries {
            let (kind, value) = match (key.as_str(), value.as_int()) {
                ("llvm.noalias", _) => ("noalias", 0),
                ("llvm.nonnull", _) => ("nonnull", 0),
                ("llvm.noundef", _) => ("noundef", 0),
                ("llvm.readonly", _) => ("readonly", 0),
                ("llvm.dereferenceable", Some(n)) if n > 0 => ("dereferenceable", n as u64),
                ("llvm.align", Some(n)) if n > 0 && (n as u64).is_power_of_two() => ("align", n as u64),
                _ => continue,
            };
            unsafe {
                let id = LLVMGetEnumAttributeKindForName(kind.as_ptr() as *const CChar, kind.len());
                LLVMAddAttributeAtIndex(f, index, LLVMCreateEnumAttribute(self.ctx, id, value));
            }
        }
    }

    /// Whether the unit being translated defines a top-level symbol (all are, without units).
    fn defines(&self, op: OpId, symbol: &str) -> bool {
        self.options.unit.as_ref().is_none_or(|u| u.defines(self.m, op, symbol))
    }

    /// The name a symbol has in the LLVM module.
    fn link_name<'s>(&'s self, symbol: &'s str) -> &'s str {
        self.options.unit.as_ref().map_or(symbol, |u| u.link_name(symbol))
    }

    /// Whether an internal symbol is shared between units, hidden ([`crate::units::Unit::hidden`]).
    fn hidden(&self, symbol: &str) -> bool {
        self.options.unit.as_ref().is_some_and(|u| u.hidden(symbol))
    }

    fn define_function(&mut self, op: OpId) -> Result<(), TranslateError> {
        let m = self.m;
        if !self.defines(op, m.sym_name(op).unwrap_or_default()) {
            return Ok(());
        }
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

    fn op(&mut self, op: OpId, function: LLVMValueRef) -> Result<(), TranslateError> {
        let m = self.m;
        let d = &m.ops[op];
        let operands = d.operands.iter().map(|&v| self.v(v)).collect::<Result<Vec<_>, _>>()?;
        let result_type = match d.results.first() {
            Some(&r) => Some(self.ty(m.ty(r), d.span)?),
            None => None,
        };
        let inst = rules::Inst { op, data: d, span: d.span, operands, result_type, function };
        let result = unsafe {
            match rules::rule(&d.name) {
                Some(rule) => rule.apply(self, &inst)?,
                None => Some(self.intrinsic_call(op, &inst.operands)?).filter(|_| !d.results.is_empty()),
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
        Ok(match (value, ty) {
            (Attribute::Integer { value, .. }, _) => globals::scalar(ty, t, Some(*value), None),
            (Attribute::Bool(v), _) => globals::scalar(ty, t, Some(*v as i128), None),
            (Attribute::Float { value, .. }, _) => globals::scalar(ty, t, None, Some(*value)),
            // Laid out over vectors and arrays of them, as a global's initializer.
            (Attribute::Dense { .. }, Type::Vector { .. } | Type::LlvmArray { .. }) => {
                self.initializer(value, ty, span)?
            }
            (v, _) => return Err(unsupported(span, format!("constant {v}"))),
        })
    }
}
