//! `finalize-memref-to-llvm`: buffers to descriptors (see [`super::memref_descriptor`]).
//!
//! `alloc`/`dealloc` call runtime-c's `xcc_alloc`/`xcc_free`, the DMA operations its
//! `xcc_dma_start`/`xcc_dma_wait`; `alloca` is stack memory; globals are byte arrays aligned for
//! vector loads; views compute a new descriptor from the old one.

use super::memref_descriptor::{gep, MemRefDescriptor};
use super::{unsupported, ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::affine::AffineExpr;
use xcc_ir::attributes::DenseValues;
use xcc_ir::types::{Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, OpId, OpSpec, Span, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "memref",
    one_to_one: &[],
    patterns: &[
        ("memref.global", global),
        ("memref.get_global", get_global),
        ("memref.alloc", alloc),
        ("memref.alloca", alloc),
        ("memref.alloc_static", alloc),
        ("memref.dealloc", dealloc),
        ("memref.load", load_store),
        ("memref.store", load_store),
        ("memref.atomic_rmw", atomic_rmw),
        ("memref.dim", dim),
        ("memref.cast", cast),
        ("memref.subview", subview),
        ("memref.reinterpret_cast", reinterpret_cast),
        ("memref.view", view),
        ("memref.reshape", reshape),
        ("memref.copy", copy),
        ("memref.extract_aligned_pointer_as_index", aligned_pointer),
        ("memref.dma_start", dma_start),
        ("memref.dma_wait", dma_wait),
        ("std.view", affine_view),
        ("std.reshape", affine_view),
    ],
};

fn memref_of(rw: &Rewriter, v: ValueId) -> MemRefType {
    rw.old.ty(v).as_memref().expect("verified memref").clone()
}

fn desc(value: ValueId, mt: &MemRefType) -> MemRefDescriptor {
    MemRefDescriptor { value, rank: mt.rank() }
}

/// Constant data becomes an internal byte-array global, 64-byte aligned for vector loads.
fn global(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let span = old.ops[op].span;
    let value = old
        .attr(op, "initial_value")
        .cloned()
        .ok_or_else(|| unsupported(span, "memref.global without an initial value"))?;
    let bytes = match &value {
        Attribute::Dense { values: DenseValues::Hex(b), .. } => b.len(),
        _ => return Err(unsupported(span, "memref.global whose initial value is not raw (hex) data")),
    };
    let mut spec = OpSpec::new("llvm.mlir.global", span)
        .attr("sym_name", old.attr(op, "sym_name").cloned().expect("verified"))
        .attr("global_type", Attribute::Type(Type::LlvmArray { len: bytes as u64, elem: Box::new(Type::i8()) }))
        .attr("value", value)
        .attr("alignment", Attribute::i64(old.attr(op, "alignment").and_then(Attribute::as_int).unwrap_or(64) as i64))
        .attr("linkage", Attribute::String("internal".into()));
    if old.attr(op, "constant").is_some() {
        spec = spec.attr("constant", Attribute::Unit);
    }
    rw.add_top_level(spec);
    Ok(vec![])
}

fn get_global(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let mt = rw.old.ty(rw.old.ops[op].results[0]).as_memref().expect("verified memref").clone();
    let sym = rw.old.attr(op, "name").cloned().expect("verified");
    let span = rw.old.ops[op].span;
    let mut b = rw.builder(span);
    let p = b.value_with("llvm.mlir.addressof", &[], Type::ptr(), vec![("global_name".into(), sym)]);
    Ok(vec![MemRefDescriptor::from_pointers(&mut b, p, p, &mt, &[]).value])
}

fn alloc(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let name = old.ops[op].name.as_str();
    let span = old.ops[op].span;
    let mt = old.ty(old.ops[op].results[0]).as_memref().expect("verified memref").clone();
    let row_major = mt.strides_and_offset().map(|(s, _)| s) == Some(xcc_ir::types::identity_strides(&mt.shape));
    if !matches!(&mt.layout, Layout::Identity) && !row_major {
        return Err(unsupported(
            span,
            format!("allocating {} (only row-major layouts can be allocated)", Type::MemRef(mt)),
        ));
    }
    let elem = rw.types.convert(&mt.elem, span)?;
    let alignment = old.attr(op, "alignment").and_then(Attribute::as_int);
    let ops = rw.operands(op)?;
    let gpu = rw.options.gpu();
    if name == "memref.alloc" {
        if gpu {
            return Err(unsupported(span, "memref.alloc in GPU code"));
        }
        rw.declare("xcc_alloc", vec![Type::i64(), Type::i64()], vec![Type::ptr()]);
    }
    let mut b = rw.builder(span);
    let dynamic = &ops[..mt.shape.iter().filter(|d| d.is_none()).count()];
    let (sizes, strides) = MemRefDescriptor::row_major(&mut b, &mt, dynamic);
    let total = product(&mut b, &sizes);
    let ptr = match name {
        "memref.alloc" => {
            let bytes = size_in_bytes(&mut b, total, &elem);
            let a = b.llvm_const(alignment.unwrap_or(64).max(16) as i64, Type::i64());
            let spec = b
                .spec("llvm.call")
                .operands([bytes, a])
                .results([Type::ptr()])
                .attr("callee", Attribute::symbol("xcc_alloc"));
            let c = b.insert(spec);
            b.m.result(c, 0)
        }
        "memref.alloca" => b.value_with(
            "llvm.alloca",
            &[total],
            Type::ptr(),
            vec![
                ("elem_type".into(), Attribute::Type(elem.clone())),
                ("alignment".into(), Attribute::i64(alignment.unwrap_or(16) as i64)),
            ],
        ),
        _ => {
            let base = old.attr(op, "base").and_then(Attribute::as_int).unwrap_or(0) as i64;
            let c = b.llvm_const(base, Type::i64());
            b.value("llvm.inttoptr", &[c], Type::ptr())
        }
    };
    let zero = b.llvm_const(0, Type::i64());
    let fields: Vec<ValueId> = [ptr, ptr, zero].into_iter().chain(sizes).chain(strides).collect();
    Ok(vec![MemRefDescriptor::pack(&mut b, mt.rank(), &fields).value])
}

fn dealloc(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let ops = rw.operands(op)?;
    let mt = memref_of(rw, rw.old.ops[op].operands[0]);
    let span = rw.old.ops[op].span;
    rw.declare("xcc_free", vec![Type::ptr()], vec![]);
    let mut b = rw.builder(span);
    let p = desc(ops[0], &mt).allocated_ptr(&mut b);
    let spec = b.spec("llvm.call").operands([p]).attr("callee", Attribute::symbol("xcc_free"));
    b.insert(spec);
    Ok(vec![])
}

fn load_store(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let is_load = rw.old.ops[op].name == "memref.load";
    let m = if is_load { 0 } else { 1 };
    let mt = memref_of(rw, rw.old.ops[op].operands[m]);
    let span = rw.old.ops[op].span;
    let elem = rw.types.convert(&mt.elem, span)?;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let addr = desc(ops[m], &mt).element_address(&mut b, &mt, &elem, &ops[m + 1..])?;
    let align = vec![("alignment".into(), Attribute::i64(natural_align(&elem)))];
    if is_load {
        return Ok(vec![b.value_with("llvm.load", &[addr], elem, align)]);
    }
    let mut spec = b.spec("llvm.store").operands([ops[0], addr]);
    spec.attrs = align;
    b.insert(spec);
    Ok(vec![])
}

/// `llvm.atomicrmw` on the element's address, acq_rel as upstream's lowering; mulf and muli have
/// no LLVM operation (upstream leaves them to a compare-and-swap loop that xcc does not build).
fn atomic_rmw(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let span = old.ops[op].span;
    let mt = memref_of(rw, old.ops[op].operands[1]);
    let kind = old.attr(op, "kind").and_then(Attribute::as_int).unwrap_or(0) as usize;
    let (name, _) = xcc_ir::dialects::memref::ATOMIC_RMW_KINDS[kind];
    // The llvm dialect's atomicrmw operation for each kind, by number (llvm_atomics::BIN_OPS).
    let bin_op = match name {
        "assign" => 0,
        "addi" => 1,
        "andi" => 3,
        "ori" => 5,
        "xori" => 6,
        "maxs" => 7,
        "mins" => 8,
        "maxu" => 9,
        "minu" => 10,
        "addf" => 11,
        "maxnumf" => 13,
        "minnumf" => 14,
        "maximumf" => 19,
        "minimumf" => 20,
        _ => return Err(unsupported(span, format!("memref.atomic_rmw {name} (LLVM has no atomic {name})"))),
    };
    let elem = rw.types.convert(&mt.elem, span)?;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let addr = desc(ops[1], &mt).element_address(&mut b, &mt, &elem, &ops[2..])?;
    let attrs = vec![("bin_op".into(), Attribute::i64(bin_op)), ("ordering".into(), Attribute::i64(6))];
    Ok(vec![b.value_with("llvm.atomicrmw", &[addr, ops[0]], elem, attrs)])
}

fn dim(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let span = old.ops[op].span;
    let d = &old.ops[op];
    let mt = old.ty(d.operands[0]).as_memref().cloned();
    let index = match old.attr(op, "index").and_then(Attribute::as_int) {
        Some(i) => Some(i as i64),
        None => constant_index(old, d.operands[1]),
    };
    let Some(i) = index else { return Err(unsupported(span, "memref.dim with a dimension that is not a constant")) };
    let ops = rw.operands(op)?;
    let it = rw.types.index.clone();
    let mut b = rw.builder(span);
    match mt.as_ref().and_then(|m| m.shape.get(i as usize).copied()) {
        Some(Some(s)) => Ok(vec![b.llvm_const(s as i64, it)]),
        Some(None) => Ok(vec![desc(ops[0], mt.as_ref().expect("ranked")).size(&mut b, i as usize)]),
        None => Err(unsupported(span, "memref.dim of an unranked memref")),
    }
}

fn constant_index(m: &xcc_ir::Module, v: ValueId) -> Option<i64> {
    let op = m.defining_op(v)?;
    if m.ops[op].name != "arith.constant" {
        return None;
    }
    m.attr(op, "value").and_then(Attribute::as_int).map(|x| x as i64)
}

fn cast(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let (from, to) = (old.ty(old.ops[op].operands[0]).clone(), old.ty(old.ops[op].results[0]).clone());
    let span = old.ops[op].span;
    let ops = rw.operands(op)?;
    let t = rw.result_type(op, 0)?;
    let mut b = rw.builder(span);
    Ok(vec![match (&from, &to) {
        (Type::MemRef(_), Type::MemRef(_)) => ops[0],
        (Type::MemRef(m), Type::UnrankedMemRef { .. }) => {
            // The descriptor goes to the stack; the unranked value is {rank, pointer to it}.
            let one = b.llvm_const(1, Type::i64());
            let dt = MemRefDescriptor::struct_type(m.rank());
            let slot =
                b.value_with("llvm.alloca", &[one], Type::ptr(), vec![("elem_type".into(), Attribute::Type(dt))]);
            let spec = b.spec("llvm.store").operands([ops[0], slot]);
            b.insert(spec);
            let rank = b.llvm_const(m.rank() as i64, Type::i64());
            let u = b.value("llvm.mlir.undef", &[], t.clone());
            let u = b.value_with("llvm.insertvalue", &[u, rank], t.clone(), super::memref_descriptor::position(&[0]));
            b.value_with("llvm.insertvalue", &[u, slot], t, super::memref_descriptor::position(&[1]))
        }
        (Type::UnrankedMemRef { .. }, Type::MemRef(_)) => {
            let p = b.value_with("llvm.extractvalue", &[ops[0]], Type::ptr(), super::memref_descriptor::position(&[1]));
            b.value("llvm.load", &[p], t)
        }
        _ => return Err(unsupported(span, format!("memref.cast from {from} to {to}"))),
    }])
}

/// The dynamic entries of a static/dynamic list, in order, as i64 values (constants for the
/// static ones).
fn mixed(b: &mut Builder, list: &[i128], dynamic: &mut std::slice::Iter<ValueId>) -> Vec<ValueId> {
    list.iter()
        .map(|&x| match x == i64::MIN as i128 {
            true => *dynamic.next().expect("verified operand groups"),
            false => b.llvm_const(x as i64, Type::i64()),
        })
        .collect()
}

fn static_lists(rw: &Rewriter, op: OpId) -> Vec<Vec<i128>> {
    ["static_offsets", "static_sizes", "static_strides"]
        .iter()
        .map(|k| rw.old.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default())
        .collect()
}

fn subview(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let src = memref_of(rw, old.ops[op].operands[0]);
    let dst = old.ty(old.ops[op].results[0]).as_memref().expect("verified").clone();
    let lists = static_lists(rw, op);
    let span = old.ops[op].span;
    let ops = rw.operands(op)?;
    let (src_strides, src_offset) =
        src.strides_and_offset().ok_or_else(|| unsupported(span, "subview of a non-strided layout"))?;
    let mut b = rw.builder(span);
    let mut dynamic = ops[1..].iter();
    let (offs, sizes, steps) = (
        mixed(&mut b, &lists[0], &mut dynamic),
        mixed(&mut b, &lists[1], &mut dynamic),
        mixed(&mut b, &lists[2], &mut dynamic),
    );
    let d = desc(ops[0], &src);
    let mut offset = d.offset_or_static(&mut b, src_offset);
    let mut strides = Vec::new();
    for i in 0..src.rank() {
        let s = d.stride_or_static(&mut b, i, src_strides[i]);
        let moved = b.value("llvm.mul", &[offs[i], s], Type::i64());
        offset = b.value("llvm.add", &[offset, moved], Type::i64());
        strides.push(b.value("llvm.mul", &[s, steps[i]], Type::i64()));
    }
    // A rank-reducing subview drops unit dimensions, leading ones first.
    let mut keep: Vec<usize> = (0..src.rank()).collect();
    let mut excess = src.rank() - dst.rank();
    keep.retain(|&i| {
        let drop = excess > 0 && lists[1][i] == 1;
        excess -= usize::from(drop);
        !drop
    });
    if keep.len() != dst.rank() {
        return Err(unsupported(span, "a rank-reducing subview that does not drop unit dimensions"));
    }
    let mut fields = vec![d.allocated_ptr(&mut b), d.aligned_ptr(&mut b), offset];
    fields.extend(keep.iter().map(|&i| sizes[i]));
    fields.extend(keep.iter().map(|&i| strides[i]));
    Ok(vec![MemRefDescriptor::pack(&mut b, dst.rank(), &fields).value])
}

fn reinterpret_cast(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let dst = old.ty(old.ops[op].results[0]).as_memref().expect("verified").clone();
    let source_rank = match old.ty(old.ops[op].operands[0]) {
        Type::MemRef(m) => m.rank(),
        _ => return Err(unsupported(old.ops[op].span, "reinterpret_cast of an unranked memref")),
    };
    let lists = static_lists(rw, op);
    let span = old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let mut dynamic = ops[1..].iter();
    let offset = mixed(&mut b, &lists[0], &mut dynamic);
    let sizes = mixed(&mut b, &lists[1], &mut dynamic);
    let strides = mixed(&mut b, &lists[2], &mut dynamic);
    let d = MemRefDescriptor { value: ops[0], rank: source_rank };
    let mut fields = vec![d.allocated_ptr(&mut b), d.aligned_ptr(&mut b), offset[0]];
    fields.extend(sizes);
    fields.extend(strides);
    Ok(vec![MemRefDescriptor::pack(&mut b, dst.rank(), &fields).value])
}

fn view(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let dst = rw.old.ty(rw.old.ops[op].results[0]).as_memref().expect("verified").clone();
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: ops[0], rank: 1 };
    let base = d.aligned_ptr(&mut b);
    let src_off = d.offset(&mut b);
    let shift = b.value("llvm.add", &[src_off, ops[1]], Type::i64());
    let aligned = gep(&mut b, base, shift, &Type::i8(), false);
    let allocated = d.allocated_ptr(&mut b);
    Ok(vec![MemRefDescriptor::from_pointers(&mut b, allocated, aligned, &dst, &ops[2..]).value])
}

