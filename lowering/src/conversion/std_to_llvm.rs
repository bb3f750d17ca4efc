//! `convert-to-llvm`: func, arith, math, cf, memref, vector and gpu operations to the llvm
//! dialect.
//!
//! Memrefs become upstream MLIR's descriptor `{ptr allocated, ptr aligned, i64 offset,
//! [N x i64] sizes, [N x i64] strides}`; a memref function argument expands into those 3 + 2N
//! parameters in that order, a memref result returns the struct, and functions marked
//! `llvm.emit_c_interface` get a `_mlir_ciface_NAME` wrapper taking descriptor pointers, so C
//! written against upstream `mlir-translate` output links unchanged. `alloc`/`dealloc` and the
//! DMA operations call into runtime-c (`xcc_alloc`, `xcc_free`, `xcc_dma_start`, `xcc_dma_wait`).
//!
//! The pass builds a new module: blocks are converted in reverse post-order so that every
//! definition is converted before its uses.

use crate::builder::Builder;
use crate::{LoweringOptions, Pass};
use std::collections::{BTreeMap, HashMap};
use xcc_ir::types::{FunctionType, MemRefType};
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct StdToLlvm;

impl Pass for StdToLlvm {
    fn name(&self) -> &'static str {
        "convert-to-llvm"
    }

    fn run(&self, old: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut new = Module::new();
        new.name = old.name.clone();
        new.attrs = old.attrs.clone();
        let mut cx = Cx {
            old: &old,
            new,
            index: Type::int(if options.index_bits == 0 { 64 } else { options.index_bits }),
            gpu: options.gpu,
            values: HashMap::new(),
            blocks: HashMap::new(),
            runtime: BTreeMap::new(),
        };
        for &op in old.top_ops() {
            cx.convert_top(op)?;
        }
        let body = cx.new.body_block();
        for (name, ft) in std::mem::take(&mut cx.runtime) {
            if cx.new.lookup_symbol(&name).is_none() {
                cx.new.build(
                    body,
                    OpSpec::new("llvm.func", Span::UNKNOWN)
                        .attr("sym_name", Attribute::String(name))
                        .attr("function_type", Attribute::Type(Type::Function(ft))),
                );
            }
        }
        Ok(cx.new)
    }
}

struct Cx<'a> {
    old: &'a Module,
    new: Module,
    index: Type,
    gpu: bool,
    values: HashMap<ValueId, ValueId>,
    blocks: HashMap<BlockId, BlockId>,
    /// External functions the converted code calls (runtime-c, libm).
    runtime: BTreeMap<String, FunctionType>,
}

fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(span, format!("unsupported in lowering to LLVM: {what}"))
}

fn descriptor_type(rank: usize) -> Type {
    let mut fields = vec![Type::ptr(), Type::ptr(), Type::i64()];
    if rank > 0 {
        let arr = Type::LlvmArray { len: rank as u64, elem: Box::new(Type::i64()) };
        fields.push(arr.clone());
        fields.push(arr);
    }
    Type::LlvmStruct { packed: false, fields }
}

fn pos(p: &[i64]) -> Vec<(String, Attribute)> {
    vec![(
        "position".into(),
        Attribute::DenseArray { elem: Type::i64(), values: p.iter().map(|&x| x as i128).collect() },
    )]
}

fn pred(p: i64) -> Vec<(String, Attribute)> {
    vec![("predicate".into(), Attribute::i64(p))]
}

