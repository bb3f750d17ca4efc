//! Loop generation: the inferred, folded graph becomes one `func.func @NAME_run` in the standard
//! dialect (scf loops over memrefs, arith and math), which then goes down the same backbone as
//! MLIR input.
//!
//! Memory: inputs and outputs are the caller's buffers; weights are `memref.global` constants in
//! read-only data; every intermediate is a `memref.view` into one workspace whose layout is
//! planned here from liveness (first-fit over the tensors alive at each node), so a run does no
//! heap allocation and two threads with two workspaces can run concurrently.

use super::graph::*;
use super::ops;
use std::collections::HashMap;
use xcc_ir::attributes::DenseValues;
use xcc_ir::types::{FunctionType, MemRefType};
use xcc_ir::{Attribute, BlockId, Module, OpId, OpSpec, Span, Type, ValueId};

/// The workspace entry holding a node's scratch space.
pub fn scratch_name(n: &Node) -> String {
    format!("{}#scratch", n.outputs[0])
}

/// What the C header describes.
#[derive(Clone, Debug)]
pub struct ModelInterface {
    pub name: String,
    pub inputs: Vec<(String, TensorType)>,
    pub outputs: Vec<(String, TensorType)>,
    pub workspace_bytes: usize,
}

pub struct Emitter {
    pub m: Module,
    pub block: BlockId,
    pub buffers: HashMap<String, ValueId>,
    globals: usize,
    prefix: String,
}

pub fn memref_type(t: &TensorType) -> Type {
    Type::MemRef(MemRefType {
        shape: t.shape.iter().map(|&d| Some(d as u64)).collect(),
        elem: Box::new(t.dtype.ir_type()),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    })
}

const ALIGN: usize = 64;

/// Byte offsets in the workspace for each intermediate tensor: a tensor occupies its range from
/// the node defining it to its last use.
fn plan_workspace(
    g: &Graph,
    intermediates: &[String],
    scratch: &HashMap<String, (usize, usize)>,
) -> (HashMap<String, usize>, usize) {
    let mut def = HashMap::new();
    let mut last = HashMap::new();
    for (name, &(node, _)) in scratch {
        def.insert(name.clone(), node);
        last.insert(name.clone(), node);
    }
    for (i, n) in g.nodes.iter().enumerate() {
        for o in &n.outputs {
            def.insert(o.clone(), i);
            last.insert(o.clone(), i);
        }
        for x in &n.inputs {
            if last.contains_key(x) {
                last.insert(x.clone(), i);
            }
        }
    }
    let mut order: Vec<&String> = intermediates.iter().collect();
    order.sort_by_key(|t| def[*t]);
    let mut placed: Vec<(usize, usize, usize)> = Vec::new(); // offset, size, last use
    let mut offsets = HashMap::new();
    let mut total = 0;
    for t in order {
        let bytes = scratch.get(t).map(|s| s.1).unwrap_or_else(|| g.types[t].bytes());
        let size = bytes.div_ceil(ALIGN) * ALIGN;
        let d = def[t];
        let active: Vec<(usize, usize)> = placed.iter().filter(|p| p.2 >= d).map(|p| (p.0, p.0 + p.1)).collect();
        let mut candidates: Vec<usize> = std::iter::once(0).chain(active.iter().map(|a| a.1)).collect();
        candidates.sort();
        let offset =
            candidates.into_iter().find(|&o| active.iter().all(|&(s, e)| o + size <= s || o >= e)).unwrap_or(0);
        placed.push((offset, size, last[t]));
        offsets.insert(t.clone(), offset);
        total = total.max(offset + size);
    }
    (offsets, total)
}