fn reshape(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let dst = old.ty(old.ops[op].results[0]).as_memref().expect("verified").clone();
    let src = memref_of(rw, old.ops[op].operands[0]);
    let shape_t = memref_of(rw, old.ops[op].operands[1]);
    let span = old.ops[op].span;
    let shape_elem = rw.types.convert(&shape_t.elem, span)?;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let mut dyn_sizes = Vec::new();
    for (i, dim) in dst.shape.iter().enumerate() {
        if dim.is_none() {
            let c = b.llvm_const(i as i64, Type::i64());
            let addr = desc(ops[1], &shape_t).element_address(&mut b, &shape_t, &shape_elem, &[c])?;
            let v = b.value("llvm.load", &[addr], shape_elem.clone());
            dyn_sizes.push(if shape_elem == Type::i64() { v } else { b.value("llvm.sext", &[v], Type::i64()) });
        }
    }
    let (sizes, strides) = MemRefDescriptor::row_major(&mut b, &dst, &dyn_sizes);
    let d = desc(ops[0], &src);
    let mut fields = vec![d.allocated_ptr(&mut b), d.aligned_ptr(&mut b), d.offset(&mut b)];
    fields.extend(sizes);
    fields.extend(strides);
    Ok(vec![MemRefDescriptor::pack(&mut b, dst.rank(), &fields).value])
}