impl Cx<'_> {
    fn ty(&self, t: &Type, span: Span) -> Result<Type, Diagnostic> {
        self_ty(&self.index, t, span)
    }

    /// The expanded parameter list and the single LLVM result type of a function type.
    fn signature(&self, ft: &FunctionType, span: Span) -> Result<FunctionType, Diagnostic> {
        signature_with(&self.index, ft, span)
    }

    fn v(&self, old: ValueId) -> ValueId {
        self.values[&old]
    }

    fn need(&mut self, name: &str, inputs: Vec<Type>, results: Vec<Type>) {
        self.runtime.insert(name.to_string(), FunctionType { inputs, results });
    }

    fn convert_top(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let old = self.old;
        let name = old.ops[op].name.as_str();
        let span = old.ops[op].span;
        match name {
            "func.func" | "llvm.func" => self.convert_func(op),
            "memref.global" => {
                // Constant data becomes an internal byte-array global, 64-byte aligned for vector loads.
                let value = old
                    .attr(op, "initial_value")
                    .cloned()
                    .ok_or_else(|| unsupported(span, "memref.global without an initial value"))?;
                let bytes = match &value {
                    Attribute::Dense { values: xcc_ir::attributes::DenseValues::Hex(b), .. } => b.len(),
                    _ => return Err(unsupported(span, "memref.global whose initial value is not raw (hex) data")),
                };
                let mut spec = OpSpec::new("llvm.mlir.global", span)
                    .attr("sym_name", old.attr(op, "sym_name").cloned().expect("verified"))
                    .attr(
                        "global_type",
                        Attribute::Type(Type::LlvmArray { len: bytes as u64, elem: Box::new(Type::i8()) }),
                    )
                    .attr("value", value)
                    .attr(
                        "alignment",
                        Attribute::i64(old.attr(op, "alignment").and_then(Attribute::as_int).unwrap_or(64) as i64),
                    )
                    .attr("linkage", Attribute::String("internal".into()));
                if old.attr(op, "constant").is_some() {
                    spec = spec.attr("constant", Attribute::Unit);
                }
                let body = self.new.body_block();
                self.new.build(body, spec);
                Ok(())
            }
            n if n.starts_with("llvm.") => {
                let mut spec = OpSpec::new(n, span);
                spec.attrs = old.ops[op].attrs.clone();
                let body = self.new.body_block();
                self.new.build(body, spec);
                Ok(())
            }
            n => Err(unsupported(span, format!("top-level operation '{n}'"))),
        }
    }

    fn convert_func(&mut self, func: OpId) -> Result<(), Diagnostic> {
        let old = self.old;
        let span = old.ops[func].span;
        let ft = old.function_type(func).expect("verified function").clone();
        let sig = self.signature(&ft, span)?;
        let name = old.sym_name(func).unwrap_or_default().to_string();
        let mut spec = OpSpec::new("llvm.func", span)
            .attr("sym_name", Attribute::String(name.clone()))
            .attr("function_type", Attribute::Type(Type::Function(sig.clone())));
        for (k, v) in &old.ops[func].attrs {
            match k.as_str() {
                "sym_name" | "function_type" | "arg_attrs" | "res_attrs" => {}
                "gpu.kernel" | "nvvm.kernel" => spec = spec.attr("nvvm.kernel", Attribute::Unit),
                _ => spec = spec.attr(k.clone(), v.clone()),
            }
        }
        let region = self.new.new_region();
        let old_region = old.ops[func].regions.first().copied();
        let has_body = old_region.is_some_and(|r| !old.regions[r].blocks.is_empty());
        if has_body {
            spec = spec.region(region);
        }
        let body = self.new.body_block();
        self.new.build(body, spec);
        if let (true, Some(r)) = (has_body, old_region) {
            let scratch = self.convert_body(r, &ft)?;
            let blocks = std::mem::take(&mut self.new.regions[scratch].blocks);
            for &b in &blocks {
                self.new.blocks[b].parent = Some(region);
            }
            self.new.regions[region].blocks = blocks;
        }
        if old.attr(func, "llvm.emit_c_interface").is_some() {
            self.emit_c_interface(&name, &ft, &sig, span)?;
        }
        Ok(())
    }

    /// Converts a function body region. Entry block arguments of memref type are rebuilt from
    /// their expanded parameters.
    fn convert_body(&mut self, r: xcc_ir::RegionId, ft: &FunctionType) -> Result<xcc_ir::RegionId, Diagnostic> {
        let old = self.old;
        let scratch = self.new.new_region();
        let blocks = old.regions[r].blocks.clone();
        for (i, &b) in blocks.iter().enumerate() {
            let nb = self.new.append_block(scratch, old.blocks[b].span);
            self.blocks.insert(b, nb);
            if i == 0 {
                continue;
            }
            for &a in &old.blocks[b].args {
                let t = self.ty(old.ty(a), old.values[a].span)?;
                let na = self.new.add_block_arg(nb, t, old.values[a].span);
                self.values.insert(a, na);
            }
        }
        let entry = blocks[0];
        let new_entry = self.blocks[&entry];
        for (i, &a) in old.blocks[entry].args.iter().enumerate() {
            let span = old.values[a].span;
            match ft.inputs.get(i) {
                Some(Type::MemRef(m)) => {
                    let rank = m.rank();
                    let mut fields = Vec::new();
                    for t in [Type::ptr(), Type::ptr(), Type::i64()] {
                        fields.push(self.new.add_block_arg(new_entry, t, span));
                    }
                    for _ in 0..2 * rank {
                        fields.push(self.new.add_block_arg(new_entry, Type::i64(), span));
                    }
                    let mut b = Builder::at_end(&mut self.new, new_entry, span);
                    let desc = build_descriptor(&mut b, rank, &fields);
                    self.values.insert(a, desc);
                }
                _ => {
                    let t = self.ty(old.ty(a), span)?;
                    let na = self.new.add_block_arg(new_entry, t, span);
                    self.values.insert(a, na);
                }
            }
        }
        for b in old.reverse_post_order(r).0 {
            let nb = self.blocks[&b];
            for &op in &old.blocks[b].ops {
                self.convert_op(op, nb)?;
            }
        }
        Ok(scratch)
    }

    fn convert_op(&mut self, op: OpId, nb: BlockId) -> Result<(), Diagnostic> {
        let old = self.old;
        let d = &old.ops[op];
        let span = d.span;
        let name = d.name.as_str();
        let ops: Vec<ValueId> = d.operands.iter().map(|&v| self.v(v)).collect();
        let result_ty = match d.results.first() {
            Some(&r) => Some(self.ty(old.ty(r), span)?),
            None => None,
        };
        let index = self.index.clone();
        let mut b = Builder::at_end(&mut self.new, nb, span);
        let simple =
            |b: &mut Builder, llvm: &str| -> ValueId { b.value(llvm, &ops, result_ty.clone().expect("result")) };
        let produced: Vec<ValueId> = match name {
            "arith.addi" => vec![simple(&mut b, "llvm.add")],
            "arith.subi" => vec![simple(&mut b, "llvm.sub")],
            "arith.muli" => vec![simple(&mut b, "llvm.mul")],
            "arith.divsi" => vec![simple(&mut b, "llvm.sdiv")],
            "arith.divui" => vec![simple(&mut b, "llvm.udiv")],
            "arith.remsi" => vec![simple(&mut b, "llvm.srem")],
            "arith.remui" => vec![simple(&mut b, "llvm.urem")],
            "arith.andi" => vec![simple(&mut b, "llvm.and")],
            "arith.ori" => vec![simple(&mut b, "llvm.or")],
            "arith.xori" => vec![simple(&mut b, "llvm.xor")],
            "arith.shli" => vec![simple(&mut b, "llvm.shl")],
            "arith.shrsi" => vec![simple(&mut b, "llvm.ashr")],
            "arith.shrui" => vec![simple(&mut b, "llvm.lshr")],
            "arith.addf" => vec![simple(&mut b, "llvm.fadd")],
            "arith.subf" => vec![simple(&mut b, "llvm.fsub")],
            "arith.mulf" => vec![simple(&mut b, "llvm.fmul")],
            "arith.divf" => vec![simple(&mut b, "llvm.fdiv")],
            "arith.remf" => vec![simple(&mut b, "llvm.frem")],
            "arith.negf" => vec![simple(&mut b, "llvm.fneg")],
            "arith.maxsi" => vec![simple(&mut b, "llvm.intr.smax")],
            "arith.minsi" => vec![simple(&mut b, "llvm.intr.smin")],
            "arith.maxui" => vec![simple(&mut b, "llvm.intr.umax")],
            "arith.minui" => vec![simple(&mut b, "llvm.intr.umin")],
            "arith.maximumf" => vec![simple(&mut b, "llvm.intr.maximum")],
            "arith.minimumf" => vec![simple(&mut b, "llvm.intr.minimum")],
            "arith.maxnumf" => vec![simple(&mut b, "llvm.intr.maxnum")],
            "arith.minnumf" => vec![simple(&mut b, "llvm.intr.minnum")],
            "math.sqrt" => vec![simple(&mut b, "llvm.intr.sqrt")],
            "math.exp" => vec![simple(&mut b, "llvm.intr.exp")],
            "math.exp2" => vec![simple(&mut b, "llvm.intr.exp2")],
            "math.log" => vec![simple(&mut b, "llvm.intr.log")],
            "math.log2" => vec![simple(&mut b, "llvm.intr.log2")],
            "math.log10" => vec![simple(&mut b, "llvm.intr.log10")],
            "math.sin" => vec![simple(&mut b, "llvm.intr.sin")],
            "math.cos" => vec![simple(&mut b, "llvm.intr.cos")],
            "math.tanh" => vec![simple(&mut b, "llvm.intr.tanh")],
            "math.absf" => vec![simple(&mut b, "llvm.intr.fabs")],
            "math.floor" => vec![simple(&mut b, "llvm.intr.floor")],
            "math.ceil" => vec![simple(&mut b, "llvm.intr.ceil")],
            "math.round" => vec![simple(&mut b, "llvm.intr.round")],
            "math.roundeven" => vec![simple(&mut b, "llvm.intr.roundeven")],
            "math.trunc" => vec![simple(&mut b, "llvm.intr.trunc")],
            "math.powf" => vec![simple(&mut b, "llvm.intr.pow")],
            "math.copysign" => vec![simple(&mut b, "llvm.intr.copysign")],
            "math.fma" => vec![simple(&mut b, "llvm.intr.fma")],
            // As upstream: vector.fma may fuse, so it is `fmuladd` (no libm call without FMA units).
            "vector.fma" => vec![simple(&mut b, "llvm.intr.fmuladd")],
            "math.rsqrt" => {
                let t = result_ty.clone().expect("result");
                let s = b.value("llvm.intr.sqrt", &ops, t.clone());
                let one = float_const(&mut b, 1.0, &t);
                vec![b.value("llvm.fdiv", &[one, s], t)]
            }
            "math.erf" => {
                let t = result_ty.clone().expect("result");
                let f = match t {
                    Type::Float(xcc_ir::types::FloatKind::F64) => "erf",
                    Type::Float(xcc_ir::types::FloatKind::F32) => "erff",
                    _ => return Err(unsupported(span, format!("math.erf on {t}"))),
                };
                drop(b);
                self.need(f, vec![t.clone()], vec![t.clone()]);
                let mut b = Builder::at_end(&mut self.new, nb, span);
                vec![call(&mut b, f, &ops, Some(t))]
            }
            "arith.cmpi" => {
                let p = old.attr(op, "predicate").and_then(Attribute::as_int).unwrap_or(0) as i64;
                vec![b.value_with("llvm.icmp", &ops, result_ty.clone().expect("result"), pred(p))]
            }
            "arith.cmpf" => {
                let p = old.attr(op, "predicate").and_then(Attribute::as_int).unwrap_or(0) as i64;
                vec![b.value_with("llvm.fcmp", &ops, result_ty.clone().expect("result"), pred(p))]
            }
            "arith.select" => vec![simple(&mut b, "llvm.select")],
            "arith.extsi" => vec![simple(&mut b, "llvm.sext")],
            "arith.extui" => vec![simple(&mut b, "llvm.zext")],
            "arith.trunci" => vec![simple(&mut b, "llvm.trunc")],
            "arith.extf" => vec![simple(&mut b, "llvm.fpext")],
            "arith.truncf" => vec![simple(&mut b, "llvm.fptrunc")],
            "arith.sitofp" => vec![simple(&mut b, "llvm.sitofp")],
            "arith.uitofp" => vec![simple(&mut b, "llvm.uitofp")],
            "arith.fptosi" => vec![simple(&mut b, "llvm.fptosi")],
            "arith.fptoui" => vec![simple(&mut b, "llvm.fptoui")],
            "arith.bitcast" => vec![simple(&mut b, "llvm.bitcast")],
            "arith.index_cast" | "arith.index_castui" => {
                let from = b.m.ty(ops[0]).element_or_self().int_width().unwrap_or(64);
                let t = result_ty.clone().expect("result");
                let to = t.element_or_self().int_width().unwrap_or(64);
                let ext = if name == "arith.index_cast" { "llvm.sext" } else { "llvm.zext" };
                vec![if from == to {
                    ops[0]
                } else if from < to {
                    b.value(ext, &ops, t)
                } else {
                    b.value("llvm.trunc", &ops, t)
                }]
            }
            "arith.floordivsi" | "arith.ceildivsi" | "arith.ceildivui" => {
                vec![div_round(&mut b, name, ops[0], ops[1], result_ty.clone().expect("result"))]
            }
            "arith.constant" => {
                let value = old.attr(op, "value").expect("verified").clone();
                let t = result_ty.clone().expect("result");
                let value = match value {
                    Attribute::Integer { value, .. } => Attribute::Integer { value, ty: t.clone() },
                    Attribute::Dense { values, .. } => Attribute::Dense { values, ty: t.clone() },
                    v => v,
                };
                vec![b.value_with("llvm.mlir.constant", &[], t, vec![("value".into(), value)])]
            }
            "func.constant" => {
                let sym = old.attr(op, "value").cloned().expect("verified");
                vec![b.value_with("llvm.mlir.addressof", &[], Type::ptr(), vec![("global_name".into(), sym)])]
            }
            "func.return" => {
                let vals = if ops.len() > 1 {
                    let t =
                        Type::LlvmStruct { packed: false, fields: ops.iter().map(|&v| b.m.ty(v).clone()).collect() };
                    let mut agg = b.value("llvm.mlir.undef", &[], t.clone());
                    for (i, &v) in ops.iter().enumerate() {
                        agg = b.value_with("llvm.insertvalue", &[agg, v], t.clone(), pos(&[i as i64]));
                    }
                    vec![agg]
                } else {
                    ops.clone()
                };
                let spec = b.spec("llvm.return").operands(vals);
                b.insert(spec);
                vec![]
            }
            "func.call" | "func.call_indirect" => {
                let (callee, args_old) = if name == "func.call" {
                    (old.attr(op, "callee").cloned(), &d.operands[..])
                } else {
                    (None, &d.operands[1..])
                };
                let mut args = Vec::new();
                if callee.is_none() {
                    args.push(ops[0]);
                }
                for &a in args_old {
                    let nv = self_v(&self.values, a);
                    if let Type::MemRef(m) = old.ty(a) {
                        args.extend(explode_descriptor(&mut b, nv, m.rank()));
                    } else {
                        args.push(nv);
                    }
                }
                let result_types: Vec<Type> = d.results.iter().map(|&r| old.ty(r).clone()).collect();
                let packed = {
                    let cx_index = index.clone();
                    packed_results_with(&cx_index, &result_types, span)?
                };
                let mut spec = b.spec("llvm.call").operands(args).results(packed.clone());
                match callee {
                    Some(c) => spec = spec.attr("callee", c),
                    None => {
                        let ft = old.ty(d.operands[0]).as_function().expect("function value").clone();
                        let sig = signature_with(&index, &ft, span)?;
                        spec = spec.attr("callee_type", Attribute::Type(Type::Function(sig)));
                    }
                }
                let call = b.insert(spec);
                if d.results.len() > 1 {
                    let agg = b.m.result(call, 0);
                    let Type::LlvmStruct { fields, .. } = packed[0].clone() else { unreachable!() };
                    fields
                        .iter()
                        .enumerate()
                        .map(|(i, t)| b.value_with("llvm.extractvalue", &[agg], t.clone(), pos(&[i as i64])))
                        .collect()
                } else {
                    b.m.ops[call].results.clone()
                }
            }
            "cf.br" | "cf.cond_br" => {
                let llvm = if name == "cf.br" { "llvm.br" } else { "llvm.cond_br" };
                let mut spec = b.spec(llvm).operands(ops.clone());
                for s in &d.successors {
                    let args = s.args.iter().map(|&a| self_v(&self.values, a)).collect();
                    spec = spec.successor(self.blocks[&s.block], args);
                }
                b.insert(spec);
                vec![]
            }
            "memref.alloc" | "memref.alloca" | "memref.alloc_static" => {
                let mt = old.ty(d.results[0]).as_memref().expect("verified memref").clone();
                if !matches!(&mt.layout, xcc_ir::types::Layout::Identity)
                    && mt.strides_and_offset().map(|(s, _)| s) != Some(xcc_ir::types::identity_strides(&mt.shape))
                {
                    return Err(unsupported(
                        span,
                        format!("allocating {} (only row-major layouts can be allocated)", Type::MemRef(mt.clone())),
                    ));
                }
                let elem = self_ty(&index, &mt.elem, span)?;
                let (sizes, strides) = static_or_dynamic_shape(&mut b, &mt, &ops);
                let total = product(&mut b, &sizes);
                let ptr = match name {
                    "memref.alloc" => {
                        if self.gpu {
                            return Err(unsupported(span, "memref.alloc in GPU code"));
                        }
                        let bytes = size_in_bytes(&mut b, total, &elem);
                        let align = old.attr(op, "alignment").and_then(Attribute::as_int).unwrap_or(64).max(16) as i64;
                        let a = b.llvm_const(align, Type::i64());
                        let p = call(&mut b, "xcc_alloc", &[bytes, a], Some(Type::ptr()));
                        drop(b);
                        self.need("xcc_alloc", vec![Type::i64(), Type::i64()], vec![Type::ptr()]);
                        b = Builder::at_end(&mut self.new, nb, span);
                        p
                    }
                    "memref.alloca" => b.value_with(
                        "llvm.alloca",
                        &[total],
                        Type::ptr(),
                        vec![
                            ("elem_type".into(), Attribute::Type(elem.clone())),
                            (
                                "alignment".into(),
                                Attribute::i64(
                                    old.attr(op, "alignment").and_then(Attribute::as_int).unwrap_or(16) as i64
                                ),
                            ),
                        ],
                    ),
                    _ => {
                        let base = old.attr(op, "base").and_then(Attribute::as_int).unwrap_or(0) as i64;
                        let c = b.llvm_const(base, Type::i64());
                        b.value("llvm.inttoptr", &[c], Type::ptr())
                    }
                };
                let zero = b.llvm_const(0, Type::i64());
                let mut fields = vec![ptr, ptr, zero];
                fields.extend(sizes);
                fields.extend(strides);
                vec![build_descriptor(&mut b, mt.rank(), &fields)]
            }
            "memref.get_global" => {
                let mt = old.ty(d.results[0]).as_memref().expect("verified memref").clone();
                let sym = old.attr(op, "name").cloned().expect("verified");
                let p = b.value_with("llvm.mlir.addressof", &[], Type::ptr(), vec![("global_name".into(), sym)]);
                let (sizes, strides) = static_or_dynamic_shape(&mut b, &mt, &[]);
                let zero = b.llvm_const(0, Type::i64());
                let mut fields = vec![p, p, zero];
                fields.extend(sizes);
                fields.extend(strides);
                vec![build_descriptor(&mut b, mt.rank(), &fields)]
            }
            "builtin.unrealized_conversion_cast" => {
                // Casts between a memref and its descriptor struct vanish once both are structs.
                let t = result_ty.clone().expect("result");
                if b.m.ty(ops[0]) != &t {
                    return Err(unsupported(
                        span,
                        format!("unrealized_conversion_cast from {} to {}", b.m.ty(ops[0]), t),
                    ));
                }
                vec![ops[0]]
            }
            "memref.dealloc" => {
                let p = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[0]));
                call(&mut b, "xcc_free", &[p], None);
                drop(b);
                self.need("xcc_free", vec![Type::ptr()], vec![]);
                vec![]
            }
            "memref.load" | "memref.store" | "vector.load" | "vector.store" => {
                let is_load = name.ends_with("load");
                let mi = if is_load { 0 } else { 1 };
                let mt = old.ty(d.operands[mi]).as_memref().expect("verified memref").clone();
                let elem = self_ty(&index, &mt.elem, span)?;
                let addr = element_address(&mut b, ops[mi], &mt, &elem, &ops[mi + 1..], span)?;
                let align = natural_align(&elem);
                if is_load {
                    let t = result_ty.clone().expect("result");
                    vec![b.value_with("llvm.load", &[addr], t, vec![("alignment".into(), Attribute::i64(align))])]
                } else {
                    let spec = b.spec("llvm.store").operands([ops[0], addr]).attr("alignment", Attribute::i64(align));
                    b.insert(spec);
                    vec![]
                }
            }
            "memref.dim" => {
                let mt = old.ty(d.operands[0]).as_memref().cloned();
                let idx = match old.attr(op, "index").and_then(Attribute::as_int) {
                    Some(i) => Some(i as i64),
                    None => constant_index(old, d.operands[1]),
                };
                let Some(i) = idx else {
                    return Err(unsupported(span, "memref.dim with a dimension that is not a constant"));
                };
                match mt.as_ref().and_then(|m| m.shape.get(i as usize).copied()) {
                    Some(Some(s)) => vec![b.llvm_const(s as i64, index.clone())],
                    Some(None) => vec![b.value_with("llvm.extractvalue", &[ops[0]], Type::i64(), pos(&[3, i]))],
                    None => return Err(unsupported(span, "memref.dim of an unranked memref")),
                }
            }
            "memref.cast" => {
                let (from, to) = (old.ty(d.operands[0]), old.ty(d.results[0]));
                match (from, to) {
                    (Type::MemRef(_), Type::MemRef(_)) => vec![ops[0]],
                    (Type::MemRef(m), Type::UnrankedMemRef { .. }) => {
                        let dt = descriptor_type(m.rank());
                        let one = b.llvm_const(1, Type::i64());
                        let slot = b.value_with(
                            "llvm.alloca",
                            &[one],
                            Type::ptr(),
                            vec![("elem_type".into(), Attribute::Type(dt))],
                        );
                        let spec = b.spec("llvm.store").operands([ops[0], slot]);
                        b.insert(spec);
                        let rank = b.llvm_const(m.rank() as i64, Type::i64());
                        let t = result_ty.clone().expect("result");
                        let u = b.value("llvm.mlir.undef", &[], t.clone());
                        let u = b.value_with("llvm.insertvalue", &[u, rank], t.clone(), pos(&[0]));
                        vec![b.value_with("llvm.insertvalue", &[u, slot], t, pos(&[1]))]
                    }
                    (Type::UnrankedMemRef { .. }, Type::MemRef(_)) => {
                        let p = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[1]));
                        vec![b.value("llvm.load", &[p], result_ty.clone().expect("result"))]
                    }
                    _ => return Err(unsupported(span, format!("memref.cast from {from} to {to}"))),
                }
            }
            "memref.subview" => {
                let src = old.ty(d.operands[0]).as_memref().expect("verified").clone();
                let dst = old.ty(d.results[0]).as_memref().expect("verified").clone();
                let lists: Vec<Vec<i128>> = ["static_offsets", "static_sizes", "static_strides"]
                    .iter()
                    .map(|k| old.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default())
                    .collect();
                let mut next = 1;
                let mut mixed = |b: &mut Builder, list: &[i128]| -> Vec<ValueId> {
                    list.iter()
                        .map(|&x| {
                            if x == i64::MIN as i128 {
                                next += 1;
                                ops[next - 1]
                            } else {
                                b.llvm_const(x as i64, Type::i64())
                            }
                        })
                        .collect()
                };
                let (offs, sizes, steps) =
                    (mixed(&mut b, &lists[0]), mixed(&mut b, &lists[1]), mixed(&mut b, &lists[2]));
                let desc = ops[0];
                let (src_strides, src_offset) =
                    src.strides_and_offset().ok_or_else(|| unsupported(span, "subview of a non-strided layout"))?;
                let mut offset = match src_offset {
                    Some(o) => b.llvm_const(o, Type::i64()),
                    None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[2])),
                };
                let mut strides = Vec::new();
                for i in 0..src.rank() {
                    let s = match src_strides[i] {
                        Some(s) => b.llvm_const(s, Type::i64()),
                        None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[4, i as i64])),
                    };
                    let moved = b.value("llvm.mul", &[offs[i], s], Type::i64());
                    offset = b.value("llvm.add", &[offset, moved], Type::i64());
                    strides.push(b.value("llvm.mul", &[s, steps[i]], Type::i64()));
                }
                // A rank-reducing subview drops unit dimensions, leading ones first.
                let mut keep: Vec<usize> = (0..src.rank()).collect();
                let mut excess = src.rank() - dst.rank();
                keep.retain(|&i| {
                    if excess > 0 && lists[1][i] == 1 {
                        excess -= 1;
                        false
                    } else {
                        true
                    }
                });
                if keep.len() != dst.rank() {
                    return Err(unsupported(span, "a rank-reducing subview that does not drop unit dimensions"));
                }
                let p0 = b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[0]));
                let p1 = b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[1]));
                let mut fields = vec![p0, p1, offset];
                fields.extend(keep.iter().map(|&i| sizes[i]));
                fields.extend(keep.iter().map(|&i| strides[i]));
                vec![build_descriptor(&mut b, dst.rank(), &fields)]
            }
            "std.view" | "std.reshape" => {
                // The original view/reshape: the result's index space maps into the source's,
                // through the result's layout map R (or the identity). With R linear in its
                // dims, offset = src_offset + sum_k R_k(0, syms) * src_stride_k and
                // stride_d = sum_k (R_k(e_d, syms) - R_k(0, syms)) * src_stride_k.
                let src = old.ty(d.operands[0]).as_memref().expect("verified").clone();
                let dst = old.ty(d.results[0]).as_memref().expect("verified").clone();
                let seg = old.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
                let (nd, ns) = (seg[1] as usize, seg[2] as usize);
                let dyn_sizes = ops[1..1 + nd].to_vec();
                let syms: Vec<ValueId> = ops[1 + nd..1 + nd + ns].to_vec();
                let desc = ops[0];
                let (src_strides, src_offset) = src
                    .strides_and_offset()
                    .ok_or_else(|| unsupported(span, format!("'{name}' of {}", Type::MemRef(src.clone()))))?;
                let src_stride: Vec<ValueId> = (0..src.rank())
                    .map(|k| match src_strides[k] {
                        Some(s) => b.llvm_const(s, Type::i64()),
                        None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[4, k as i64])),
                    })
                    .collect();
                let base_off = match src_offset {
                    Some(o) => b.llvm_const(o, Type::i64()),
                    None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[2])),
                };
                let (sizes, row_major) = static_or_dynamic_shape(&mut b, &dst, &dyn_sizes);
                let (offset, strides) = match &dst.layout {
                    xcc_ir::types::Layout::Map(map) if !map.is_identity() => {
                        if map.results.len() != src.rank() || !map.results.iter().all(|e| linear_in_dims(e)) {
                            return Err(unsupported(span, format!("'{name}' through the map {map}: it must give one source index per source dimension and be linear in its dimensions")));
                        }
                        let zero = b.llvm_const(0, Type::i64());
                        let one = b.llvm_const(1, Type::i64());
                        let at = |b: &mut Builder, unit: Option<usize>| -> Vec<ValueId> {
                            let dims: Vec<ValueId> =
                                (0..map.num_dims as usize).map(|q| if Some(q) == unit { one } else { zero }).collect();
                            map.results.iter().map(|e| eval_affine(b, e, &dims, &syms)).collect()
                        };
                        let origin = at(&mut b, None);
                        let dot = |b: &mut Builder, v: &[ValueId]| -> ValueId {
                            let mut acc = b.llvm_const(0, Type::i64());
                            for (x, s) in v.iter().zip(&src_stride) {
                                let p = b.value("llvm.mul", &[*x, *s], Type::i64());
                                acc = b.value("llvm.add", &[acc, p], Type::i64());
                            }
                            acc
                        };
                        let o = dot(&mut b, &origin);
                        let offset = b.value("llvm.add", &[base_off, o], Type::i64());
                        let strides = (0..dst.rank())
                            .map(|q| {
                                let moved = at(&mut b, Some(q));
                                let diff: Vec<ValueId> = moved
                                    .iter()
                                    .zip(&origin)
                                    .map(|(m, o)| b.value("llvm.sub", &[*m, *o], Type::i64()))
                                    .collect();
                                dot(&mut b, &diff)
                            })
                            .collect();
                        (offset, strides)
                    }
                    // No map: a view keeps the source's index space; a reshape reinterprets a
                    // contiguous buffer row-major.
                    _ if name == "std.view" && dst.rank() == src.rank() => (base_off, src_stride.clone()),
                    _ => {
                        if src.layout != xcc_ir::types::Layout::Identity
                            && !matches!(&src.layout, xcc_ir::types::Layout::Map(m) if m.is_identity())
                        {
                            return Err(unsupported(
                                span,
                                format!("'{name}' of the non-contiguous {}", Type::MemRef(src.clone())),
                            ));
                        }
                        (base_off, row_major)
                    }
                };
                let p0 = b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[0]));
                let p1 = b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[1]));
                let mut fields = vec![p0, p1, offset];
                fields.extend(sizes);
                fields.extend(strides);
                vec![build_descriptor(&mut b, dst.rank(), &fields)]
            }
            "memref.view" => {
                let dst = old.ty(d.results[0]).as_memref().expect("verified").clone();
                let base = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[1]));
                let src_off = b.value_with("llvm.extractvalue", &[ops[0]], Type::i64(), pos(&[2]));
                let shift = b.value("llvm.add", &[src_off, ops[1]], Type::i64());
                let aligned = b.value_with(
                    "llvm.getelementptr",
                    &[base, shift],
                    Type::ptr(),
                    vec![
                        (
                            "rawConstantIndices".into(),
                            Attribute::DenseArray { elem: Type::i32(), values: vec![i32::MIN as i128] },
                        ),
                        ("elem_type".into(), Attribute::Type(Type::i8())),
                    ],
                );
                let allocated = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[0]));
                let (sizes, strides) = static_or_dynamic_shape(&mut b, &dst, &ops[2..]);
                let zero = b.llvm_const(0, Type::i64());
                let mut fields = vec![allocated, aligned, zero];
                fields.extend(sizes);
                fields.extend(strides);
                vec![build_descriptor(&mut b, dst.rank(), &fields)]
            }
            "memref.reshape" => {
                let dst = old.ty(d.results[0]).as_memref().expect("verified").clone();
                let shape_t = old.ty(d.operands[1]).as_memref().expect("verified").clone();
                let shape_elem = self_ty(&index, &shape_t.elem, span)?;
                let mut dyn_sizes = Vec::new();
                for (i, dim) in dst.shape.iter().enumerate() {
                    if dim.is_none() {
                        let c = b.llvm_const(i as i64, Type::i64());
                        let addr = element_address(&mut b, ops[1], &shape_t, &shape_elem, &[c], span)?;
                        let v = b.value("llvm.load", &[addr], shape_elem.clone());
                        dyn_sizes.push(if shape_elem == Type::i64() {
                            v
                        } else {
                            b.value("llvm.sext", &[v], Type::i64())
                        });
                    }
                }
                let (sizes, strides) = static_or_dynamic_shape(&mut b, &dst, &dyn_sizes);
                let p0 = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[0]));
                let p1 = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), pos(&[1]));
                let off = b.value_with("llvm.extractvalue", &[ops[0]], Type::i64(), pos(&[2]));
                let mut fields = vec![p0, p1, off];
                fields.extend(sizes);
                fields.extend(strides);
                vec![build_descriptor(&mut b, dst.rank(), &fields)]
            }
            "memref.dma_start" => {
                let mut i = 0;
                let addr_of = |b: &mut Builder, i: &mut usize| -> Result<(ValueId, MemRefType), Diagnostic> {
                    let mt = old.ty(d.operands[*i]).as_memref().expect("verified").clone();
                    let elem = self_ty(&index, &mt.elem, span)?;
                    let a = element_address(b, ops[*i], &mt, &elem, &ops[*i + 1..*i + 1 + mt.rank()], span)?;
                    *i += 1 + mt.rank();
                    Ok((a, mt))
                };
                let (src, smt) = addr_of(&mut b, &mut i)?;
                let (dst, _) = addr_of(&mut b, &mut i)?;
                let num = ops[i];
                i += 1;
                let (tag, tmt) = addr_of(&mut b, &mut i)?;
                if *tmt.elem != Type::i32() {
                    return Err(unsupported(
                        span,
                        format!("a DMA tag memref of {} (runtime-c tags are i32)", tmt.elem),
                    ));
                }
                let elem = self_ty(&index, &smt.elem, span)?;
                let bytes = size_in_bytes(&mut b, num, &elem);
                call(&mut b, "xcc_dma_start", &[dst, src, bytes, tag], None);
                drop(b);
                self.need("xcc_dma_start", vec![Type::ptr(), Type::ptr(), Type::i64(), Type::ptr()], vec![]);
                vec![]
            }
            "memref.dma_wait" => {
                let mt = old.ty(d.operands[0]).as_memref().expect("verified").clone();
                let elem = self_ty(&index, &mt.elem, span)?;
                let tag = element_address(&mut b, ops[0], &mt, &elem, &ops[1..1 + mt.rank()], span)?;
                call(&mut b, "xcc_dma_wait", &[tag, ops[1 + mt.rank()]], None);
                drop(b);
                self.need("xcc_dma_wait", vec![Type::ptr(), Type::i64()], vec![]);
                vec![]
            }
            "vector.broadcast" => {
                let t = result_ty.clone().expect("result");
                if b.m.ty(ops[0]) == &t {
                    vec![ops[0]]
                } else {
                    vec![splat(&mut b, ops[0], &t)]
                }
            }
            "vector.extractelement" => {
                let shape = vector_shape(old.ty(d.operands[0]));
                let i = linear_position(&mut b, &shape, &ops[1..], &[]);
                vec![b.value("llvm.extractelement", &[ops[0], i], result_ty.clone().expect("result"))]
            }
            "vector.extract" | "vector.insert" => {
                let is_insert = name == "vector.insert";
                let vec_operand = if is_insert { 1 } else { 0 };
                let shape = vector_shape(old.ty(d.operands[vec_operand]));
                let statics = old.attr(op, "static_position").and_then(Attribute::as_int_list).unwrap_or_default();
                if statics.len() != shape.len() {
                    return Err(unsupported(
                        span,
                        format!(
                            "'{name}' of a sub-vector (position of {} of {} dimensions)",
                            statics.len(),
                            shape.len()
                        ),
                    ));
                }
                let i = linear_position(&mut b, &shape, &ops[vec_operand + 1..], &statics);
                let t = result_ty.clone().expect("result");
                if is_insert {
                    vec![b.value("llvm.insertelement", &[ops[1], ops[0], i], t)]
                } else {
                    vec![b.value("llvm.extractelement", &[ops[0], i], t)]
                }
            }
            "vector.insertelement" => {
                vec![b.value("llvm.insertelement", &[ops[1], ops[0], ops[2]], result_ty.clone().expect("result"))]
            }
            "vector.reduction" => {
                // `#vector.kind<add>`, or a plain string from older text.
                let kind = match old.attr(op, "kind") {
                    Some(Attribute::Opaque(s)) => {
                        s.trim_start_matches("#vector.kind<").trim_end_matches('>').to_string()
                    }
                    Some(Attribute::String(s)) => s.clone(),
                    _ => "add".to_string(),
                };
                let t = result_ty.clone().expect("result");
                let is_float = t.is_float();
                let intr = match (kind.as_str(), is_float) {
                    ("add", true) => "llvm.intr.vector.reduce.fadd",
                    ("mul", true) => "llvm.intr.vector.reduce.fmul",
                    ("maxnumf" | "maximumf", true) => "llvm.intr.vector.reduce.fmax",
                    ("minnumf" | "minimumf", true) => "llvm.intr.vector.reduce.fmin",
                    ("add", false) => "llvm.intr.vector.reduce.add",
                    ("mul", false) => "llvm.intr.vector.reduce.mul",
                    ("maxsi", false) => "llvm.intr.vector.reduce.smax",
                    ("minsi", false) => "llvm.intr.vector.reduce.smin",
                    ("and", false) => "llvm.intr.vector.reduce.and",
                    ("or", false) => "llvm.intr.vector.reduce.or",
                    ("xor", false) => "llvm.intr.vector.reduce.xor",
                    _ => return Err(unsupported(span, format!("vector.reduction <{kind}> on {t}"))),
                };
                if matches!(kind.as_str(), "add" | "mul") && is_float {
                    let start = float_const(&mut b, if kind == "add" { -0.0 } else { 1.0 }, &t);
                    vec![b.value_with(intr, &[start, ops[0]], t, vec![("reassoc".into(), Attribute::Unit)])]
                } else {
                    vec![b.value(intr, &ops, t)]
                }
            }
            "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" if !self.gpu => {
                return Err(unsupported(span, format!("'{name}' outside GPU code (compile with --target=nvptx64)")));
            }
            "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" => {
                // `#gpu<dim x>`, or the plain string `"x"` in hand-written generic form.
                let dim = match old.attr(op, "dimension") {
                    Some(Attribute::Opaque(s)) => {
                        s.trim_start_matches("#gpu<dim ").trim_end_matches('>').trim().to_string()
                    }
                    Some(Attribute::String(s)) => s.clone(),
                    _ => return Err(unsupported(span, format!("'{name}' without a dimension attribute"))),
                };
                if !["x", "y", "z"].contains(&dim.as_str()) {
                    return Err(unsupported(span, format!("'{name}' dimension '{dim}' (expected x, y or z)")));
                }
                let reg = match name {
                    "gpu.thread_id" => "tid",
                    "gpu.block_id" => "ctaid",
                    "gpu.block_dim" => "ntid",
                    _ => "nctaid",
                };
                let v = b.value(&format!("llvm.intr.nvvm.read.ptx.sreg.{reg}.{dim}"), &[], Type::i32());
                vec![b.value("llvm.zext", &[v], index.clone())]
            }
            n if n.starts_with("llvm.") => {
                // Already in the llvm dialect (or an LLVM intrinsic in generic form): keep it.
                let mut spec = b.spec(n).operands(ops.clone());
                spec.attrs = d.attrs.clone();
                for &r in &d.results {
                    spec.result_types.push(self_ty(&index, old.ty(r), span)?);
                }
                for s in &d.successors {
                    let args = s.args.iter().map(|&a| self_v(&self.values, a)).collect();
                    spec = spec.successor(self.blocks[&s.block], args);
                }
                if !d.regions.is_empty() {
                    return Err(unsupported(span, format!("'{n}' with regions")));
                }
                let nop = b.insert(spec);
                b.m.ops[nop].results.clone()
            }
            other => return Err(unsupported(span, format!("operation '{other}'"))),
        };
        for (&r, v) in d.results.iter().zip(produced) {
            self.values.insert(r, v);
        }
        Ok(())
    }

    fn emit_c_interface(
        &mut self,
        name: &str,
        ft: &FunctionType,
        sig: &FunctionType,
        span: Span,
    ) -> Result<(), Diagnostic> {
        // Upstream's convention: memref arguments by pointer to descriptor; a memref result or
        // several results through a pointer passed as the first argument; a scalar result directly.
        let result_by_pointer = ft.results.len() > 1 || ft.results.iter().any(|t| matches!(t, Type::MemRef(_)));
        let mut inputs = Vec::new();
        if result_by_pointer {
            inputs.push(Type::ptr());
        }
        for t in &ft.inputs {
            inputs.push(if matches!(t, Type::MemRef(_)) { Type::ptr() } else { self.ty(t, span)? });
        }
        let results = if result_by_pointer { Vec::new() } else { sig.results.clone() };
        let region = self.new.new_region();
        let body = self.new.body_block();
        self.new.build(
            body,
            OpSpec::new("llvm.func", span)
                .attr("sym_name", Attribute::String(format!("_mlir_ciface_{name}")))
                .attr(
                    "function_type",
                    Attribute::Type(Type::Function(FunctionType { inputs: inputs.clone(), results })),
                )
                .region(region),
        );
        let entry = self.new.append_block(region, span);
        let params: Vec<ValueId> = inputs.iter().map(|t| self.new.add_block_arg(entry, t.clone(), span)).collect();
        let mut b = Builder::at_end(&mut self.new, entry, span);
        let mut args = Vec::new();
        let mut next = if result_by_pointer { 1 } else { 0 };
        for t in &ft.inputs {
            if let Type::MemRef(m) = t {
                let desc = b.value("llvm.load", &[params[next]], descriptor_type(m.rank()));
                args.extend(explode_descriptor(&mut b, desc, m.rank()));
            } else {
                args.push(params[next]);
            }
            next += 1;
        }
        let mut spec = b.spec("llvm.call").operands(args).attr("callee", Attribute::symbol(name));
        spec.result_types = sig.results.clone();
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
        Ok(())
    }
}

