//! Custom assembly forms, one parse rule per operation family, for both spellings.
//!
//! The original standard dialect's names (`addi`, `cond_br`, `alloc`, `for`, ...) are mapped onto
//! the upstream names by [`canonical_name`]; a few original forms differ from upstream in syntax
//! (`cmpi "slt"` vs `arith.cmpi slt`, `dim %m, 0` vs `memref.dim %m, %c0`) and are accepted here.

use super::lexer::Tok;
use super::{OperandRef, PResult, Parser};
use crate::affine::{AffineMap, IntegerSet};
use crate::attributes::Attribute;
use crate::diagnostics::{Diagnostic, Span};
use crate::module::OpSpec;
use crate::ops;
use crate::types::{FunctionType, Type};

/// Maps an operation name of either spelling to the upstream name.
pub fn canonical_name(name: &str) -> &str {
    let name = name.strip_prefix("std.").unwrap_or(name);
    match name {
        "func" => "func.func",
        "addi" => "arith.addi",
        "subi" => "arith.subi",
        "muli" => "arith.muli",
        "divis" => "arith.divsi",
        "diviu" => "arith.divui",
        "remis" => "arith.remsi",
        "remiu" => "arith.remui",
        "addf" => "arith.addf",
        "subf" => "arith.subf",
        "mulf" => "arith.mulf",
        "divf" => "arith.divf",
        "cmpi" => "arith.cmpi",
        "cmpf" => "arith.cmpf",
        "select" => "arith.select",
        "constant" => "arith.constant",
        "index_cast" => "arith.index_cast",
        "br" => "cf.br",
        "cond_br" | "br_cond" => "cf.cond_br",
        "return" => "func.return",
        "call" => "func.call",
        "call_indirect" => "func.call_indirect",
        "alloc" => "memref.alloc",
        "alloc_static" => "memref.alloc_static",
        "dealloc" => "memref.dealloc",
        "load" => "memref.load",
        "store" => "memref.store",
        "dim" => "memref.dim",
        "memref_cast" => "memref.cast",
        // The original view/reshape re-index a buffer through affine maps; upstream has no such
        // operations, so they keep the original dialect's name.
        "view" => "std.view",
        "reshape" => "std.reshape",
        "dma_start" => "memref.dma_start",
        "dma_wait" => "memref.dma_wait",
        "extract_element" => "vector.extractelement",
        "affine_apply" => "affine.apply",
        "for" => "affine.for",
        "if" => "affine.if",
        other => other,
    }
}

pub(crate) fn canonical_generic_name(name: &str) -> String {
    canonical_name(name).to_string()
}

/// Upstream's generic form puts branch operands in the operand list with `operandSegmentSizes`;
/// xcc keeps them on the successors.
pub(crate) fn normalize_generic_successors(spec: &mut OpSpec) {
    if spec.name == "llvm.call" {
        // Upstream's generic llvm.call carries segment sizes for operand bundles, which xcc
        // does not model.
        spec.attrs.retain(|(k, _)| k != "operandSegmentSizes" && k != "op_bundle_sizes");
    }
    if spec.successors.iter().any(|s| !s.args.is_empty()) {
        return;
    }
    match spec.name.as_str() {
        "cf.br" | "llvm.br" if spec.successors.len() == 1 => {
            spec.successors[0].args = std::mem::take(&mut spec.operands);
        }
        "cf.cond_br" | "llvm.cond_br" if spec.successors.len() == 2 => {
            let seg = spec.attrs.iter().position(|(k, _)| k == "operandSegmentSizes");
            let sizes = seg.and_then(|i| spec.attrs[i].1.as_int_list());
            if let (Some(i), Some(sizes)) = (seg, sizes) {
                if sizes.len() == 3 && sizes[0] == 1 {
                    let mut rest = spec.operands.split_off(1);
                    let second = rest.split_off(sizes[1] as usize);
                    spec.successors[0].args = rest;
                    spec.successors[1].args = second;
                    spec.attrs.remove(i);
                }
            }
        }
        _ => {}
    }
}

const INT_BINARY: &[&str] = &[
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.divsi",
    "arith.divui",
    "arith.remsi",
    "arith.remui",
    "arith.ceildivsi",
    "arith.floordivsi",
    "arith.ceildivui",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.shli",
    "arith.shrsi",
    "arith.shrui",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
];
const FLOAT_BINARY: &[&str] = &[
    "arith.addf",
    "arith.subf",
    "arith.mulf",
    "arith.divf",
    "arith.remf",
    "arith.maximumf",
    "arith.minimumf",
    "arith.maxnumf",
    "arith.minnumf",
    "math.powf",
    "math.atan2",
    "math.copysign",
];
const UNARY: &[&str] = &[
    "arith.negf",
    "math.sqrt",
    "math.rsqrt",
    "math.exp",
    "math.exp2",
    "math.log",
    "math.log2",
    "math.log10",
    "math.tanh",
    "math.sin",
    "math.cos",
    "math.absf",
    "math.absi",
    "math.erf",
    "math.floor",
    "math.ceil",
    "math.round",
    "math.roundeven",
    "math.trunc",
    "math.ctlz",
    "math.cttz",
    "math.ctpop",
];
const CASTS: &[&str] = &[
    "arith.extsi",
    "arith.extui",
    "arith.trunci",
    "arith.extf",
    "arith.truncf",
    "arith.sitofp",
    "arith.uitofp",
    "arith.fptosi",
    "arith.fptoui",
    "arith.index_cast",
    "arith.index_castui",
    "arith.bitcast",
];
const LLVM_BINARY: &[&str] = &[
    "llvm.add",
    "llvm.sub",
    "llvm.mul",
    "llvm.sdiv",
    "llvm.udiv",
    "llvm.srem",
    "llvm.urem",
    "llvm.and",
    "llvm.or",
    "llvm.xor",
    "llvm.shl",
    "llvm.lshr",
    "llvm.ashr",
    "llvm.fadd",
    "llvm.fsub",
    "llvm.fmul",
    "llvm.fdiv",
    "llvm.frem",
];
const LLVM_CASTS: &[&str] = &[
    "llvm.sext",
    "llvm.zext",
    "llvm.trunc",
    "llvm.sitofp",
    "llvm.uitofp",
    "llvm.fptosi",
    "llvm.fptoui",
    "llvm.fpext",
    "llvm.fptrunc",
    "llvm.bitcast",
    "llvm.ptrtoint",
    "llvm.inttoptr",
    "llvm.addrspacecast",
];