/// `memref.copy` of contiguous (row-major) buffers is one `memcpy`.
fn copy(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let (a, bt) = (memref_of(rw, old.ops[op].operands[0]), memref_of(rw, old.ops[op].operands[1]));
    let span = old.ops[op].span;
    let contiguous =
        |m: &MemRefType| m.strides_and_offset().map(|(s, _)| s) == Some(xcc_ir::types::identity_strides(&m.shape));
    if !contiguous(&a) || !contiguous(&bt) {
        return Err(unsupported(span, "memref.copy between non-contiguous layouts"));
    }
    let elem = rw.types.convert(&a.elem, span)?;
    let ops = rw.operands(op)?;
    let mut b = rw.builder(span);
    let (sd, dd) = (desc(ops[0], &a), desc(ops[1], &bt));
    let zero = b.llvm_const(0, Type::i64());
    let src = sd.element_address(&mut b, &a, &elem, &vec![zero; a.rank()])?;
    let dst = dd.element_address(&mut b, &bt, &elem, &vec![zero; bt.rank()])?;
    let sizes: Vec<ValueId> = (0..a.rank()).map(|i| sd.size(&mut b, i)).collect();
    let n = product(&mut b, &sizes);
    let bytes = size_in_bytes(&mut b, n, &elem);
    let no = b.llvm_const(0, Type::i1());
    let spec = b.spec("llvm.intr.memcpy").operands([dst, src, bytes, no]);
    b.insert(spec);
    Ok(vec![])
}