/// Whether an affine expression is linear in its dimensions (products and divisions involve at
/// most one side with dimensions, and never divide a dimension).
fn linear_in_dims(e: &xcc_ir::affine::AffineExpr) -> bool {
    use xcc_ir::affine::AffineExpr as E;
    fn has_dim(e: &E) -> bool {
        match e {
            E::Dim(_) => true,
            E::Symbol(_) | E::Const(_) => false,
            E::Add(a, b) | E::Mul(a, b) | E::FloorDiv(a, b) | E::CeilDiv(a, b) | E::Mod(a, b) => {
                has_dim(a) || has_dim(b)
            }
        }
    }
    match e {
        E::Dim(_) | E::Symbol(_) | E::Const(_) => true,
        E::Add(a, b) => linear_in_dims(a) && linear_in_dims(b),
        E::Mul(a, b) => !(has_dim(a) && has_dim(b)) && linear_in_dims(a) && linear_in_dims(b),
        E::FloorDiv(a, b) | E::CeilDiv(a, b) | E::Mod(a, b) => !has_dim(a) && !has_dim(b),
    }
}

/// Evaluates an affine expression in the llvm dialect (i64), with floor semantics for divisions.
fn eval_affine(b: &mut Builder, e: &xcc_ir::affine::AffineExpr, dims: &[ValueId], syms: &[ValueId]) -> ValueId {
    use xcc_ir::affine::AffineExpr as E;
    match e {
        E::Dim(i) => dims[*i as usize],
        E::Symbol(i) => syms[*i as usize],
        E::Const(c) => b.llvm_const(*c, Type::i64()),
        E::Add(x, y) | E::Mul(x, y) => {
            let (l, r) = (eval_affine(b, x, dims, syms), eval_affine(b, y, dims, syms));
            b.value(if matches!(e, E::Add(..)) { "llvm.add" } else { "llvm.mul" }, &[l, r], Type::i64())
        }
        E::FloorDiv(x, y) | E::CeilDiv(x, y) | E::Mod(x, y) => {
            let (l, r) = (eval_affine(b, x, dims, syms), eval_affine(b, y, dims, syms));
            match e {
                E::FloorDiv(..) => div_round(b, "arith.floordivsi", l, r, Type::i64()),
                E::CeilDiv(..) => div_round(b, "arith.ceildivsi", l, r, Type::i64()),
                _ => {
                    let rem = b.value("llvm.srem", &[l, r], Type::i64());
                    let zero = b.llvm_const(0, Type::i64());
                    let neg = b.value_with("llvm.icmp", &[rem, zero], Type::i1(), pred(2));
                    let adj = b.value("llvm.add", &[rem, r], Type::i64());
                    b.value("llvm.select", &[neg, adj, rem], Type::i64())
                }
            }
        }
    }
}