pub(crate) fn parse_custom_op(p: &mut Parser, written: &str, span: Span, num_results: u32) -> PResult<OpSpec> {
    let name = canonical_name(written);
    let spec = OpSpec::new(name, span);
    if INT_BINARY.contains(&name) || FLOAT_BINARY.contains(&name) || LLVM_BINARY.contains(&name) {
        let refs = p.parse_operand_refs()?;
        expect_count(&refs, 2, name, span)?;
        let attrs = parse_flags_and_attrs(p)?;
        p.expect_punct(":")?;
        let ty = p.parse_type()?;
        let ops = p.resolve_same(&refs, &ty)?;
        return Ok(with_attrs(spec.operands(ops).results([ty]), attrs));
    }
    if UNARY.contains(&name) || name == "math.fma" || name == "vector.fma" {
        let refs = p.parse_operand_refs()?;
        expect_count(&refs, if name.ends_with("fma") { 3 } else { 1 }, name, span)?;
        let attrs = parse_flags_and_attrs(p)?;
        p.expect_punct(":")?;
        let ty = p.parse_type()?;
        let ops = p.resolve_same(&refs, &ty)?;
        return Ok(with_attrs(spec.operands(ops).results([ty]), attrs));
    }
    if CASTS.contains(&name)
        || LLVM_CASTS.contains(&name)
        || name == "memref.cast"
        || name == "vector.broadcast"
        || name == "vector.splat" && false
    {
        let r = p.parse_operand_ref()?;
        let attrs = parse_flags_and_attrs(p)?;
        p.expect_punct(":")?;
        let from = p.parse_type()?;
        p.expect_ident_word("to")?;
        let to = p.parse_type()?;
        let v = p.resolve(&r, &from)?;
        return Ok(with_attrs(spec.operands([v]).results([to]), attrs));
    }
    match name {
        "func.func" | "llvm.func" => parse_func(p, spec, written),
        "arith.constant" | "llvm.mlir.constant" => parse_constant(p, spec),
        "arith.cmpi" | "arith.cmpf" | "llvm.icmp" | "llvm.fcmp" => parse_cmp(p, spec),
        "arith.select" | "llvm.select" => {
            let refs = p.parse_operand_refs()?;
            expect_count(&refs, 3, name, span)?;
            let attrs = parse_flags_and_attrs(p)?;
            p.expect_punct(":")?;
            let first = p.parse_type()?;
            let (cond_ty, ty) = if p.eat_punct(",")? { (first, p.parse_type()?) } else { (first.with_element(Type::i1()), first) };
            let c = p.resolve(&refs[0], &cond_ty)?;
            let ops = p.resolve_same(&refs[1..], &ty)?;
            Ok(with_attrs(spec.operands([c]).operands(ops).results([ty]), attrs))
        }
        "func.return" | "llvm.return" | "scf.yield" | "affine.yield" => {
            let refs = p.parse_operand_refs()?;
            let mut spec = spec;
            if !refs.is_empty() {
                p.expect_punct(":")?;
                let types = p.parse_type_list_no_parens()?;
                expect_types(&refs, &types, span)?;
                spec = spec.operands(p.resolve_all(&refs, &types)?);
            }
            Ok(spec)
        }
        "func.call" | "llvm.call" => {
            let (callee, _) = p.expect_symbol()?;
            p.expect_punct("(")?;
            let refs = p.parse_operand_refs()?;
            p.expect_punct(")")?;
            let attrs = parse_flags_and_attrs(p)?;
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            expect_types(&refs, &ft.inputs, span)?;
            let ops = p.resolve_all(&refs, &ft.inputs)?;
            let results: Vec<Type> = ft.results.into_iter().filter(|t| *t != Type::LlvmVoid).collect();
            Ok(with_attrs(spec.operands(ops).results(results).attr("callee", Attribute::symbol(callee)), attrs))
        }
        "func.call_indirect" => {
            let callee = p.parse_operand_ref()?;
            p.expect_punct("(")?;
            let refs = p.parse_operand_refs()?;
            p.expect_punct(")")?;
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            expect_types(&refs, &ft.inputs, span)?;
            let f = p.resolve(&callee, &Type::Function(ft.clone()))?;
            let ops = p.resolve_all(&refs, &ft.inputs)?;
            Ok(spec.operands([f]).operands(ops).results(ft.results))
        }
        "func.constant" => {
            let (sym, _) = p.expect_symbol()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            Ok(spec.results([ty]).attr("value", Attribute::symbol(sym)))
        }
        "cf.br" | "llvm.br" => {
            let (label, args) = p.parse_successor()?;
            let s = p.finish_successor(label, args)?;
            Ok(spec.successor(s.block, s.args))
        }
        "cf.cond_br" | "llvm.cond_br" => {
            let c = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let (l1, a1) = p.parse_successor()?;
            p.expect_punct(",")?;
            let (l2, a2) = p.parse_successor()?;
            let c = p.resolve(&c, &Type::i1())?;
            let s1 = p.finish_successor(l1, a1)?;
            let s2 = p.finish_successor(l2, a2)?;
            Ok(spec.operands([c]).successor(s1.block, s1.args).successor(s2.block, s2.args))
        }
        "memref.alloc" | "memref.alloca" => {
            let mut dyn_refs = Vec::new();
            let mut sym_refs = Vec::new();
            if p.eat_punct("(")? {
                dyn_refs = p.parse_operand_refs()?;
                p.expect_punct(")")?;
            }
            if p.eat_punct("[")? {
                sym_refs = p.parse_operand_refs()?;
                p.expect_punct("]")?;
            }
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            let mut ops = p.resolve_same(&dyn_refs, &Type::Index)?;
            ops.extend(p.resolve_same(&sym_refs, &Type::Index)?);
            let seg = Attribute::DenseArray { elem: Type::i32(), values: vec![dyn_refs.len() as i128, sym_refs.len() as i128] };
            Ok(with_attrs(spec.operands(ops).results([ty]).attr("operandSegmentSizes", seg), attrs))
        }
        "memref.alloc_static" => {
            p.expect_punct("(")?;
            let (addr, _) = p.parse_int("a base address")?;
            p.expect_punct(")")?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            Ok(spec.results([ty]).attr("base", Attribute::i64(addr as i64)))
        }
        "memref.subview" => {
            // `memref.subview %src[offsets][sizes][strides] : T to U`, each entry `%v` or an integer.
            let src = p.parse_operand_ref()?;
            let mut lists = Vec::new();
            for _ in 0..3 {
                lists.push(parse_mixed_list(p)?);
            }
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let from = p.parse_type()?;
            p.expect_ident_word("to")?;
            let to = p.parse_type()?;
            let mut ops = vec![p.resolve(&src, &from)?];
            let mut seg = vec![1i128];
            let mut spec = spec;
            for (key, (statics, dyns)) in ["static_offsets", "static_sizes", "static_strides"].iter().zip(lists) {
                seg.push(dyns.len() as i128);
                ops.extend(p.resolve_same(&dyns, &Type::Index)?);
                spec = spec.attr(*key, Attribute::DenseArray { elem: Type::i64(), values: statics });
            }
            let seg = Attribute::DenseArray { elem: Type::i32(), values: seg };
            Ok(with_attrs(spec.operands(ops).results([to]).attr("operandSegmentSizes", seg), attrs))
        }
        "memref.view" => {
            // `memref.view %buf[%byte_shift][%dyn_sizes] : memref<Nxi8> to memref<?x4xf32>`
            let src = p.parse_operand_ref()?;
            let shift = parse_index_list(p)?;
            let sizes = parse_index_list(p)?;
            p.expect_punct(":")?;
            let from = p.parse_type()?;
            p.expect_ident_word("to")?;
            let to = p.parse_type()?;
            if shift.len() != 1 {
                return Err(Diagnostic::new(span, "memref.view takes exactly one byte shift"));
            }
            let mut ops = vec![p.resolve(&src, &from)?];
            ops.extend(p.resolve_same(&shift, &Type::Index)?);
            ops.extend(p.resolve_same(&sizes, &Type::Index)?);
            Ok(spec.operands(ops).results([to]))
        }
        "memref.reshape" => {
            // `memref.reshape %src(%shape) : (memref<4x1xf32>, memref<1xindex>) -> memref<4xf32>`
            let src = p.parse_operand_ref()?;
            p.expect_punct("(")?;
            let shape = p.parse_operand_ref()?;
            p.expect_punct(")")?;
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            if ft.inputs.len() != 2 || ft.results.len() != 1 {
                return Err(Diagnostic::new(span, "memref.reshape's type is (source, shape) -> result"));
            }
            let ops = vec![p.resolve(&src, &ft.inputs[0])?, p.resolve(&shape, &ft.inputs[1])?];
            Ok(spec.operands(ops).results(ft.results))
        }
        "std.view" => {
            // `view T1 -> T2 (dims) [syms] %src : T1`
            let from = p.parse_type()?;
            p.expect_punct("->")?;
            let to = p.parse_type()?;
            let (dims, syms) = parse_dims_and_symbols(p)?;
            let src = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let ty_span = p.peek_span();
            let src_ty = p.parse_type()?;
            if src_ty != from {
                return Err(Diagnostic::new(ty_span, format!("the source has type {src_ty}, but the view is declared from {from}")));
            }
            let mut ops = vec![p.resolve(&src, &src_ty)?];
            ops.extend(p.resolve_same(&dims, &Type::Index)?);
            ops.extend(p.resolve_same(&syms, &Type::Index)?);
            let seg = Attribute::DenseArray { elem: Type::i32(), values: vec![1, dims.len() as i128, syms.len() as i128] };
            Ok(spec.operands(ops).results([to]).attr("operandSegmentSizes", seg))
        }
        "std.reshape" => {
            // `reshape %src : T1 (dims)[syms] to (T1 -> T2)` (the spec's example) or `... : T2` (its grammar)
            let src = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let from = p.parse_type()?;
            let (dims, syms) = parse_dims_and_symbols(p)?;
            let to = if p.eat_ident("to")? {
                p.expect_punct("(")?;
                let a_span = p.peek_span();
                let a = p.parse_type()?;
                if a != from {
                    return Err(Diagnostic::new(a_span, format!("the reshape is declared from {a}, but the source has type {from}")));
                }
                p.expect_punct("->")?;
                let b = p.parse_type()?;
                p.expect_punct(")")?;
                b
            } else {
                p.expect_punct(":")?;
                p.parse_type()?
            };
            let mut ops = vec![p.resolve(&src, &from)?];
            ops.extend(p.resolve_same(&dims, &Type::Index)?);
            ops.extend(p.resolve_same(&syms, &Type::Index)?);
            let seg = Attribute::DenseArray { elem: Type::i32(), values: vec![1, dims.len() as i128, syms.len() as i128] };
            Ok(spec.operands(ops).results([to]).attr("operandSegmentSizes", seg))
        }
        "memref.get_global" => {
            let (sym, _) = p.expect_symbol()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            Ok(spec.results([ty]).attr("name", Attribute::symbol(sym)))
        }
        "memref.global" => {
            // `memref.global "private" constant @w : memref<4xf32> = dense<...>`
            let mut spec = spec;
            if let (Tok::Str(vis), _) = p.peek()? {
                p.next()?;
                spec = spec.attr("sym_visibility", Attribute::String(vis));
            }
            if p.eat_ident("constant")? {
                spec = spec.attr("constant", Attribute::Unit);
            }
            let (sym, _) = p.expect_symbol()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            spec = spec.attr("sym_name", Attribute::String(sym)).attr("type", Attribute::Type(ty));
            if p.eat_punct("=")? {
                spec = spec.attr("initial_value", p.parse_attribute()?);
            }
            Ok(spec)
        }
        "memref.dealloc" => {
            let r = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            Ok(spec.operands([p.resolve(&r, &ty)?]))
        }
        "vector.extractelement" if is_typed_position(p) => {
            // `vector.extractelement %v[%i : index] : vector<4xf32>`
            let v = p.parse_operand_ref()?;
            p.expect_punct("[")?;
            let i = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let it = p.parse_type()?;
            p.expect_punct("]")?;
            p.expect_punct(":")?;
            let vt = p.parse_type()?;
            let elem = vt.element_or_self().clone();
            Ok(spec.operands([p.resolve(&v, &vt)?, p.resolve(&i, &it)?]).results([elem]))
        }
        "vector.extract" | "vector.insert" => {
            // `vector.extract %v[1, %i] : f32 from vector<2x4xf32>`, `vector.insert %s, %v[2] : f32 into vector<4xf32>`
            let s = if name == "vector.insert" {
                let s = p.parse_operand_ref()?;
                p.expect_punct(",")?;
                Some(s)
            } else {
                None
            };
            let v = p.parse_operand_ref()?;
            let (statics, dyns) = parse_mixed_list(p)?;
            p.expect_punct(":")?;
            let et = p.parse_type()?;
            p.expect_ident_word(if s.is_some() { "into" } else { "from" })?;
            let vt = p.parse_type()?;
            let mut ops = Vec::new();
            if let Some(s) = &s {
                ops.push(p.resolve(s, &et)?);
            }
            ops.push(p.resolve(&v, &vt)?);
            ops.extend(p.resolve_same(&dyns, &Type::Index)?);
            let result = if s.is_some() { vt } else { et };
            Ok(spec.operands(ops).results([result]).attr("static_position", Attribute::DenseArray { elem: Type::i64(), values: statics }))
        }
        "affine.load" | "affine.store" => {
            let v = if name == "affine.store" {
                let v = p.parse_operand_ref()?;
                p.expect_punct(",")?;
                Some(v)
            } else {
                None
            };
            let m = p.parse_operand_ref()?;
            let (map, refs) = super::affine_syntax::parse_ssa_affine_list(p)?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            let Type::MemRef(mt) = &ty else {
                return Err(Diagnostic::new(span, format!("'{written}' needs a memref type, not {ty}")));
            };
            let mut ops = Vec::new();
            if let Some(v) = &v {
                ops.push(p.resolve(v, &mt.elem)?);
            }
            ops.push(p.resolve(&m, &ty)?);
            ops.extend(p.resolve_same(&refs, &Type::Index)?);
            let spec = spec.operands(ops).attr("map", Attribute::AffineMap(map));
            Ok(if v.is_some() { spec } else { spec.results([(*mt.elem).clone()]) })
        }
        "llvm.alloca" => {
            // `llvm.alloca %n x T {alignment = 8} : (i64) -> !llvm.ptr`
            let n = p.parse_operand_ref()?;
            p.expect_ident_word("x")?;
            let elem = p.parse_type()?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            if ft.inputs.len() != 1 || ft.results.len() != 1 {
                return Err(Diagnostic::new(span, "llvm.alloca's type is (count type) -> pointer type"));
            }
            let spec = spec.operands([p.resolve(&n, &ft.inputs[0])?]).results(ft.results).attr("elem_type", Attribute::Type(elem));
            Ok(with_attrs(spec, attrs))
        }
        "memref.load" | "vector.extractelement" | "tensor.extract" => {
            let m = p.parse_operand_ref()?;
            let idx = parse_index_list(p)?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let ty_span = p.peek_span();
            let ty = p.parse_type()?;
            let elem = match &ty {
                Type::MemRef(mt) => (*mt.elem).clone(),
                Type::Vector { elem, .. } | Type::Tensor { elem, .. } => (**elem).clone(),
                _ => return Err(Diagnostic::new(ty_span, format!("'{written}' needs a memref, vector or tensor type, not {ty}"))),
            };
            let name = match (&ty, name) {
                (Type::Tensor { .. }, _) => "tensor.extract",
                (Type::Vector { .. }, _) => "vector.extractelement",
                (_, n) => n,
            };
            let m = p.resolve(&m, &ty)?;
            let idx = p.resolve_same(&idx, &Type::Index)?;
            let spec = OpSpec::new(name, span);
            Ok(with_attrs(spec.operands([m]).operands(idx).results([elem]), attrs))
        }
        "memref.store" => {
            let v = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let m = p.parse_operand_ref()?;
            let idx = parse_index_list(p)?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let ty_span = p.peek_span();
            let ty = p.parse_type()?;
            let Type::MemRef(mt) = &ty else {
                return Err(Diagnostic::new(ty_span, format!("'{written}' needs a memref type, not {ty}")));
            };
            let v = p.resolve(&v, &mt.elem)?;
            let m = p.resolve(&m, &ty)?;
            let idx = p.resolve_same(&idx, &Type::Index)?;
            Ok(with_attrs(spec.operands([v, m]).operands(idx), attrs))
        }
        "memref.dim" | "tensor.dim" => {
            let m = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let index = if let (Tok::Int(_), _) = p.peek()? { Some(p.parse_int("a dimension index")?.0) } else { None };
            let idx_ref = if index.is_none() { Some(p.parse_operand_ref()?) } else { None };
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            let name = if matches!(ty, Type::Tensor { .. }) { "tensor.dim" } else { "memref.dim" };
            let m = p.resolve(&m, &ty)?;
            let mut spec = OpSpec::new(name, span).operands([m]).results([Type::Index]);
            match (index, idx_ref) {
                (Some(i), _) => spec = spec.attr("index", Attribute::int(i, Type::Index)),
                (None, Some(r)) => spec = spec.operands([p.resolve(&r, &Type::Index)?]),
                _ => unreachable!(),
            }
            Ok(spec)
        }
        "memref.dma_start" => {
            let mut groups = Vec::new();
            let src = p.parse_operand_ref()?;
            let src_idx = parse_index_list(p)?;
            p.expect_punct(",")?;
            let dst = p.parse_operand_ref()?;
            let dst_idx = parse_index_list(p)?;
            p.expect_punct(",")?;
            let num = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let tag = p.parse_operand_ref()?;
            let tag_idx = parse_index_list(p)?;
            let mut stride = Vec::new();
            if p.eat_punct(",")? {
                stride = p.parse_operand_refs()?;
            }
            p.expect_punct(":")?;
            let types = p.parse_type_list_no_parens()?;
            if types.len() != 3 {
                return Err(Diagnostic::new(span, "dma_start lists three memref types: source, destination and tag"));
            }
            groups.push(p.resolve(&src, &types[0])?);
            groups.extend(p.resolve_same(&src_idx, &Type::Index)?);
            groups.push(p.resolve(&dst, &types[1])?);
            groups.extend(p.resolve_same(&dst_idx, &Type::Index)?);
            groups.push(p.resolve(&num, &Type::Index)?);
            groups.push(p.resolve(&tag, &types[2])?);
            groups.extend(p.resolve_same(&tag_idx, &Type::Index)?);
            groups.extend(p.resolve_same(&stride, &Type::Index)?);
            Ok(spec.operands(groups))
        }
        "memref.dma_wait" => {
            let tag = p.parse_operand_ref()?;
            let tag_idx = parse_index_list(p)?;
            p.expect_punct(",")?;
            let num = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let ty = p.parse_type()?;
            let mut ops = vec![p.resolve(&tag, &ty)?];
            ops.extend(p.resolve_same(&tag_idx, &Type::Index)?);
            ops.push(p.resolve(&num, &Type::Index)?);
            Ok(spec.operands(ops))
        }
        "affine.apply" => {
            let map = parse_map_operand(p)?;
            let (dims, syms) = parse_dims_and_symbols(p)?;
            check_map_arity(&map, dims.len(), syms.len(), span)?;
            let mut ops = p.resolve_same(&dims, &Type::Index)?;
            ops.extend(p.resolve_same(&syms, &Type::Index)?);
            if map.results.len() != 1 {
                return Err(Diagnostic::new(span, "affine.apply needs a map with exactly one result"));
            }
            Ok(spec.operands(ops).results([Type::Index]).attr("map", Attribute::AffineMap(map)))
        }
        "affine.for" => parse_affine_for(p, spec, num_results),
        "scf.for" => parse_scf_for(p, spec),
        "affine.if" => parse_affine_if(p, spec, num_results),
        "scf.if" => parse_scf_if(p, spec),
        "vector.load" => {
            let m = p.parse_operand_ref()?;
            let idx = parse_index_list(p)?;
            p.expect_punct(":")?;
            let mt = p.parse_type()?;
            p.expect_punct(",")?;
            let vt = p.parse_type()?;
            let mut ops = vec![p.resolve(&m, &mt)?];
            ops.extend(p.resolve_same(&idx, &Type::Index)?);
            Ok(spec.operands(ops).results([vt]))
        }
        "vector.store" => {
            let v = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let m = p.parse_operand_ref()?;
            let idx = parse_index_list(p)?;
            p.expect_punct(":")?;
            let mt = p.parse_type()?;
            p.expect_punct(",")?;
            let vt = p.parse_type()?;
            let mut ops = vec![p.resolve(&v, &vt)?, p.resolve(&m, &mt)?];
            ops.extend(p.resolve_same(&idx, &Type::Index)?);
            Ok(spec.operands(ops))
        }
        "vector.insertelement" => {
            // `vector.insertelement %s, %v[%i : index] : vector<4xf32>`
            let s = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let v = p.parse_operand_ref()?;
            p.expect_punct("[")?;
            let i = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let it = p.parse_type()?;
            p.expect_punct("]")?;
            p.expect_punct(":")?;
            let vt = p.parse_type()?;
            let elem = vt.element_or_self().clone();
            let ops = vec![p.resolve(&s, &elem)?, p.resolve(&v, &vt)?, p.resolve(&i, &it)?];
            Ok(spec.operands(ops).results([vt]))
        }
        "vector.reduction" => {
            p.expect_punct("<")?;
            let (kind, _) = p.expect_ident("a reduction kind")?;
            p.expect_punct(">")?;
            p.expect_punct(",")?;
            let v = p.parse_operand_ref()?;
            p.expect_punct(":")?;
            let vt = p.parse_type()?;
            p.expect_ident_word("into")?;
            let rt = p.parse_type()?;
            Ok(spec.operands([p.resolve(&v, &vt)?]).results([rt]).attr("kind", Attribute::Opaque(format!("#vector.kind<{kind}>"))))
        }
        "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" => {
            let (dim, dspan) = p.expect_ident("a dimension (x, y or z)")?;
            if !["x", "y", "z"].contains(&dim.as_str()) {
                return Err(Diagnostic::new(dspan, format!("expected a dimension x, y or z, found '{dim}'")));
            }
            Ok(spec.results([Type::Index]).attr("dimension", Attribute::Opaque(format!("#gpu<dim {dim}>"))))
        }
        "llvm.mlir.undef" | "llvm.mlir.poison" | "llvm.mlir.zero" => {
            p.expect_punct(":")?;
            Ok(spec.results([p.parse_type()?]))
        }
        "llvm.load" => {
            let r = p.parse_operand_ref()?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let pt = p.parse_type()?;
            p.expect_punct("->")?;
            let t = p.parse_type()?;
            Ok(with_attrs(spec.operands([p.resolve(&r, &pt)?]).results([t]), attrs))
        }
        "llvm.store" => {
            let v = p.parse_operand_ref()?;
            p.expect_punct(",")?;
            let ptr = p.parse_operand_ref()?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let vt = p.parse_type()?;
            p.expect_punct(",")?;
            let pt = p.parse_type()?;
            Ok(with_attrs(spec.operands([p.resolve(&v, &vt)?, p.resolve(&ptr, &pt)?]), attrs))
        }
        "llvm.extractvalue" | "llvm.insertvalue" => {
            let mut refs = vec![p.parse_operand_ref()?];
            if name == "llvm.insertvalue" {
                p.expect_punct(",")?;
                refs.push(p.parse_operand_ref()?);
            }
            let position = parse_position(p)?;
            p.expect_punct(":")?;
            let agg_span = p.peek_span();
            let agg = p.parse_type()?;
            let elem = ops::aggregate_element(&agg, &position)
                .ok_or_else(|| Diagnostic::new(agg_span, format!("position {position:?} is out of range for {agg}")))?;
            let spec = spec.attr("position", Attribute::DenseArray { elem: Type::i64(), values: position.iter().map(|&x| x as i128).collect() });
            if name == "llvm.extractvalue" {
                Ok(spec.operands([p.resolve(&refs[0], &agg)?]).results([elem]))
            } else {
                let v = p.resolve(&refs[0], &elem)?;
                let a = p.resolve(&refs[1], &agg)?;
                Ok(spec.operands([a, v]).results([agg]))
            }
        }
        "llvm.getelementptr" => {
            let inbounds = p.eat_ident("inbounds")?;
            let base = p.parse_operand_ref()?;
            p.expect_punct("[")?;
            let mut raw = Vec::new();
            let mut dyn_refs = Vec::new();
            loop {
                if let (Tok::Percent(_), _) = p.peek()? {
                    dyn_refs.push(p.parse_operand_ref()?);
                    raw.push(i32::MIN as i128);
                } else {
                    raw.push(p.parse_int("an index")?.0);
                }
                if !p.eat_punct(",")? {
                    break;
                }
            }
            p.expect_punct("]")?;
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            p.expect_punct(",")?;
            let elem = p.parse_type()?;
            if ft.inputs.len() != 1 + dyn_refs.len() || ft.results.len() != 1 {
                return Err(Diagnostic::new(span, "getelementptr's type must list the base and each dynamic index"));
            }
            let mut ops = vec![p.resolve(&base, &ft.inputs[0])?];
            ops.extend(p.resolve_all(&dyn_refs, &ft.inputs[1..])?);
            let mut spec = spec
                .operands(ops)
                .results(ft.results)
                .attr("rawConstantIndices", Attribute::DenseArray { elem: Type::i32(), values: raw })
                .attr("elem_type", Attribute::Type(elem));
            if inbounds {
                spec = spec.attr("inbounds", Attribute::Unit);
            }
            Ok(spec)
        }
        _ if name.starts_with("llvm.intr.") => {
            // `llvm.intr.NAME(%a, %b) : (T, T) -> R`
            p.expect_punct("(")?;
            let refs = p.parse_operand_refs()?;
            p.expect_punct(")")?;
            let attrs = if p.is_punct("{") { p.parse_attr_dict()? } else { Vec::new() };
            p.expect_punct(":")?;
            let ft = parse_fn_type(p)?;
            expect_types(&refs, &ft.inputs, span)?;
            let ops = p.resolve_all(&refs, &ft.inputs)?;
            let results: Vec<Type> = ft.results.into_iter().filter(|t| *t != Type::LlvmVoid).collect();
            Ok(with_attrs(spec.operands(ops).results(results), attrs))
        }
        _ => Err(Diagnostic::new(
            span,
            format!("unknown operation '{written}' (use the generic form \"{written}\"(...) : (...) -> ... for operations without a custom form)"),
        )),
    }
}