fn aligned_pointer(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let span = rw.old.ops[op].span;
    let rank = match rw.old.ty(rw.old.ops[op].operands[0]) {
        Type::MemRef(m) => m.rank(),
        _ => return Err(unsupported(span, "the pointer of an unranked memref")),
    };
    let ops = rw.operands(op)?;
    let it = rw.types.index.clone();
    let mut b = rw.builder(span);
    let p = MemRefDescriptor { value: ops[0], rank }.aligned_ptr(&mut b);
    Ok(vec![b.value("llvm.ptrtoint", &[p], it)])
}

/// The address of a DMA operand (a memref then its indices) starting at operand `at`.
fn dma_address(
    rw: &mut Rewriter,
    ops: &[ValueId],
    op: OpId,
    at: &mut usize,
    span: Span,
) -> Result<(ValueId, MemRefType), Diagnostic> {
    let mt = memref_of(rw, rw.old.ops[op].operands[*at]);
    let elem = rw.types.convert(&mt.elem, span)?;
    let mut b = rw.builder(span);
    let a = desc(ops[*at], &mt).element_address(&mut b, &mt, &elem, &ops[*at + 1..*at + 1 + mt.rank()])?;
    *at += 1 + mt.rank();
    Ok((a, mt))
}

fn dma_start(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut i = 0;
    let (src, smt) = dma_address(rw, &ops, op, &mut i, span)?;
    let (dst, _) = dma_address(rw, &ops, op, &mut i, span)?;
    let num = ops[i];
    i += 1;
    let (tag, tmt) = dma_address(rw, &ops, op, &mut i, span)?;
    if *tmt.elem != Type::i32() {
        return Err(unsupported(span, format!("a DMA tag memref of {} (runtime-c tags are i32)", tmt.elem)));
    }
    let elem = rw.types.convert(&smt.elem, span)?;
    rw.declare("xcc_dma_start", vec![Type::ptr(), Type::ptr(), Type::i64(), Type::ptr()], vec![]);
    let mut b = rw.builder(span);
    let bytes = size_in_bytes(&mut b, num, &elem);
    let spec = b.spec("llvm.call").operands([dst, src, bytes, tag]).attr("callee", Attribute::symbol("xcc_dma_start"));
    b.insert(spec);
    Ok(vec![])
}