fn vector_shape(t: &Type) -> Vec<u64> {
    match t {
        Type::Vector { shape, .. } => shape.clone(),
        _ => Vec::new(),
    }
}

/// The row-major position in a flattened vector: static entries from `statics`
/// (`i64::MIN` marks a dynamic one, taken from `dynamic` in order) or, without statics, all
/// from `dynamic`.
fn linear_position(b: &mut Builder, shape: &[u64], dynamic: &[ValueId], statics: &[i128]) -> ValueId {
    let strides: Vec<i64> = (0..shape.len()).map(|i| shape[i + 1..].iter().product::<u64>() as i64).collect();
    let mut next = 0;
    let mut acc = b.llvm_const(0, Type::i64());
    for (d, &stride) in strides.iter().enumerate() {
        let idx = match statics.get(d) {
            Some(&s) if s != i64::MIN as i128 => b.llvm_const(s as i64, Type::i64()),
            _ => {
                next += 1;
                match dynamic.get(next - 1) {
                    Some(&v) => v,
                    None => b.llvm_const(0, Type::i64()),
                }
            }
        };
        let sv = b.llvm_const(stride, Type::i64());
        let m = b.value("llvm.mul", &[idx, sv], Type::i64());
        acc = b.value("llvm.add", &[acc, m], Type::i64());
    }
    acc
}