pub fn generate(g: &Graph, name: &str) -> OResult<(Module, ModelInterface)> {
    let mut m = Module::new();
    let top = m.body_block();
    let span = Span::UNKNOWN;
    let inputs: Vec<(String, TensorType)> = g.inputs.iter().map(|i| (i.clone(), g.types[i].clone())).collect();
    let outputs: Vec<(String, TensorType)> =
        g.outputs.iter().map(|o| Ok((o.clone(), g.ty(o)?.clone()))).collect::<OResult<_>>()?;

    let produced: Vec<String> =
        g.nodes.iter().flat_map(|n| n.outputs.iter().filter(|o| !o.is_empty()).cloned()).collect();
    let mut intermediates: Vec<String> = produced.iter().filter(|t| !g.outputs.contains(t)).cloned().collect();
    // Scratch space some nodes need while they run (im2col columns), planned like a tensor that
    // lives only during its node.
    let mut scratch: HashMap<String, (usize, usize)> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if let Some(bytes) = ops::gemm::scratch_bytes(n, g) {
            scratch.insert(scratch_name(n), (i, bytes));
            intermediates.push(scratch_name(n));
        }
    }
    let (offsets, ws_bytes) = plan_workspace(g, &intermediates, &scratch);

    let n_params = inputs.len() + outputs.len() + 1;
    let run_ty = FunctionType { inputs: vec![Type::ptr(); n_params], results: vec![Type::i32()] };
    let region = m.new_region();
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_run")))
            .attr("function_type", Attribute::Type(Type::Function(run_ty)))
            .region(region),
    );
    let entry = m.append_block(region, span);
    let params: Vec<ValueId> = (0..n_params).map(|_| m.add_block_arg(entry, Type::ptr(), span)).collect();
    let mut e = Emitter { m, block: entry, buffers: HashMap::new(), globals: 0, prefix: name.to_string() };

    for (k, (n, t)) in inputs.iter().chain(outputs.iter()).enumerate() {
        let v = e.memref_from_ptr(params[k], t);
        e.buffers.entry(n.clone()).or_insert(v);
    }
    let ws_ty = TensorType { dtype: DType::U8, shape: vec![ws_bytes.max(1)] };
    let ws = e.memref_from_ptr(params[n_params - 1], &ws_ty);
    for t in &intermediates {
        let off = e.idx(offsets[t] as i64);
        let ty = match scratch.get(t) {
            Some(&(_, bytes)) => memref_type(&TensorType { dtype: DType::F32, shape: vec![bytes.div_ceil(4)] }),
            None => memref_type(&g.types[t]),
        };
        let v = e.value_op("memref.view", &[ws, off], ty);
        e.buffers.insert(t.clone(), v);
    }
    for node in &g.nodes {
        for x in node.inputs.iter().filter(|x| !x.is_empty()) {
            if !e.buffers.contains_key(x) {
                let t = g.consts.get(x).ok_or_else(|| OnnxError(format!("internal: tensor '{x}' has no buffer")))?;
                let v = e.global(t);
                e.buffers.insert(x.clone(), v);
            }
        }
        e.emit_node(node, g).map_err(|err| OnnxError(format!("{}: {}", node.describe(), err.0)))?;
    }
    // Outputs that are constants or inputs (no node writes them).
    for (o, t) in &outputs {
        if !produced.contains(o) {
            let src = match g.consts.get(o) {
                Some(c) => e.global(c),
                None => e.buffers[&g.inputs[g.inputs.iter().position(|i| i == o).expect("an input")]],
            };
            let dst = e.memref_from_ptr(params[inputs.len() + outputs.iter().position(|x| &x.0 == o).unwrap()], t);
            e.copy(src, dst, t);
        }
    }
    let zero = e.const_int(0, Type::i32());
    let ret = OpSpec::new("func.return", span).operands([zero]);
    e.m.build(e.block, ret);

    // NAME_workspace_size() and NAME_run_alloc(...), which allocates the workspace itself.
    let mut m = e.m;
    let i64t = Type::i64();
    let region = m.new_region();
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_workspace_size")))
            .attr(
                "function_type",
                Attribute::Type(Type::Function(FunctionType { inputs: vec![], results: vec![i64t.clone()] })),
            )
            .region(region),
    );
    let b = m.append_block(region, span);
    let c = m.build(
        b,
        OpSpec::new("arith.constant", span)
            .results([i64t.clone()])
            .attr("value", Attribute::int(ws_bytes as i128, i64t.clone())),
    );
    let c = m.result(c, 0);
    m.build(b, OpSpec::new("func.return", span).operands([c]));

    for (f, ins, outs) in
        [("xcc_alloc", vec![i64t.clone(), i64t.clone()], vec![Type::ptr()]), ("xcc_free", vec![Type::ptr()], vec![])]
    {
        m.build(
            top,
            OpSpec::new("llvm.func", span)
                .attr("sym_name", Attribute::String(f.into()))
                .attr("function_type", Attribute::Type(Type::Function(FunctionType { inputs: ins, results: outs }))),
        );
    }
    let region = m.new_region();
    let alloc_ty = FunctionType { inputs: vec![Type::ptr(); n_params - 1], results: vec![Type::i32()] };
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_run_alloc")))
            .attr("function_type", Attribute::Type(Type::Function(alloc_ty)))
            .region(region),
    );
    let b = m.append_block(region, span);
    let args: Vec<ValueId> = (0..n_params - 1).map(|_| m.add_block_arg(b, Type::ptr(), span)).collect();
    let bytes = m.build(
        b,
        OpSpec::new("llvm.mlir.constant", span)
            .results([i64t.clone()])
            .attr("value", Attribute::int(ws_bytes.max(1) as i128, i64t.clone())),
    );
    let align = m.build(
        b,
        OpSpec::new("llvm.mlir.constant", span)
            .results([i64t.clone()])
            .attr("value", Attribute::int(ALIGN as i128, i64t.clone())),
    );
    let (bytes, align) = (m.result(bytes, 0), m.result(align, 0));
    let wsp = m.build(
        b,
        OpSpec::new("llvm.call", span)
            .operands([bytes, align])
            .results([Type::ptr()])
            .attr("callee", Attribute::symbol("xcc_alloc")),
    );
    let wsp = m.result(wsp, 0);
    let mut call_args = args.clone();
    call_args.push(wsp);
    let rc = m.build(
        b,
        OpSpec::new("func.call", span)
            .operands(call_args)
            .results([Type::i32()])
            .attr("callee", Attribute::symbol(format!("{name}_run"))),
    );
    let rc = m.result(rc, 0);
    m.build(b, OpSpec::new("llvm.call", span).operands([wsp]).attr("callee", Attribute::symbol("xcc_free")));
    m.build(b, OpSpec::new("func.return", span).operands([rc]));

    Ok((m, ModelInterface { name: name.to_string(), inputs, outputs, workspace_bytes: ws_bytes }))
}