fn dma_wait(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let span = rw.old.ops[op].span;
    let ops = rw.operands(op)?;
    let mut i = 0;
    let (tag, mt) = dma_address(rw, &ops, op, &mut i, span)?;
    rw.declare("xcc_dma_wait", vec![Type::ptr(), Type::i64()], vec![]);
    let mut b = rw.builder(span);
    let spec =
        b.spec("llvm.call").operands([tag, ops[1 + mt.rank()]]).attr("callee", Attribute::symbol("xcc_dma_wait"));
    b.insert(spec);
    Ok(vec![])
}

/// The original view/reshape: the result's index space maps into the source's through the
/// result's layout map R (or the identity). With R linear in its dims,
/// `offset = src_offset + sum_k R_k(0, syms) * src_stride_k` and
/// `stride_d = sum_k (R_k(e_d, syms) - R_k(0, syms)) * src_stride_k`.
fn affine_view(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let old = rw.old;
    let name = old.ops[op].name.clone();
    let src = memref_of(rw, old.ops[op].operands[0]);
    let dst = old.ty(old.ops[op].results[0]).as_memref().expect("verified").clone();
    let seg = old.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
    let (nd, ns) = (seg[1] as usize, seg[2] as usize);
    let span = old.ops[op].span;
    let ops = rw.operands(op)?;
    let dyn_sizes = ops[1..1 + nd].to_vec();
    let syms: Vec<ValueId> = ops[1 + nd..1 + nd + ns].to_vec();
    let (src_strides, src_offset) = src
        .strides_and_offset()
        .ok_or_else(|| unsupported(span, format!("'{name}' of {}", Type::MemRef(src.clone()))))?;
    let mut b = rw.builder(span);
    let d = desc(ops[0], &src);
    let src_stride: Vec<ValueId> = (0..src.rank()).map(|k| d.stride_or_static(&mut b, k, src_strides[k])).collect();
    let base_off = d.offset_or_static(&mut b, src_offset);
    let (sizes, row_major) = MemRefDescriptor::row_major(&mut b, &dst, &dyn_sizes);
    let (offset, strides) = match &dst.layout {
        Layout::Map(map) if !map.is_identity() => {
            if map.results.len() != src.rank() || !map.results.iter().all(linear_in_dims) {
                return Err(unsupported(
                    span,
                    format!("'{name}' through the map {map}: it must give one source index per source dimension and be linear in its dimensions"),
                ));
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
                    let diff: Vec<ValueId> =
                        moved.iter().zip(&origin).map(|(m, o)| b.value("llvm.sub", &[*m, *o], Type::i64())).collect();
                    dot(&mut b, &diff)
                })
                .collect();
            (offset, strides)
        }
        // No map: a view keeps the source's index space; a reshape reinterprets a contiguous
        // buffer row-major.
        _ if name == "std.view" && dst.rank() == src.rank() => (base_off, src_stride.clone()),
        _ => {
            let identity = src.layout == Layout::Identity || matches!(&src.layout, Layout::Map(m) if m.is_identity());
            if !identity {
                return Err(unsupported(span, format!("'{name}' of the non-contiguous {}", Type::MemRef(src.clone()))));
            }
            (base_off, row_major)
        }
    };
    let mut fields = vec![d.allocated_ptr(&mut b), d.aligned_ptr(&mut b), offset];
    fields.extend(sizes);
    fields.extend(strides);
    Ok(vec![MemRefDescriptor::pack(&mut b, dst.rank(), &fields).value])
}

