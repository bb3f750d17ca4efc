//! `convert-func-to-llvm`: functions, calls and returns, with upstream's calling convention.
//!
//! A memref parameter expands into its descriptor's `3 + 2 * rank` fields, which the entry block
//! packs back into the descriptor; a call explodes each memref argument the same way. Several
//! results return as one struct. A function marked `llvm.emit_c_interface` also gets a
//! `_mlir_ciface_NAME` wrapper taking pointers to descriptors (and returning a memref or several
//! results through a pointer passed first), so C written against upstream's output links
//! unchanged.

use super::memref_descriptor::{position, MemRefDescriptor};
use super::{BlockArgs, ConversionSet, Rewriter};
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, Diagnostic, OpId, OpSpec, Span, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "func",
    one_to_one: &[],
    patterns: &[
        ("func.func", function),
        ("func.return", ret),
        ("func.call", call),
        ("func.call_indirect", call),
        ("func.constant", constant),
    ],
};

/// Attributes a function's signature already expresses, or that do not carry over.
const SIGNATURE_ATTRS: &[&str] = &["sym_name", "function_type", "arg_attrs", "res_attrs"];

fn function(rw: &mut Rewriter, func: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let span = old.ops[func].span;
    let ft = old.function_type(func).expect("verified function").clone();
    let sig = rw.types.signature(&ft, span)?;
    let name = old.sym_name(func).unwrap_or_default().to_string();
    let mut spec = OpSpec::new("llvm.func", span)
        .attr("sym_name", Attribute::String(name.clone()))
        .attr("function_type", Attribute::Type(Type::Function(sig.clone())));
    for (k, v) in &old.ops[func].attrs {
        match k.as_str() {
            k if SIGNATURE_ATTRS.contains(&k) => {}
            "gpu.kernel" | "nvvm.kernel" => spec = spec.attr("nvvm.kernel", Attribute::Unit),
            _ => spec = spec.attr(k.clone(), v.clone()),
        }
    }
    let body = old.ops[func].regions.first().copied().filter(|&r| !old.regions[r].blocks.is_empty());
    if let Some(r) = body {
        let region = rw.prepare_region(r, BlockArgs::ConvertExpandingEntry)?;
        rebuild_memref_arguments(rw, r, &ft, span);
        spec = spec.region(region);
        rw.add_top_level(spec);
        rw.convert_region_ops(r)?;
    } else {
        rw.add_top_level(spec);
    }
    if old.attr(func, "llvm.emit_c_interface").is_some() {
        c_interface(rw, &name, &ft, &sig, span)?;
    }
    Ok(vec![])
}

/// Packs each memref parameter's fields (entry block arguments) back into its descriptor.
fn rebuild_memref_arguments(rw: &mut Rewriter, region: xcc_ir::RegionId, ft: &FunctionType, span: Span) {
    let old_entry = rw.old.regions[region].blocks[0];
    let entry = rw.new_block(old_entry);
    let params = rw.new.blocks[entry].args.clone();
    let saved = rw.set_block(entry);
    let mut next = 0;
    for (i, t) in ft.inputs.iter().enumerate() {
        match t {
            Type::MemRef(m) => {
                let n = 3 + 2 * m.rank();
                let d = MemRefDescriptor::pack(&mut rw.builder(span), m.rank(), &params[next..next + n]);
                rw.map_value(rw.old.blocks[old_entry].args[i], d.value);
                next += n;
            }
            _ => next += 1,
        }
    }
    rw.set_block(saved);
}

fn ret(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let vals = if ops.len() > 1 {
        let t = Type::LlvmStruct { packed: false, fields: ops.iter().map(|&v| b.m.ty(v).clone()).collect() };
        let mut agg = b.value("llvm.mlir.undef", &[], t.clone());
        for (i, &v) in ops.iter().enumerate() {
            agg = b.value_with("llvm.insertvalue", &[agg, v], t.clone(), position(&[i as i64]));
        }
        vec![agg]
    } else {
        ops
    };
    let spec = b.spec("llvm.return").operands(vals);
    b.insert(spec);
    Ok(vec![])
}