impl Emitter {
    pub fn op(&mut self, spec: OpSpec) -> OpId {
        self.m.build(self.block, spec)
    }

    pub fn value_op(&mut self, name: &str, operands: &[ValueId], ty: Type) -> ValueId {
        let op = self.op(OpSpec::new(name, Span::UNKNOWN).operands(operands.iter().copied()).results([ty]));
        self.m.result(op, 0)
    }

    pub fn value_attr(&mut self, name: &str, operands: &[ValueId], ty: Type, attrs: Vec<(&str, Attribute)>) -> ValueId {
        let mut spec = OpSpec::new(name, Span::UNKNOWN).operands(operands.iter().copied()).results([ty]);
        for (k, v) in attrs {
            spec = spec.attr(k, v);
        }
        let op = self.op(spec);
        self.m.result(op, 0)
    }

    pub fn idx(&mut self, v: i64) -> ValueId {
        self.const_int(v as i128, Type::Index)
    }

    pub fn const_int(&mut self, v: i128, ty: Type) -> ValueId {
        self.value_attr("arith.constant", &[], ty.clone(), vec![("value", Attribute::int(v, ty))])
    }

    pub fn const_float(&mut self, v: f64, ty: Type) -> ValueId {
        let v = if ty == Type::f32() { v as f32 as f64 } else { v };
        self.value_attr("arith.constant", &[], ty.clone(), vec![("value", Attribute::Float { value: v, ty })])
    }

    /// A constant of `dtype`'s compute type (f16 computes in f32).
    pub fn const_of(&mut self, v: f64, dtype: DType) -> ValueId {
        let t = compute_type(dtype);
        if dtype.is_float() {
            self.const_float(v, t)
        } else {
            self.const_int(v as i128, t)
        }
    }