/// Whether `%v[%i : index]` follows (looks ahead without consuming).
fn is_typed_position(p: &mut Parser) -> bool {
    let saved = p.pos_for_lookahead();
    let r = (|| -> PResult<bool> {
        p.parse_operand_ref()?;
        p.expect_punct("[")?;
        p.parse_operand_ref()?;
        Ok(p.is_punct(":"))
    })()
    .unwrap_or(false);
    p.restore_for_lookahead(saved);
    r
}

fn with_attrs(mut spec: OpSpec, attrs: Vec<(String, Attribute)>) -> OpSpec {
    spec.attrs.extend(attrs);
    spec
}

fn expect_count(refs: &[OperandRef], n: usize, name: &str, span: Span) -> PResult<()> {
    if refs.len() != n {
        return Err(Diagnostic::new(span, format!("'{name}' takes {n} operand(s), found {}", refs.len())));
    }
    Ok(())
}

fn expect_types(refs: &[OperandRef], types: &[Type], span: Span) -> PResult<()> {
    if refs.len() != types.len() {
        return Err(Diagnostic::new(span, format!("{} operand(s) but {} type(s)", refs.len(), types.len())));
    }
    Ok(())
}

fn parse_fn_type(p: &mut Parser) -> PResult<FunctionType> {
    let span = p.peek_span();
    match p.parse_type()? {
        Type::Function(ft) => Ok(ft),
        t => Err(Diagnostic::new(span, format!("expected a function type, found {t}"))),
    }
}