/// Whether an affine expression is linear in its dimensions (products and divisions involve at
/// most one side with dimensions, and never divide a dimension).
fn linear_in_dims(e: &AffineExpr) -> bool {
    fn has_dim(e: &AffineExpr) -> bool {
        match e {
            AffineExpr::Dim(_) => true,
            AffineExpr::Symbol(_) | AffineExpr::Const(_) => false,
            AffineExpr::Add(a, b)
            | AffineExpr::Mul(a, b)
            | AffineExpr::FloorDiv(a, b)
            | AffineExpr::CeilDiv(a, b)
            | AffineExpr::Mod(a, b) => has_dim(a) || has_dim(b),
        }
    }
    match e {
        AffineExpr::Dim(_) | AffineExpr::Symbol(_) | AffineExpr::Const(_) => true,
        AffineExpr::Add(a, b) => linear_in_dims(a) && linear_in_dims(b),
        AffineExpr::Mul(a, b) => !(has_dim(a) && has_dim(b)) && linear_in_dims(a) && linear_in_dims(b),
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) | AffineExpr::Mod(a, b) => !has_dim(a) && !has_dim(b),
    }
}

/// Evaluates an affine expression in the llvm dialect (i64), with floor semantics for divisions.
fn eval_affine(b: &mut Builder, e: &AffineExpr, dims: &[ValueId], syms: &[ValueId]) -> ValueId {
    match e {
        AffineExpr::Dim(i) => dims[*i as usize],
        AffineExpr::Symbol(i) => syms[*i as usize],
        AffineExpr::Const(c) => b.llvm_const(*c, Type::i64()),
        AffineExpr::Add(x, y) | AffineExpr::Mul(x, y) => {
            let (l, r) = (eval_affine(b, x, dims, syms), eval_affine(b, y, dims, syms));
            b.value(if matches!(e, AffineExpr::Add(..)) { "llvm.add" } else { "llvm.mul" }, &[l, r], Type::i64())
        }
        AffineExpr::FloorDiv(x, y) | AffineExpr::CeilDiv(x, y) | AffineExpr::Mod(x, y) => {
            let (l, r) = (eval_affine(b, x, dims, syms), eval_affine(b, y, dims, syms));
            match e {
                AffineExpr::FloorDiv(..) => super::arith_to_llvm::div_round(b, "arith.floordivsi", l, r, Type::i64()),
                AffineExpr::CeilDiv(..) => super::arith_to_llvm::div_round(b, "arith.ceildivsi", l, r, Type::i64()),
                _ => {
                    let rem = b.value("llvm.srem", &[l, r], Type::i64());
                    let zero = b.llvm_const(0, Type::i64());
                    let neg = b.value_with(
                        "llvm.icmp",
                        &[rem, zero],
                        Type::i1(),
                        vec![("predicate".into(), Attribute::i64(2))],
                    );
                    let adj = b.value("llvm.add", &[rem, r], Type::i64());
                    b.value("llvm.select", &[neg, adj, rem], Type::i64())
                }
            }
        }
    }
}

fn product(b: &mut Builder, vals: &[ValueId]) -> ValueId {
    let mut acc = b.llvm_const(1, Type::i64());
    for &v in vals {
        acc = b.value("llvm.mul", &[acc, v], Type::i64());
    }
    acc
}

/// `n * sizeof(elem)`, with the size taken from LLVM's layout (`gep null[1]`).
pub fn size_in_bytes(b: &mut Builder, n: ValueId, elem: &Type) -> ValueId {
    let null = b.value("llvm.mlir.zero", &[], Type::ptr());
    let one = b.llvm_const(1, Type::i64());
    let g = gep(b, null, one, elem, false);
    let size = b.value("llvm.ptrtoint", &[g], Type::i64());
    b.value("llvm.mul", &[n, size], Type::i64())
}

pub fn natural_align(t: &Type) -> i64 {
    match t {
        Type::Integer { width, .. } => ((*width as u64).div_ceil(8)).next_power_of_two().min(16) as i64,
        Type::Float(k) => (k.width() / 8) as i64,
        Type::Vector { elem, .. } => natural_align(elem),
        _ => 8,
    }
}