    /// A memref descriptor over a raw pointer: contiguous, row-major, offset 0.
    fn memref_from_ptr(&mut self, p: ValueId, t: &TensorType) -> ValueId {
        let rank = t.shape.len();
        let arr = Type::LlvmArray { len: rank as u64, elem: Box::new(Type::i64()) };
        let mut fields = vec![Type::ptr(), Type::ptr(), Type::i64()];
        if rank > 0 {
            fields.push(arr.clone());
            fields.push(arr);
        }
        let st = Type::LlvmStruct { packed: false, fields };
        let mut d = self.value_op("llvm.mlir.undef", &[], st.clone());
        let pos = |p: &[i128]| vec![("position", Attribute::DenseArray { elem: Type::i64(), values: p.to_vec() })];
        d = self.value_attr("llvm.insertvalue", &[d, p], st.clone(), pos(&[0]));
        d = self.value_attr("llvm.insertvalue", &[d, p], st.clone(), pos(&[1]));
        let zero = self.value_attr("llvm.mlir.constant", &[], Type::i64(), vec![("value", Attribute::i64(0))]);
        d = self.value_attr("llvm.insertvalue", &[d, zero], st.clone(), pos(&[2]));
        let strides = ops::strides_of(&t.shape);
        for i in 0..rank {
            let s = self.value_attr(
                "llvm.mlir.constant",
                &[],
                Type::i64(),
                vec![("value", Attribute::i64(t.shape[i] as i64))],
            );
            d = self.value_attr("llvm.insertvalue", &[d, s], st.clone(), pos(&[3, i as i128]));
            let s = self.value_attr(
                "llvm.mlir.constant",
                &[],
                Type::i64(),
                vec![("value", Attribute::i64(strides[i] as i64))],
            );
            d = self.value_attr("llvm.insertvalue", &[d, s], st.clone(), pos(&[4, i as i128]));
        }
        self.value_op("builtin.unrealized_conversion_cast", &[d], memref_type(t))
    }

    /// A read-only global holding data computed at compile time (e.g. repacked weights).
    pub fn constant_buffer(&mut self, t: &Tensor) -> ValueId {
        self.global(t)
    }

    /// A read-only global holding a constant tensor.
    fn global(&mut self, t: &Tensor) -> ValueId {
        let sym = format!("{}_w{}", self.prefix, self.globals);
        self.globals += 1;
        let top = self.m.body_block();
        let data_ty = Type::Tensor { shape: Some(vec![Some(t.data.len() as u64)]), elem: Box::new(Type::i8()) };
        let g = self.m.create_op(
            OpSpec::new("memref.global", Span::UNKNOWN)
                .attr("sym_name", Attribute::String(sym.clone()))
                .attr("sym_visibility", Attribute::String("private".into()))
                .attr("type", Attribute::Type(memref_type(&t.ty)))
                .attr("initial_value", Attribute::Dense { values: DenseValues::Hex(t.data.clone()), ty: data_ty })
                .attr("constant", Attribute::Unit),
        );
        // Globals go before the functions that use them.
        self.m.ops[g].parent = Some(top);
        self.m.blocks[top].ops.insert(0, g);
        self.value_attr("memref.get_global", &[], memref_type(&t.ty), vec![("name", Attribute::symbol(sym))])
    }

    /// `scf.for %iv = lb to ub` around `body`.
    pub fn for_loop(&mut self, lb: usize, ub: usize, body: impl FnOnce(&mut Self, ValueId)) {
        let (l, u) = (self.idx(lb as i64), self.idx(ub as i64));
        self.for_step(l, u, 1, body);
    }

    /// `scf.for` carrying one accumulator; `body` returns the next value.
    pub fn for_acc(
        &mut self,
        lb: usize,
        ub: usize,
        init: ValueId,
        body: impl FnOnce(&mut Self, ValueId, ValueId) -> ValueId,
    ) -> ValueId {
        self.for_accs(lb, ub, &[init], |e, iv, accs| vec![body(e, iv, accs[0])])[0]
    }