fn self_v(values: &HashMap<ValueId, ValueId>, v: ValueId) -> ValueId {
    values[&v]
}

fn self_ty(index: &Type, t: &Type, span: Span) -> Result<Type, Diagnostic> {
    let cx_like = TypeOnly { index: index.clone() };
    cx_like.ty(t, span)
}

struct TypeOnly {
    index: Type,
}

impl TypeOnly {
    fn ty(&self, t: &Type, span: Span) -> Result<Type, Diagnostic> {
        Ok(match t {
            Type::Index => self.index.clone(),
            Type::Integer { width, .. } => Type::int(*width),
            Type::Vector { shape, elem } => {
                Type::Vector { shape: vec![shape.iter().product()], elem: Box::new(self.ty(elem, span)?) }
            }
            Type::MemRef(m) => descriptor_type(m.rank()),
            Type::UnrankedMemRef { .. } => Type::LlvmStruct { packed: false, fields: vec![Type::i64(), Type::ptr()] },
            Type::Function(_) => Type::ptr(),
            Type::Float(_) | Type::LlvmPtr { .. } | Type::LlvmVoid | Type::LlvmFunc { .. } => t.clone(),
            Type::LlvmStruct { packed, fields } => Type::LlvmStruct {
                packed: *packed,
                fields: fields.iter().map(|f| self.ty(f, span)).collect::<Result<_, _>>()?,
            },
            Type::LlvmArray { len, elem } => Type::LlvmArray { len: *len, elem: Box::new(self.ty(elem, span)?) },
            Type::Tensor { .. } => {
                return Err(unsupported(
                    span,
                    format!("tensor value of type {t} (tensors must be bufferized to memrefs first)"),
                ))
            }
            _ => return Err(unsupported(span, format!("type {t}"))),
        })
    }
}