fn call(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let d = &old.ops[op];
    let span = d.span;
    let direct = d.name == "func.call";
    let ops = rw.operands(op)?;
    let first_arg = if direct { 0 } else { 1 };
    let result_types: Vec<Type> = d.results.iter().map(|&r| old.ty(r).clone()).collect();
    let packed = rw.types.packed_results(&result_types, span)?;
    let callee_type = if direct {
        None
    } else {
        let ft = old.ty(d.operands[0]).as_function().expect("verified callee").clone();
        Some(rw.types.signature(&ft, span)?)
    };
    let mut b = rw.builder(span);
    let mut args = if direct { Vec::new() } else { vec![ops[0]] };
    for (&a, &nv) in d.operands[first_arg..].iter().zip(&ops[first_arg..]) {
        match old.ty(a) {
            Type::MemRef(m) => args.extend(MemRefDescriptor { value: nv, rank: m.rank() }.explode(&mut b)),
            _ => args.push(nv),
        }
    }
    let mut spec = b.spec("llvm.call").operands(args).results(packed.clone());
    spec = match (direct, callee_type) {
        (true, _) => spec.attr("callee", old.attr(op, "callee").cloned().expect("verified")),
        (false, Some(sig)) => spec.attr("callee_type", Attribute::Type(Type::Function(sig))),
        (false, None) => unreachable!("indirect calls have a callee type"),
    };
    let c = b.insert(spec);
    if d.results.len() <= 1 {
        return Ok(b.m.ops[c].results.clone());
    }
    let agg = b.m.result(c, 0);
    let Type::LlvmStruct { fields, .. } = packed[0].clone() else { unreachable!("several results pack into a struct") };
    Ok(fields
        .iter()
        .enumerate()
        .map(|(i, t)| b.value_with("llvm.extractvalue", &[agg], t.clone(), position(&[i as i64])))
        .collect())
}

fn constant(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let sym = rw.old.attr(op, "value").cloned().expect("verified");
    let span = rw.old.ops[op].span;
    Ok(vec![rw.builder(span).value_with("llvm.mlir.addressof", &[], Type::ptr(), vec![("global_name".into(), sym)])])
}

/// `_mlir_ciface_NAME`: memref arguments by pointer to descriptor; a memref result or several
/// results through a pointer passed first; a scalar result returned directly.
fn c_interface(
    rw: &mut Rewriter,
    name: &str,
    ft: &FunctionType,
    sig: &FunctionType,
    span: Span,
) -> Result<(), Diagnostic> {
    let result_by_pointer = ft.results.len() > 1 || ft.results.iter().any(|t| matches!(t, Type::MemRef(_)));
    let mut inputs = Vec::new();
    if result_by_pointer {
        inputs.push(Type::ptr());
    }
    for t in &ft.inputs {
        inputs.push(if matches!(t, Type::MemRef(_)) { Type::ptr() } else { rw.types.convert(t, span)? });
    }
    let results = if result_by_pointer { Vec::new() } else { sig.results.clone() };
    let region = rw.new.new_region();
    rw.add_top_level(
        OpSpec::new("llvm.func", span)
            .attr("sym_name", Attribute::String(format!("_mlir_ciface_{name}")))
            .attr("function_type", Attribute::Type(Type::Function(FunctionType { inputs: inputs.clone(), results })))
            .region(region),
    );
    let entry = rw.new.append_block(region, span);
    let params: Vec<ValueId> = inputs.iter().map(|t| rw.new.add_block_arg(entry, t.clone(), span)).collect();
    let saved = rw.set_block(entry);
    let mut b = rw.builder(span);
    let mut args = Vec::new();
    let skip = usize::from(result_by_pointer);
    for (t, &p) in ft.inputs.iter().zip(&params[skip..]) {
        match t {
            Type::MemRef(m) => {
                let desc = b.value("llvm.load", &[p], MemRefDescriptor::struct_type(m.rank()));
                args.extend(MemRefDescriptor { value: desc, rank: m.rank() }.explode(&mut b));
            }
            _ => args.push(p),
        }
    }
    let spec = b.spec("llvm.call").operands(args).attr("callee", Attribute::symbol(name)).results(sig.results.clone());
    let c = b.insert(spec);
    let ret = b.m.ops[c].results.clone();
    if result_by_pointer {
        let spec = b.spec("llvm.store").operands([ret[0], params[0]]);
        b.insert(spec);
        let spec = b.spec("llvm.return");
        b.insert(spec);
    } else {
        let spec = b.spec("llvm.return").operands(ret);
        b.insert(spec);
    }
    rw.set_block(saved);
    Ok(())
}