    /// `scf.for %iv = lb to ub step step` with index-valued bounds.
    pub fn for_step(&mut self, l: ValueId, u: ValueId, step: usize, body: impl FnOnce(&mut Self, ValueId)) {
        let s = self.idx(step as i64);
        let region = self.m.new_region();
        let inner = self.m.append_block(region, Span::UNKNOWN);
        let iv = self.m.add_block_arg(inner, Type::Index, Span::UNKNOWN);
        self.op(OpSpec::new("scf.for", Span::UNKNOWN).operands([l, u, s]).region(region));
        let saved = std::mem::replace(&mut self.block, inner);
        body(self, iv);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN));
        self.block = saved;
    }

    /// `scf.for` carrying several values; `body` returns the next ones.
    pub fn for_accs(
        &mut self,
        lb: usize,
        ub: usize,
        inits: &[ValueId],
        body: impl FnOnce(&mut Self, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let (l, u, s) = (self.idx(lb as i64), self.idx(ub as i64), self.idx(1));
        let types: Vec<Type> = inits.iter().map(|&v| self.m.ty(v).clone()).collect();
        let region = self.m.new_region();
        let inner = self.m.append_block(region, Span::UNKNOWN);
        let iv = self.m.add_block_arg(inner, Type::Index, Span::UNKNOWN);
        let accs: Vec<ValueId> = types.iter().map(|t| self.m.add_block_arg(inner, t.clone(), Span::UNKNOWN)).collect();
        let op = self.op(OpSpec::new("scf.for", Span::UNKNOWN)
            .operands([l, u, s])
            .operands(inits.iter().copied())
            .results(types)
            .region(region));
        let saved = std::mem::replace(&mut self.block, inner);
        let next = body(self, iv, &accs);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN).operands(next));
        self.block = saved;
        self.m.ops[op].results.clone()
    }

    /// `a * b + c`, fused where the target has FMA and as separate operations elsewhere
    /// (`llvm.fmuladd`; `math.fma` would call libm on CPUs without FMA).
    pub fn fmuladd(&mut self, a: ValueId, b: ValueId, c: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        let name = if matches!(t, Type::Vector { .. }) { "vector.fma" } else { "llvm.intr.fmuladd" };
        self.value_op(name, &[a, b, c], t)
    }

    /// Nested loops over `shape` carrying values through all of them (a window or a reduction):
    /// `body` sees the induction variables and the carried values and returns the next ones.
    pub fn nest_accs(
        &mut self,
        shape: &[usize],
        inits: &[ValueId],
        body: &mut dyn FnMut(&mut Self, &[ValueId], &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        fn rec(
            e: &mut Emitter,
            shape: &[usize],
            ivs: &mut Vec<ValueId>,
            st: &[ValueId],
            body: &mut dyn FnMut(&mut Emitter, &[ValueId], &[ValueId]) -> Vec<ValueId>,
        ) -> Vec<ValueId> {
            if ivs.len() == shape.len() {
                return body(e, ivs, st);
            }
            let d = shape[ivs.len()];
            e.for_accs(0, d, st, |e, iv, st| {
                ivs.push(iv);
                let r = rec(e, shape, ivs, st, body);
                ivs.pop();
                r
            })
        }
        rec(self, shape, &mut Vec::new(), inits, body)
    }

    /// Nested loops over `shape`, innermost last.    /// Nested loops over `shape`, innermost last.
    pub fn loop_nest(&mut self, shape: &[usize], body: &mut dyn FnMut(&mut Self, &[ValueId])) {
        fn rec(
            e: &mut Emitter,
            shape: &[usize],
            ivs: &mut Vec<ValueId>,
            body: &mut dyn FnMut(&mut Emitter, &[ValueId]),
        ) {
            if ivs.len() == shape.len() {
                body(e, ivs);
                return;
            }
            let d = shape[ivs.len()];
            e.for_loop(0, d, |e, iv| {
                ivs.push(iv);
                rec(e, shape, ivs, body);
                ivs.pop();
            });
        }
        rec(self, shape, &mut Vec::new(), body);
    }

    /// Loads an element, widening f16 to f32.
    pub fn load(&mut self, buf: ValueId, idx: &[ValueId]) -> ValueId {
        let elem = (*self.m.ty(buf).as_memref().expect("memref").elem).clone();
        let v = self.value_op("memref.load", &[&[buf][..], idx].concat(), elem.clone());
        if elem == Type::Float(xcc_ir::types::FloatKind::F16) {
            return self.value_op("arith.extf", &[v], Type::f32());
        }
        v
    }

    pub fn store(&mut self, v: ValueId, buf: ValueId, idx: &[ValueId]) {
        let elem = (*self.m.ty(buf).as_memref().expect("memref").elem).clone();
        let v = if elem == Type::Float(xcc_ir::types::FloatKind::F16) && *self.m.ty(v) != elem {
            self.value_op("arith.truncf", &[v], elem)
        } else {
            v
        };
        self.op(OpSpec::new("memref.store", Span::UNKNOWN).operands([&[v, buf][..], idx].concat()));
    }

    /// An element index read from an index tensor: negative values count from the end of a
    /// dimension of size `dim` (Gather, GatherElements).
    pub fn wrapped_index(&mut self, raw: ValueId, dim: usize) -> ValueId {
        let it = self.m.ty(raw).clone();
        let zero = self.const_int(0, it.clone());
        let dimv = self.const_int(dim as i128, it.clone());
        let neg = self.value_attr("arith.cmpi", &[raw, zero], Type::i1(), vec![("predicate", Attribute::i64(2))]);
        let wrapped = self.value_op("arith.addi", &[raw, dimv], it.clone());
        let fixed = self.value_op("arith.select", &[neg, wrapped, raw], it);
        self.value_op("arith.index_cast", &[fixed], Type::Index)
    }

    /// For a window tap at position `p` along a dimension of `size`: ANDs "0 <= p < size" into
    /// `inside` and returns `p` clamped into the dimension, so the load is always in bounds.
    pub fn clamp_tap(&mut self, p: ValueId, size: usize, inside: &mut Option<ValueId>) -> ValueId {
        let zero = self.idx(0);
        let hi = self.idx(size as i64);
        let ge = self.value_attr("arith.cmpi", &[p, zero], Type::i1(), vec![("predicate", Attribute::i64(5))]);
        let lt = self.value_attr("arith.cmpi", &[p, hi], Type::i1(), vec![("predicate", Attribute::i64(2))]);
        let ok = self.value_op("arith.andi", &[ge, lt], Type::i1());
        *inside = Some(match *inside {
            None => ok,
            Some(a) => self.value_op("arith.andi", &[a, ok], Type::i1()),
        });
        let lo = self.value_op("arith.maxsi", &[p, zero], Type::Index);
        let last = self.idx(size as i64 - 1);
        self.value_op("arith.minsi", &[lo, last], Type::Index)
    }

    /// Index values for `i * stride + k`.
    pub fn affine(&mut self, terms: &[(ValueId, i64)], constant: i64) -> ValueId {
        let mut acc = self.idx(constant);
        for &(v, s) in terms {
            let sv = self.idx(s);
            let p = self.value_op("arith.muli", &[v, sv], Type::Index);
            acc = self.value_op("arith.addi", &[acc, p], Type::Index);
        }
        acc
    }

    /// Copies `src` into `dst` element by element in row-major order (same element count).
    pub fn copy(&mut self, src: ValueId, dst: ValueId, t: &TensorType) {
        let src_shape: Vec<usize> =
            self.m.ty(src).as_memref().unwrap().shape.iter().map(|d| d.unwrap() as usize).collect();
        let dst_shape: Vec<usize> =
            self.m.ty(dst).as_memref().unwrap().shape.iter().map(|d| d.unwrap() as usize).collect();
        let n = t.numel();
        self.for_loop(0, n, |e, i| {
            let si = e.unflatten(i, &src_shape);
            let di = e.unflatten(i, &dst_shape);
            let v = e.load(src, &si);
            e.store(v, dst, &di);
        });
    }

    /// Multi-index of a flat index in a row-major shape.
    pub fn unflatten(&mut self, flat: ValueId, shape: &[usize]) -> Vec<ValueId> {
        let strides = ops::strides_of(shape);
        let mut out = Vec::new();
        for (i, &s) in strides.iter().enumerate() {
            let sv = self.idx(s as i64);
            let q = self.value_op("arith.divui", &[flat, sv], Type::Index);
            let dv = self.idx(shape[i] as i64);
            out.push(self.value_op("arith.remui", &[q, dv], Type::Index));
        }
        out
    }

    pub fn buf(&self, name: &str) -> OResult<ValueId> {
        self.buffers.get(name).copied().ok_or_else(|| OnnxError(format!("internal: tensor '{name}' has no buffer")))
    }

    fn emit_node(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let op = node.op.as_str();
        if ops::elementwise::unary_kind(op).is_some()
            || ops::elementwise::is_binary(op)
            || ops::elementwise::is_variadic(op)
        {
            self.emit_elementwise(node, g)
        } else if ops::tensor::OPS.contains(&op) {
            self.emit_data_movement(node, g)
        } else if ops::reduce::OPS.contains(&op) {
            self.emit_reduce(node, g)
        } else if ops::resize::OPS.contains(&op) {
            self.emit_resize(node, g)
        } else {
            self.emit_nn(node, g)
        }
    }
}

/// The type arithmetic happens in: f16 tensors compute in f32.
pub fn compute_type(d: DType) -> Type {
    if d == DType::F16 {
        Type::f32()
    } else {
        d.ir_type()
    }
}