fn packed_results_with(index: &Type, results: &[Type], span: Span) -> Result<Vec<Type>, Diagnostic> {
    let t = TypeOnly { index: index.clone() };
    Ok(match results.len() {
        0 => Vec::new(),
        1 => vec![t.ty(&results[0], span)?],
        _ => vec![Type::LlvmStruct {
            packed: false,
            fields: results.iter().map(|r| t.ty(r, span)).collect::<Result<_, _>>()?,
        }],
    })
}

fn signature_with(index: &Type, ft: &FunctionType, span: Span) -> Result<FunctionType, Diagnostic> {
    let t = TypeOnly { index: index.clone() };
    let mut inputs = Vec::new();
    for i in &ft.inputs {
        match i {
            Type::MemRef(m) => {
                inputs.extend([Type::ptr(), Type::ptr(), Type::i64()]);
                inputs.extend(std::iter::repeat(Type::i64()).take(2 * m.rank()));
            }
            _ => inputs.push(t.ty(i, span)?),
        }
    }
    Ok(FunctionType { inputs, results: packed_results_with(index, &ft.results, span)? })
}

fn call(b: &mut Builder, callee: &str, args: &[ValueId], result: Option<Type>) -> ValueId {
    let spec = b
        .spec("llvm.call")
        .operands(args.iter().copied())
        .results(result.clone())
        .attr("callee", Attribute::symbol(callee));
    let op = b.insert(spec);
    b.m.ops[op].results.first().copied().unwrap_or(args.first().copied().unwrap_or(ValueId::from_index(0)))
}