/// Optional `overflow<nsw>`, `fastmath<fast>` and an attribute dictionary.
fn parse_flags_and_attrs(p: &mut Parser) -> PResult<Vec<(String, Attribute)>> {
    let mut attrs = Vec::new();
    loop {
        if p.is_ident("overflow") || p.is_ident("fastmath") {
            let (w, _) = p.next()?;
            let body = p.skip_balanced()?;
            if let Tok::Ident(w) = w {
                let key = if w == "overflow" { "overflowFlags" } else { "fastmath" };
                attrs.push((key.to_string(), Attribute::Opaque(format!("#arith.{w}{body}"))));
            }
        } else if p.is_punct("{") {
            attrs.extend(p.parse_attr_dict()?);
        } else {
            return Ok(attrs);
        }
    }
}

fn parse_index_list(p: &mut Parser) -> PResult<Vec<OperandRef>> {
    p.expect_punct("[")?;
    let refs = p.parse_operand_refs()?;
    p.expect_punct("]")?;
    Ok(refs)
}

/// `[%a, 4, %b]`: static entries are integers, dynamic ones `i64::MIN` with an operand.
fn parse_mixed_list(p: &mut Parser) -> PResult<(Vec<i128>, Vec<OperandRef>)> {
    p.expect_punct("[")?;
    let mut statics = Vec::new();
    let mut dyns = Vec::new();
    if !p.is_punct("]") {
        loop {
            if let (Tok::Percent(_), _) = p.peek()? {
                dyns.push(p.parse_operand_ref()?);
                statics.push(i64::MIN as i128);
            } else {
                statics.push(p.parse_int("an integer or an SSA value")?.0);
            }
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct("]")?;
    Ok((statics, dyns))
}

fn parse_position(p: &mut Parser) -> PResult<Vec<i64>> {
    p.expect_punct("[")?;
    let mut pos = Vec::new();
    loop {
        pos.push(p.parse_int("a position")?.0 as i64);
        if !p.eat_punct(",")? {
            break;
        }
    }
    p.expect_punct("]")?;
    Ok(pos)
}

/// `#alias`, `affine_map<...>` or an inline map in the original spelling.
fn parse_map_operand(p: &mut Parser) -> PResult<AffineMap> {
    let span = p.peek_span();
    let a = p.parse_attribute()?;
    match a {
        Attribute::AffineMap(m) => Ok(m),
        _ => Err(Diagnostic::new(span, "expected an affine map")),
    }
}

fn parse_dims_and_symbols(p: &mut Parser) -> PResult<(Vec<OperandRef>, Vec<OperandRef>)> {
    let mut dims = Vec::new();
    let mut syms = Vec::new();
    if p.eat_punct("(")? {
        dims = p.parse_operand_refs()?;
        p.expect_punct(")")?;
    }
    if p.eat_punct("[")? {
        syms = p.parse_operand_refs()?;
        p.expect_punct("]")?;
    }
    Ok((dims, syms))
}

fn check_map_arity(map: &AffineMap, dims: usize, syms: usize, span: Span) -> PResult<()> {
    if map.num_dims as usize != dims || map.num_symbols as usize != syms {
        return Err(Diagnostic::new(
            span,
            format!(
                "the affine map takes {} dimension(s) and {} symbol(s), but {dims} and {syms} are given",
                map.num_dims, map.num_symbols
            ),
        ));
    }
    Ok(())
}

fn parse_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_llvm = spec.name == "llvm.mlir.constant";
    if is_llvm {
        p.expect_punct("(")?;
    }
    let span = p.peek_span();
    if let (Tok::At(sym), _) = p.peek()? {
        // `constant @f : (i32) -> i32` in the original spelling is a function reference.
        p.next()?;
        p.expect_punct(":")?;
        let ty = p.parse_type()?;
        return Ok(OpSpec::new("func.constant", spec.span).results([ty]).attr("value", Attribute::symbol(sym)));
    }
    let value = p.parse_attribute()?;
    if is_llvm {
        p.expect_punct(")")?;
    }
    let ty = match &value {
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => ty.clone(),
        Attribute::Bool(_) => Type::i1(),
        _ => return Err(Diagnostic::new(span, format!("unsupported constant value {value}"))),
    };
    let ty = if is_llvm || p.is_punct(":") {
        if p.eat_punct(":")? {
            p.parse_type()?
        } else {
            ty
        }
    } else {
        ty
    };
    let value = match value {
        Attribute::Bool(b) => Attribute::Integer { value: b as i128, ty: Type::i1() },
        v => v,
    };
    Ok(spec.results([ty]).attr("value", value))
}

/// `arith.cmpi slt, %a, %b : i32`, `cmpi "slt", %a, %b : i32`, `llvm.icmp "slt" %a, %b : i32`.
fn parse_cmp(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_float = spec.name.ends_with("cmpf") || spec.name == "llvm.fcmp";
    let (tok, pspan) = p.next()?;
    let pred_name = match tok {
        Tok::Ident(s) | Tok::Str(s) => s,
        _ => return Err(Diagnostic::new(pspan, format!("expected a comparison predicate, found {}", tok.describe()))),
    };
    let table = if is_float { ops::CMPF_PREDICATES } else { ops::CMPI_PREDICATES };
    let pred = table.iter().position(|p| *p == pred_name).ok_or_else(|| {
        Diagnostic::new(
            pspan,
            format!(
                "unknown {} predicate '{pred_name}' (expected one of: {})",
                if is_float { "cmpf" } else { "cmpi" },
                table.join(", ")
            ),
        )
    })?;
    p.eat_punct(",")?;
    let refs = p.parse_operand_refs()?;
    expect_count(&refs, 2, &spec.name, spec.span)?;
    let attrs = parse_flags_and_attrs(p)?;
    p.expect_punct(":")?;
    let ty = p.parse_type()?;
    let ops = p.resolve_same(&refs, &ty)?;
    let result = ty.with_element(Type::i1());
    Ok(with_attrs(spec.operands(ops).results([result]).attr("predicate", Attribute::i64(pred as i64)), attrs))
}

fn parse_func(p: &mut Parser, spec: OpSpec, written: &str) -> PResult<OpSpec> {
    let mut spec = spec;
    let mut visibility = None;
    if let (Tok::Ident(v), _) = p.peek()? {
        if ["private", "public", "nested"].contains(&v.as_str()) {
            p.next()?;
            visibility = Some(v.clone());
        }
        if spec.name == "llvm.func" && ["internal", "external", "linkonce_odr", "weak"].contains(&v.as_str()) {
            p.next()?;
            spec = spec.attr("linkage", Attribute::String(v));
        }
    }
    let (name, _) = p.expect_symbol()?;
    p.expect_punct("(")?;
    let mut args: Vec<(String, Type, Span)> = Vec::new();
    let mut arg_attrs = Vec::new();
    let mut named = None;
    let mut vararg = false;
    if !p.is_punct(")") {
        loop {
            if p.eat_punct("...")? {
                vararg = true;
                break;
            }
            let (tok, s) = p.peek()?;
            let this_named = matches!(tok, Tok::Percent(_));
            if *named.get_or_insert(this_named) != this_named {
                return Err(Diagnostic::new(s, "function arguments must be all named or all unnamed"));
            }
            let arg_name = if let Tok::Percent(n) = tok {
                p.next()?;
                p.expect_punct(":")?;
                n
            } else {
                String::new()
            };
            let ty = p.parse_type()?;
            arg_attrs.push(if p.is_punct("{") {
                Attribute::Dict(p.parse_attr_dict()?)
            } else {
                Attribute::Dict(Vec::new())
            });
            p.skip_loc()?;
            args.push((arg_name, ty, s));
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct(")")?;
    let mut results = Vec::new();
    let mut res_attrs = Vec::new();
    if p.eat_punct("->")? {
        if p.eat_punct("(")? {
            if !p.is_punct(")") {
                loop {
                    results.push(p.parse_type()?);
                    res_attrs.push(if p.is_punct("{") {
                        Attribute::Dict(p.parse_attr_dict()?)
                    } else {
                        Attribute::Dict(Vec::new())
                    });
                    if !p.eat_punct(",")? {
                        break;
                    }
                }
            }
            p.expect_punct(")")?;
        } else {
            // Without parentheses a '{' after the type is the body, not result attributes.
            results.push(p.parse_type()?);
            res_attrs.push(Attribute::Dict(Vec::new()));
        }
    }
    if spec.name == "llvm.func" && results == [Type::LlvmVoid] {
        results.clear();
        res_attrs.clear();
    }
    let mut extra = Vec::new();
    if p.eat_ident("attributes")? {
        extra = p.parse_attr_dict()?;
    }
    let ft = FunctionType { inputs: args.iter().map(|a| a.1.clone()).collect(), results: results.clone() };
    spec = spec.attr("sym_name", Attribute::String(name)).attr("function_type", Attribute::Type(Type::Function(ft)));
    if let Some(v) = visibility {
        spec = spec.attr("sym_visibility", Attribute::String(v));
    }
    if vararg {
        spec = spec.attr("vararg", Attribute::Unit);
    }
    if arg_attrs.iter().any(|a| *a != Attribute::Dict(Vec::new())) {
        spec = spec.attr("arg_attrs", Attribute::Array(arg_attrs));
    }
    if res_attrs.iter().any(|a| *a != Attribute::Dict(Vec::new())) {
        spec = spec.attr("res_attrs", Attribute::Array(res_attrs));
    }
    spec = with_attrs(spec, extra);
    if p.is_punct("{") {
        p.push_isolated_scope();
        // Unnamed arguments (`func @simple(i64, i1)`) are named by the entry block's label.
        let entry: Vec<_> = if named == Some(true) { args } else { Vec::new() };
        p.func_results.push(results);
        let region = p.parse_region(&entry, false);
        p.func_results.pop();
        let region = region?;
        p.pop_isolated_scope(&[region])?;
        spec = spec.region(region);
    } else if named == Some(true) && written != "llvm.func" {
        // A declaration with named arguments is allowed upstream for external functions.
    }
    Ok(spec)
}

/// A bound of `affine.for`: `%N`, `-42`, `#map(%a)[%b]`, `max #map(...)`, or an inline map.
fn parse_affine_bound(p: &mut Parser, keyword: &str) -> PResult<(AffineMap, Vec<OperandRef>, Vec<OperandRef>)> {
    let span = p.peek_span();
    p.eat_ident(keyword)?;
    match p.peek()? {
        (Tok::Percent(_), _) => {
            let r = p.parse_operand_ref()?;
            Ok((AffineMap::single_symbol(), Vec::new(), vec![r]))
        }
        (Tok::Int(_), _) | (Tok::Punct("-"), _) => {
            let (v, _) = p.parse_int("a loop bound")?;
            Ok((AffineMap::constant(v as i64), Vec::new(), Vec::new()))
        }
        _ => {
            let map = parse_map_operand(p)?;
            let (d, s) = parse_dims_and_symbols(p)?;
            check_map_arity(&map, d.len(), s.len(), span)?;
            Ok((map, d, s))
        }
    }
}

fn parse_iter_args(p: &mut Parser) -> PResult<(Vec<(String, Span)>, Vec<OperandRef>, Vec<Type>)> {
    let mut names = Vec::new();
    let mut inits = Vec::new();
    let mut types = Vec::new();
    if p.eat_ident("iter_args")? {
        p.expect_punct("(")?;
        loop {
            let r = p.parse_operand_ref()?;
            p.expect_punct("=")?;
            inits.push(p.parse_operand_ref()?);
            names.push((r.name, r.span));
            if !p.eat_punct(",")? {
                break;
            }
        }
        p.expect_punct(")")?;
        p.expect_punct("->")?;
        types = p.parse_function_result_types()?;
        if types.len() != inits.len() {
            return p.err_here(format!("iter_args has {} value(s) but {} result type(s)", inits.len(), types.len()));
        }
    }
    Ok((names, inits, types))
}

fn parse_affine_for(p: &mut Parser, spec: OpSpec, _num_results: u32) -> PResult<OpSpec> {
    let iv = p.parse_operand_ref()?;
    p.expect_punct("=")?;
    let (lb_map, lb_d, lb_s) = parse_affine_bound(p, "max")?;
    p.expect_ident_word("to")?;
    let (ub_map, ub_d, ub_s) = parse_affine_bound(p, "min")?;
    let mut step = 1;
    if p.eat_ident("step")? {
        let (s, sspan) = p.parse_int("a step")?;
        if s <= 0 {
            return Err(Diagnostic::new(sspan, "the step of a loop must be positive"));
        }
        step = s;
    }
    let (names, inits, types) = parse_iter_args(p)?;
    let mut ops = p.resolve_same(&lb_d, &Type::Index)?;
    ops.extend(p.resolve_same(&lb_s, &Type::Index)?);
    ops.extend(p.resolve_same(&ub_d, &Type::Index)?);
    ops.extend(p.resolve_same(&ub_s, &Type::Index)?);
    let n_lb = (lb_d.len() + lb_s.len()) as i128;
    let n_ub = (ub_d.len() + ub_s.len()) as i128;
    ops.extend(p.resolve_all(&inits, &types)?);
    let mut entry = vec![(iv.name.clone(), Type::Index, iv.span)];
    entry.extend(names.iter().zip(&types).map(|((n, s), t)| (n.clone(), t.clone(), *s)));
    let region = p.parse_region(&entry, true)?;
    ensure_yield(p, region, "affine.yield", spec.span);
    Ok(spec
        .operands(ops)
        .results(types.clone())
        .attr("lowerBoundMap", Attribute::AffineMap(lb_map))
        .attr("upperBoundMap", Attribute::AffineMap(ub_map))
        .attr("step", Attribute::int(step, Type::Index))
        .attr(
            "operandSegmentSizes",
            Attribute::DenseArray { elem: Type::i32(), values: vec![n_lb, n_ub, types.len() as i128] },
        )
        .region(region))
}

fn parse_scf_for(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let iv = p.parse_operand_ref()?;
    p.expect_punct("=")?;
    let lb = p.parse_operand_ref()?;
    p.expect_ident_word("to")?;
    let ub = p.parse_operand_ref()?;
    p.expect_ident_word("step")?;
    let step = p.parse_operand_ref()?;
    let (names, inits, types) = parse_iter_args(p)?;
    let iv_ty = if p.eat_punct(":")? { p.parse_type()? } else { Type::Index };
    let mut ops = vec![p.resolve(&lb, &iv_ty)?, p.resolve(&ub, &iv_ty)?, p.resolve(&step, &iv_ty)?];
    ops.extend(p.resolve_all(&inits, &types)?);
    let mut entry = vec![(iv.name.clone(), iv_ty, iv.span)];
    entry.extend(names.iter().zip(&types).map(|((n, s), t)| (n.clone(), t.clone(), *s)));
    let region = p.parse_region(&entry, true)?;
    ensure_yield(p, region, "scf.yield", spec.span);
    Ok(spec.operands(ops).results(types).region(region))
}

fn parse_affine_if(p: &mut Parser, spec: OpSpec, _num_results: u32) -> PResult<OpSpec> {
    let span = p.peek_span();
    let set = match p.parse_attribute()? {
        Attribute::IntegerSet(s) => s,
        _ => return Err(Diagnostic::new(span, "expected an integer set")),
    };
    let (d, s) = parse_dims_and_symbols(p)?;
    check_set_arity(&set, d.len(), s.len(), span)?;
    let mut ops = p.resolve_same(&d, &Type::Index)?;
    ops.extend(p.resolve_same(&s, &Type::Index)?);
    let mut types = Vec::new();
    if p.eat_punct("->")? {
        types = p.parse_function_result_types()?;
    }
    let then_region = p.parse_region(&[], true)?;
    ensure_yield(p, then_region, "affine.yield", spec.span);
    let else_region = p.m.new_region();
    if p.eat_ident("else")? {
        if p.is_ident("if") {
            // `else if` in the original spelling nests another `affine.if` in the else region.
            let (_, ispan) = p.next()?;
            let nested = parse_affine_if(p, OpSpec::new("affine.if", ispan), 0)?;
            let block = p.m.append_block(else_region, ispan);
            let op = p.m.create_op(nested);
            p.m.append_op(block, op);
            p.m.build(block, OpSpec::new("affine.yield", ispan));
        } else {
            let r = p.parse_region(&[], true)?;
            let blocks = std::mem::take(&mut p.m.regions[r].blocks);
            for &b in &blocks {
                p.m.blocks[b].parent = Some(else_region);
            }
            p.m.regions[else_region].blocks = blocks;
            ensure_yield(p, else_region, "affine.yield", spec.span);
        }
    }
    Ok(spec
        .operands(ops)
        .results(types)
        .attr("condition", Attribute::IntegerSet(set))
        .region(then_region)
        .region(else_region))
}

fn check_set_arity(set: &IntegerSet, dims: usize, syms: usize, span: Span) -> PResult<()> {
    if set.num_dims as usize != dims || set.num_symbols as usize != syms {
        return Err(Diagnostic::new(
            span,
            format!(
                "the integer set takes {} dimension(s) and {} symbol(s), but {dims} and {syms} are given",
                set.num_dims, set.num_symbols
            ),
        ));
    }
    Ok(())
}

fn parse_scf_if(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let c = p.parse_operand_ref()?;
    let mut types = Vec::new();
    if p.eat_punct("->")? {
        types = p.parse_function_result_types()?;
    }
    let c = p.resolve(&c, &Type::i1())?;
    let then_region = p.parse_region(&[], true)?;
    ensure_yield(p, then_region, "scf.yield", spec.span);
    let else_region = if p.eat_ident("else")? {
        let r = p.parse_region(&[], true)?;
        ensure_yield(p, r, "scf.yield", spec.span);
        r
    } else {
        p.m.new_region()
    };
    Ok(spec.operands([c]).results(types).region(then_region).region(else_region))
}

/// Loop and conditional bodies may leave out an operand-less yield.
fn ensure_yield(p: &mut Parser, region: crate::entity::RegionId, yield_name: &str, span: Span) {
    let blocks = p.m.regions[region].blocks.clone();
    let block = match blocks.last() {
        Some(&b) => b,
        None => p.m.append_block(region, span),
    };
    let needs = match p.m.terminator(block) {
        Some(op) => !ops::is_terminator(&p.m.ops[op].name),
        None => true,
    };
    if needs {
        p.m.build(block, OpSpec::new(yield_name, Span::UNKNOWN));
    }
}