fn float_const(b: &mut Builder, v: f64, t: &Type) -> ValueId {
    match t {
        Type::Vector { shape, elem } => {
            let values = xcc_ir::attributes::DenseValues::Float(vec![v]);
            let _ = shape;
            let _ = elem;
            b.value_with(
                "llvm.mlir.constant",
                &[],
                t.clone(),
                vec![("value".into(), Attribute::Dense { values, ty: t.clone() })],
            )
        }
        _ => b.value_with(
            "llvm.mlir.constant",
            &[],
            t.clone(),
            vec![("value".into(), Attribute::Float { value: v, ty: t.clone() })],
        ),
    }
}

fn splat(b: &mut Builder, scalar: ValueId, vt: &Type) -> ValueId {
    let undef = b.value("llvm.mlir.poison", &[], vt.clone());
    let zero = b.llvm_const(0, Type::i32());
    let ins = b.value("llvm.insertelement", &[undef, scalar, zero], vt.clone());
    let n = match vt {
        Type::Vector { shape, .. } => shape[0],
        _ => 1,
    };
    b.value_with(
        "llvm.shufflevector",
        &[ins, ins],
        vt.clone(),
        vec![("mask".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![0; n as usize] })],
    )
}

/// `floordiv`/`ceildiv` from truncating division: adjust the quotient by one when the
/// remainder is non-zero and the signs call for it.
fn div_round(b: &mut Builder, name: &str, a: ValueId, d: ValueId, t: Type) -> ValueId {
    if name == "arith.ceildivui" {
        let q = b.value("llvm.udiv", &[a, d], t.clone());
        let r = b.value("llvm.urem", &[a, d], t.clone());
        let zero = b.llvm_const(0, t.clone());
        let nz = b.value_with("llvm.icmp", &[r, zero], Type::i1(), pred(1));
        let one = b.llvm_const(1, t.clone());
        let q1 = b.value("llvm.add", &[q, one], t.clone());
        return b.value("llvm.select", &[nz, q1, q], t);
    }
    let q = b.value("llvm.sdiv", &[a, d], t.clone());
    let r = b.value("llvm.srem", &[a, d], t.clone());
    let zero = b.llvm_const(0, t.clone());
    let nz = b.value_with("llvm.icmp", &[r, zero], Type::i1(), pred(1));
    // Signs differ: (r < 0) != (d < 0)
    let rneg = b.value_with("llvm.icmp", &[r, zero], Type::i1(), pred(2));
    let dneg = b.value_with("llvm.icmp", &[d, zero], Type::i1(), pred(2));
    let differ = b.value("llvm.xor", &[rneg, dneg], Type::i1());
    let one = b.llvm_const(1, t.clone());
    if name == "arith.floordivsi" {
        let adjust = b.value("llvm.and", &[nz, differ], Type::i1());
        let q1 = b.value("llvm.sub", &[q, one], t.clone());
        b.value("llvm.select", &[adjust, q1, q], t)
    } else {
        let t1 = b_true(b);
        let same = b.value("llvm.xor", &[differ, t1], Type::i1());
        let adjust = b.value("llvm.and", &[nz, same], Type::i1());
        let q1 = b.value("llvm.add", &[q, one], t.clone());
        b.value("llvm.select", &[adjust, q1, q], t)
    }
}

fn b_true(b: &mut Builder) -> ValueId {
    b.llvm_const(1, Type::i1())
}

fn build_descriptor(b: &mut Builder, rank: usize, fields: &[ValueId]) -> ValueId {
    let t = descriptor_type(rank);
    let mut d = b.value("llvm.mlir.undef", &[], t.clone());
    for (i, &f) in fields[..3].iter().enumerate() {
        d = b.value_with("llvm.insertvalue", &[d, f], t.clone(), pos(&[i as i64]));
    }
    for i in 0..rank {
        d = b.value_with("llvm.insertvalue", &[d, fields[3 + i]], t.clone(), pos(&[3, i as i64]));
        d = b.value_with("llvm.insertvalue", &[d, fields[3 + rank + i]], t.clone(), pos(&[4, i as i64]));
    }
    d
}

fn explode_descriptor(b: &mut Builder, desc: ValueId, rank: usize) -> Vec<ValueId> {
    let mut out = vec![
        b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[0])),
        b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[1])),
        b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[2])),
    ];
    for f in [3, 4] {
        for i in 0..rank {
            out.push(b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[f, i as i64])));
        }
    }
    out
}

/// Sizes and row-major strides of a new allocation, from the type's static dims and the
/// dynamic-size operands.
fn static_or_dynamic_shape(b: &mut Builder, mt: &MemRefType, dyn_sizes: &[ValueId]) -> (Vec<ValueId>, Vec<ValueId>) {
    let mut next = 0;
    let sizes: Vec<ValueId> = mt
        .shape
        .iter()
        .map(|d| match d {
            Some(s) => b.llvm_const(*s as i64, Type::i64()),
            None => {
                next += 1;
                dyn_sizes[next - 1]
            }
        })
        .collect();
    let mut strides = vec![ValueId::from_index(0); sizes.len()];
    let mut running: Option<ValueId> = None;
    for i in (0..sizes.len()).rev() {
        let s = match running {
            None => b.llvm_const(1, Type::i64()),
            Some(r) => r,
        };
        strides[i] = s;
        running = Some(if i > 0 { b.value("llvm.mul", &[s, sizes[i]], Type::i64()) } else { s });
    }
    (sizes, strides)
}

fn product(b: &mut Builder, vals: &[ValueId]) -> ValueId {
    let mut acc = b.llvm_const(1, Type::i64());
    for &v in vals {
        acc = b.value("llvm.mul", &[acc, v], Type::i64());
    }
    acc
}

/// `n * sizeof(elem)`, with the size taken from LLVM's layout (`gep null[1]`).
fn size_in_bytes(b: &mut Builder, n: ValueId, elem: &Type) -> ValueId {
    let null = b.value("llvm.mlir.zero", &[], Type::ptr());
    let one = b.llvm_const(1, Type::i64());
    let gep = b.value_with(
        "llvm.getelementptr",
        &[null, one],
        Type::ptr(),
        vec![
            ("rawConstantIndices".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![i32::MIN as i128] }),
            ("elem_type".into(), Attribute::Type(elem.clone())),
        ],
    );
    let size = b.value("llvm.ptrtoint", &[gep], Type::i64());
    b.value("llvm.mul", &[n, size], Type::i64())
}

fn natural_align(t: &Type) -> i64 {
    match t {
        Type::Integer { width, .. } => ((*width as u64).div_ceil(8)).next_power_of_two().min(16) as i64,
        Type::Float(k) => (k.width() / 8) as i64,
        Type::Vector { elem, .. } => natural_align(elem),
        _ => 8,
    }
}

/// The address of `desc[indices]`: aligned + (offset + sum(index_i * stride_i)) elements.
/// Static strides and offset from the type become constants.
fn element_address(
    b: &mut Builder,
    desc: ValueId,
    mt: &MemRefType,
    elem: &Type,
    idx: &[ValueId],
    span: Span,
) -> Result<ValueId, Diagnostic> {
    let Some((strides, offset)) = mt.strides_and_offset() else {
        return Err(unsupported(span, format!("the layout of {}", Type::MemRef(mt.clone()))));
    };
    let aligned = b.value_with("llvm.extractvalue", &[desc], Type::ptr(), pos(&[1]));
    let mut linear = match offset {
        Some(o) => b.llvm_const(o, Type::i64()),
        None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[2])),
    };
    for (i, &x) in idx.iter().enumerate() {
        let s = match strides.get(i).copied().flatten() {
            Some(s) => b.llvm_const(s, Type::i64()),
            None => b.value_with("llvm.extractvalue", &[desc], Type::i64(), pos(&[4, i as i64])),
        };
        let m = b.value("llvm.mul", &[x, s], Type::i64());
        linear = b.value("llvm.add", &[linear, m], Type::i64());
    }
    Ok(b.value_with(
        "llvm.getelementptr",
        &[aligned, linear],
        Type::ptr(),
        vec![
            ("rawConstantIndices".into(), Attribute::DenseArray { elem: Type::i32(), values: vec![i32::MIN as i128] }),
            ("elem_type".into(), Attribute::Type(elem.clone())),
            ("inbounds".into(), Attribute::Unit),
        ],
    ))
}

fn constant_index(m: &Module, v: ValueId) -> Option<i64> {
    let op = m.defining_op(v)?;
    if m.ops[op].name != "arith.constant" {
        return None;
    }
    m.attr(op, "value").and_then(Attribute::as_int).map(|x| x as i64)
}
