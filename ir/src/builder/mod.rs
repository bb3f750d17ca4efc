//! Cursors for creating operations, shared by everything that writes IR: the lowering's passes
//! and the frontends (which therefore depend on the IR alone).
//!
//! - [`Builder`]: at the end of a block or before an anchor operation (conversion patterns);
//! - [`LoopBuilder`]: loop nests, parallel loops, loads and stores over memrefs, constants and
//!   index arithmetic, for everything that writes loops: the kernel level's lowering and the
//!   frontends' operators that are loops of their own (pooling, softmax, gathers, ...).

pub mod lanes;
pub mod memref_descriptor;

/// runtime-c's `int32_t xcc_cpu_level(void)`: the CPU level the code runs at, which
/// `cpu-dispatch` folds in each CPU's copy of the code ([`LoopBuilder::cpu_level`]).
pub const CPU_LEVEL: &str = "xcc_cpu_level";

use crate::attributes::DenseValues;
use crate::types::FloatKind;
use crate::{Attribute, BlockId, Module, OpId, OpSpec, Span, Type, ValueId};

pub enum InsertPoint {
    End(BlockId),
    Before(OpId),
}

pub struct Builder<'m> {
    pub m: &'m mut Module,
    pub at: InsertPoint,
    pub span: Span,
}

impl<'m> Builder<'m> {
    pub fn at_end(m: &'m mut Module, block: BlockId, span: Span) -> Self {
        Builder { m, at: InsertPoint::End(block), span }
    }

    pub fn before(m: &'m mut Module, op: OpId) -> Self {
        let span = m.ops[op].span;
        Builder { m, at: InsertPoint::Before(op), span }
    }

    pub fn insert(&mut self, spec: OpSpec) -> OpId {
        match self.at {
            InsertPoint::End(b) => self.m.build(b, spec),
            InsertPoint::Before(op) => self.m.build_before(op, spec),
        }
    }

    pub fn spec(&self, name: &str) -> OpSpec {
        OpSpec::new(name, self.span)
    }

    /// An operation with one result.
    pub fn value(&mut self, name: &str, operands: &[ValueId], ty: Type) -> ValueId {
        let spec = self.spec(name).operands(operands.iter().copied()).results([ty]);
        let op = self.insert(spec);
        self.m.result(op, 0)
    }

    pub fn value_with(
        &mut self,
        name: &str,
        operands: &[ValueId],
        ty: Type,
        attrs: Vec<(String, Attribute)>,
    ) -> ValueId {
        let mut spec = self.spec(name).operands(operands.iter().copied()).results([ty]);
        spec.attrs = attrs;
        let op = self.insert(spec);
        self.m.result(op, 0)
    }

    pub fn arith_const(&mut self, v: i64, ty: Type) -> ValueId {
        self.value_with("arith.constant", &[], ty.clone(), vec![("value".into(), Attribute::int(v as i128, ty))])
    }

    pub fn index_const(&mut self, v: i64) -> ValueId {
        self.arith_const(v, Type::Index)
    }

    pub fn llvm_const(&mut self, v: i64, ty: Type) -> ValueId {
        self.value_with("llvm.mlir.constant", &[], ty.clone(), vec![("value".into(), Attribute::int(v as i128, ty))])
    }
}

/// Declares the external function `name` (`llvm.func` without a body) at the end of the module,
/// unless a symbol of that name exists: the runtime entry points and C library functions that
/// generated code calls.
pub fn declare_function(m: &mut Module, name: &str, inputs: Vec<Type>, results: Vec<Type>) {
    if m.lookup_symbol(name).is_some() {
        return;
    }
    let ft = crate::types::FunctionType { inputs, results };
    let top = m.body_block();
    m.build(
        top,
        OpSpec::new("llvm.func", Span::UNKNOWN)
            .attr("sym_name", Attribute::String(name.to_string()))
            .attr("function_type", Attribute::Type(Type::Function(ft))),
    );
}

/// A loop body carrying values: it sees the builder, the induction variables and the carried
/// values, and returns the next ones.
/// A dim or a loop's trip count: known at compile time, or an `index` value computed at run
/// time (a dim of a buffer whose size is a run-time input).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extent {
    Fixed(usize),
    Value(ValueId),
}

impl From<usize> for Extent {
    fn from(n: usize) -> Extent {
        Extent::Fixed(n)
    }
}

impl Extent {
    pub fn fixed(self) -> Option<usize> {
        match self {
            Extent::Fixed(n) => Some(n),
            Extent::Value(_) => None,
        }
    }
}

/// Compile-time extents.
pub fn fixed(shape: &[usize]) -> Vec<Extent> {
    shape.iter().map(|&d| Extent::Fixed(d)).collect()
}

/// `constant + sum(v * stride)`, each stride made an index value by `stride`.
fn sum_of_products<B: LoopBuilder, S: Copy>(
    b: &mut B,
    terms: &[(ValueId, S)],
    constant: i64,
    stride: impl Fn(&mut B, S) -> ValueId,
) -> ValueId {
    let mut acc = b.idx(constant);
    for &(v, s) in terms {
        let sv = stride(b, s);
        let p = b.value_op("arith.muli", &[v, sv], Type::Index);
        acc = b.value_op("arith.addi", &[acc, p], Type::Index);
    }
    acc
}

pub type CarryingBody<'a, B> = dyn FnMut(&mut B, &[ValueId], &[ValueId]) -> Vec<ValueId> + 'a;

/// The position of `pred` in arith's comparison tables.
fn predicate(table: &[&str], pred: &str) -> i64 {
    table.iter().position(|p| *p == pred).unwrap_or_else(|| panic!("unknown predicate {pred}")) as i64
}

/// Builds structured code at the end of a current block, which loop helpers move into their
/// bodies and back. Implementors give access to the module and the current block; everything
/// else is provided.
pub trait LoopBuilder: Sized {
    fn module(&mut self) -> &mut Module;
    fn block(&self) -> BlockId;
    /// Moves the insertion point; returns the previous block.
    fn set_block(&mut self, block: BlockId) -> BlockId;

    fn op(&mut self, spec: OpSpec) -> OpId {
        let b = self.block();
        self.module().build(b, spec)
    }

    fn ty(&mut self, v: ValueId) -> Type {
        self.module().ty(v).clone()
    }

    fn value_op(&mut self, name: &str, operands: &[ValueId], ty: Type) -> ValueId {
        let op = self.op(OpSpec::new(name, Span::UNKNOWN).operands(operands.iter().copied()).results([ty]));
        self.module().result(op, 0)
    }

    fn value_attr(&mut self, name: &str, operands: &[ValueId], ty: Type, attrs: Vec<(&str, Attribute)>) -> ValueId {
        let mut spec = OpSpec::new(name, Span::UNKNOWN).operands(operands.iter().copied()).results([ty]);
        for (k, v) in attrs {
            spec = spec.attr(k, v);
        }
        let op = self.op(spec);
        self.module().result(op, 0)
    }

    fn idx(&mut self, v: i64) -> ValueId {
        self.const_int(v as i128, Type::Index)
    }

    fn const_int(&mut self, v: i128, ty: Type) -> ValueId {
        self.value_attr("arith.constant", &[], ty.clone(), vec![("value", Attribute::int(v, ty))])
    }

    /// A float constant; an f32 value is rounded to f32 first, so the attribute is exact.
    fn const_float(&mut self, v: f64, ty: Type) -> ValueId {
        let v = if ty == Type::f32() { v as f32 as f64 } else { v };
        self.value_attr("arith.constant", &[], ty.clone(), vec![("value", Attribute::Float { value: v, ty })])
    }

    /// A vector constant with every lane `v`.
    fn splat_const(&mut self, v: f64, vt: Type) -> ValueId {
        let values = match vt.element_or_self() {
            Type::Float(_) => DenseValues::Float(vec![v]),
            _ => DenseValues::Int(vec![v as i128]),
        };
        self.value_attr("arith.constant", &[], vt.clone(), vec![("value", Attribute::Dense { values, ty: vt })])
    }

    fn cmpi(&mut self, pred: &str, a: ValueId, b: ValueId) -> ValueId {
        let p = predicate(crate::dialects::arith::CMPI_PREDICATES, pred);
        let t = self.ty(a).with_element(Type::i1());
        self.value_attr("arith.cmpi", &[a, b], t, vec![("predicate", Attribute::i64(p))])
    }

    fn cmpf(&mut self, pred: &str, a: ValueId, b: ValueId) -> ValueId {
        let p = predicate(crate::dialects::arith::CMPF_PREDICATES, pred);
        let t = self.ty(a).with_element(Type::i1());
        self.value_attr("arith.cmpf", &[a, b], t, vec![("predicate", Attribute::i64(p))])
    }

    /// `scf.for %iv = lb to ub` around `body`.
    fn for_loop(&mut self, lb: usize, ub: usize, body: impl FnOnce(&mut Self, ValueId)) {
        let (l, u) = (self.idx(lb as i64), self.idx(ub as i64));
        self.for_step(l, u, 1, body);
    }

    /// `scf.for` carrying one accumulator; `body` returns the next value.
    fn for_acc(
        &mut self,
        lb: usize,
        ub: usize,
        init: ValueId,
        body: impl FnOnce(&mut Self, ValueId, ValueId) -> ValueId,
    ) -> ValueId {
        self.for_accs(lb, ub, &[init], |e, iv, accs| vec![body(e, iv, accs[0])])[0]
    }

    /// [`LoopBuilder::for_loop`] from 0 to an extent that may be known only at run time.
    fn for_loop_over(&mut self, n: Extent, body: impl FnOnce(&mut Self, ValueId)) {
        let (l, u) = (self.idx(0), self.extent(n));
        self.for_step(l, u, 1, body);
    }

    /// [`LoopBuilder::for_acc`] from 0 to an extent that may be known only at run time.
    fn for_acc_over(
        &mut self,
        n: Extent,
        init: ValueId,
        body: impl FnOnce(&mut Self, ValueId, ValueId) -> ValueId,
    ) -> ValueId {
        let (l, u) = (self.idx(0), self.extent(n));
        self.for_accs_between(l, u, &[init], |e, iv, accs| vec![body(e, iv, accs[0])])[0]
    }

    /// `scf.for %iv = lb to ub step step` with index-valued bounds.
    fn for_step(&mut self, l: ValueId, u: ValueId, step: usize, body: impl FnOnce(&mut Self, ValueId)) {
        self.for_accs_step(l, u, step, &[], |e, iv, _| {
            body(e, iv);
            Vec::new()
        });
    }

    /// `scf.for` carrying several values; `body` returns the next ones.
    fn for_accs(
        &mut self,
        lb: usize,
        ub: usize,
        inits: &[ValueId],
        body: impl FnOnce(&mut Self, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let (l, u) = (self.idx(lb as i64), self.idx(ub as i64));
        self.for_accs_between(l, u, inits, body)
    }

    /// [`LoopBuilder::for_accs`] between index values.
    fn for_accs_between(
        &mut self,
        l: ValueId,
        u: ValueId,
        inits: &[ValueId],
        body: impl FnOnce(&mut Self, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        self.for_accs_step(l, u, 1, inits, body)
    }

    /// [`LoopBuilder::for_accs_between`] with a step.
    fn for_accs_step(
        &mut self,
        l: ValueId,
        u: ValueId,
        step: usize,
        inits: &[ValueId],
        body: impl FnOnce(&mut Self, ValueId, &[ValueId]) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let s = self.idx(step as i64);
        let types: Vec<Type> = inits.iter().map(|&v| self.ty(v)).collect();
        let region = self.module().new_region();
        let inner = self.module().append_block(region, Span::UNKNOWN);
        let iv = self.module().add_block_arg(inner, Type::Index, Span::UNKNOWN);
        let accs: Vec<ValueId> =
            types.iter().map(|t| self.module().add_block_arg(inner, t.clone(), Span::UNKNOWN)).collect();
        let op = self.op(OpSpec::new("scf.for", Span::UNKNOWN)
            .operands([l, u, s])
            .operands(inits.iter().copied())
            .results(types)
            .region(region));
        let saved = self.set_block(inner);
        let next = body(self, iv, &accs);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN).operands(next));
        self.set_block(saved);
        self.module().ops[op].results.clone()
    }

    /// Nested loops over `shape` carrying values through all of them (a window or a reduction):
    /// `body` sees the induction variables and the carried values and returns the next ones.
    fn nest_accs(&mut self, shape: &[usize], inits: &[ValueId], body: &mut CarryingBody<Self>) -> Vec<ValueId> {
        self.nest_accs_over(&fixed(shape), inits, body)
    }

    /// [`LoopBuilder::nest_accs`] over extents that may be known only at run time.
    fn nest_accs_over(&mut self, shape: &[Extent], inits: &[ValueId], body: &mut CarryingBody<Self>) -> Vec<ValueId> {
        fn rec<B: LoopBuilder>(
            e: &mut B,
            shape: &[Extent],
            ivs: &mut Vec<ValueId>,
            st: &[ValueId],
            body: &mut CarryingBody<B>,
        ) -> Vec<ValueId> {
            if ivs.len() == shape.len() {
                return body(e, ivs, st);
            }
            let (l, u) = (e.idx(0), e.extent(shape[ivs.len()]));
            e.for_accs_between(l, u, st, |e, iv, st| {
                ivs.push(iv);
                let r = rec(e, shape, ivs, st, body);
                ivs.pop();
                r
            })
        }
        rec(self, shape, &mut Vec::new(), inits, body)
    }

    /// Serial nested loops over `shape`, innermost last.
    fn loop_nest(&mut self, shape: &[usize], body: &mut dyn FnMut(&mut Self, &[ValueId])) {
        self.loop_nest_over(&fixed(shape), body)
    }

    /// [`LoopBuilder::loop_nest`] over extents that may be known only at run time.
    fn loop_nest_over(&mut self, shape: &[Extent], body: &mut dyn FnMut(&mut Self, &[ValueId])) {
        fn rec<B: LoopBuilder>(
            e: &mut B,
            shape: &[Extent],
            ivs: &mut Vec<ValueId>,
            body: &mut dyn FnMut(&mut B, &[ValueId]),
        ) {
            if ivs.len() == shape.len() {
                body(e, ivs);
                return;
            }
            let d = shape[ivs.len()];
            e.for_loop_over(d, |e, iv| {
                ivs.push(iv);
                rec(e, shape, ivs, body);
                ivs.pop();
            });
        }
        rec(self, shape, &mut Vec::new(), body);
    }

    /// One `scf.parallel` over `shape` (every point independent: the body may only write what
    /// its own point owns), the seam for threads and GPU grids. A rank-0 shape is the body once.
    fn parallel(&mut self, shape: &[usize], body: &mut dyn FnMut(&mut Self, &[ValueId])) {
        self.parallel_over(&fixed(shape), body)
    }

    /// [`LoopBuilder::parallel`] over extents that may be known only at run time.
    fn parallel_over(&mut self, shape: &[Extent], body: &mut dyn FnMut(&mut Self, &[ValueId])) {
        if shape.is_empty() {
            body(self, &[]);
            return;
        }
        let zero = self.idx(0);
        let one = self.idx(1);
        let ubs: Vec<ValueId> = shape.iter().map(|&d| self.extent(d)).collect();
        let region = self.module().new_region();
        let inner = self.module().append_block(region, Span::UNKNOWN);
        let ivs: Vec<ValueId> =
            shape.iter().map(|_| self.module().add_block_arg(inner, Type::Index, Span::UNKNOWN)).collect();
        let n = shape.len();
        self.op(crate::dialects::scf::parallel_spec(&vec![zero; n], &ubs, &vec![one; n], region, Span::UNKNOWN));
        let saved = self.set_block(inner);
        body(self, &ivs);
        self.op(OpSpec::new("scf.reduce", Span::UNKNOWN));
        self.set_block(saved);
    }

    /// An extent as an `index` value.
    fn extent(&mut self, e: Extent) -> ValueId {
        match e {
            Extent::Fixed(n) => self.idx(n as i64),
            Extent::Value(v) => v,
        }
    }

    /// The dims of buffer `buf`: static ones as they are, dynamic ones read with `memref.dim`.
    fn extents(&mut self, buf: ValueId) -> Vec<Extent> {
        let mt = self.ty(buf).as_memref().expect("a memref").clone();
        (0..mt.rank()).map(|k| self.extent_of(buf, k)).collect()
    }

    /// Dim `k` of buffer `buf`: static, or read with `memref.dim`.
    fn extent_of(&mut self, buf: ValueId, k: usize) -> Extent {
        match self.ty(buf).as_memref().expect("a memref").shape[k] {
            Some(d) => Extent::Fixed(d as usize),
            None => {
                let k = self.idx(k as i64);
                Extent::Value(self.value_op("memref.dim", &[buf, k], Type::Index))
            }
        }
    }

    /// The product of extents, folded where they are static.
    fn extent_product(&mut self, shape: &[Extent]) -> Extent {
        let fixed: usize = shape.iter().filter_map(|e| e.fixed()).product();
        let mut acc = Extent::Fixed(fixed);
        for &e in shape {
            if let Extent::Value(v) = e {
                acc = Extent::Value(match acc {
                    Extent::Fixed(1) => v,
                    a => {
                        let a = self.extent(a);
                        self.value_op("arith.muli", &[a, v], Type::Index)
                    }
                });
            }
        }
        acc
    }

    /// `a * b + c`, fused where the target has FMA and as separate operations elsewhere
    /// (`llvm.fmuladd`; `math.fma` would call libm on CPUs without FMA).
    fn fmuladd(&mut self, a: ValueId, b: ValueId, c: ValueId) -> ValueId {
        let t = self.ty(a);
        let name = if matches!(t, Type::Vector { .. }) { "vector.fma" } else { "llvm.intr.fmuladd" };
        self.value_op(name, &[a, b, c], t)
    }

    /// An f16 or bf16 value as f32, where 16-bit float tensors compute; other values as they are.
    fn widen_f16(&mut self, v: ValueId) -> ValueId {
        if matches!(self.ty(v), Type::Float(FloatKind::F16 | FloatKind::BF16)) {
            return self.value_op("arith.extf", &[v], Type::f32());
        }
        v
    }

    /// A value computed in f32 narrowed back to f16 or bf16 when `elem` (the buffer's element
    /// type) is one; other values as they are.
    fn narrow_to(&mut self, v: ValueId, elem: &Type) -> ValueId {
        if matches!(elem, Type::Float(FloatKind::F16 | FloatKind::BF16)) && self.ty(v) != *elem {
            return self.value_op("arith.truncf", &[v], elem.clone());
        }
        v
    }

    /// Loads an element, widening f16 to f32 (f16 tensors compute in f32).
    fn load(&mut self, buf: ValueId, idx: &[ValueId]) -> ValueId {
        let elem = (*self.ty(buf).as_memref().expect("memref").elem).clone();
        let v = self.value_op("memref.load", &[&[buf][..], idx].concat(), elem);
        self.widen_f16(v)
    }

    /// Stores an element, narrowing an f32 value into an f16 buffer.
    fn store(&mut self, v: ValueId, buf: ValueId, idx: &[ValueId]) {
        let elem = (*self.ty(buf).as_memref().expect("memref").elem).clone();
        let v = self.narrow_to(v, &elem);
        self.op(OpSpec::new("memref.store", Span::UNKNOWN).operands([&[v, buf][..], idx].concat()));
    }

    /// An element index read from an index tensor: negative values count from the end of a
    /// dimension of size `dim`, a number or a run-time index (Gather, GatherElements). An index
    /// outside the dimension stores
    /// `code` into `status` (a `memref<1xi32>`, the run's result) and reads element 0 instead,
    /// so a bad index never reads outside the buffer.
    fn checked_index(&mut self, raw: ValueId, dim: Extent, status: ValueId, code: i32) -> ValueId {
        let it = self.ty(raw);
        let zero = self.const_int(0, it.clone());
        let dimv = match dim {
            Extent::Fixed(n) => self.const_int(n as i128, it.clone()),
            Extent::Value(n) => self.value_op("arith.index_cast", &[n], it.clone()),
        };
        let neg = self.cmpi("slt", raw, zero);
        let wrapped = self.value_op("arith.addi", &[raw, dimv], it.clone());
        let fixed = self.value_op("arith.select", &[neg, wrapped, raw], it.clone());
        // Unsigned: a still-negative index is huge, so one comparison covers both ends.
        let inside = self.cmpi("ult", fixed, dimv);
        let outside = self.cmpi("uge", fixed, dimv);
        self.fail_if(outside, status, code);
        let safe = self.value_op("arith.select", &[inside, fixed, zero], it);
        self.value_op("arith.index_cast", &[safe], Type::Index)
    }

    /// Stores `code` into `status` (a `memref<1xi32>`, the run's result) when `cond` (an i1)
    /// holds; the code after it runs on.
    fn fail_if(&mut self, cond: ValueId, status: ValueId, code: i32) {
        self.if_then(cond, |e| {
            let code = e.const_int(code as i128, Type::i32());
            let at = e.idx(0);
            e.store(code, status, &[at]);
        });
    }

    /// The x86-64 level of the CPU the code runs on, as runtime-c's `xcc_cpu_level()` reports it
    /// (0 off x86): a call that `cpu-dispatch` folds to the level each copy of the code is
    /// compiled for, so code that branches on it keeps one side per CPU.
    fn cpu_level(&mut self) -> ValueId {
        let name = CPU_LEVEL;
        declare_function(self.module(), name, vec![], vec![Type::i32()]);
        let call =
            OpSpec::new("llvm.call", Span::UNKNOWN).results([Type::i32()]).attr("callee", Attribute::symbol(name));
        let call = self.op(call);
        self.module().result(call, 0)
    }

    /// `scf.if cond { then }` (no results, an empty else).
    fn if_then(&mut self, cond: ValueId, then: impl FnOnce(&mut Self)) {
        let then_region = self.module().new_region();
        let else_region = self.module().new_region();
        let block = self.module().append_block(then_region, Span::UNKNOWN);
        self.op(OpSpec::new("scf.if", Span::UNKNOWN).operands([cond]).region(then_region).region(else_region));
        let saved = self.set_block(block);
        then(self);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN));
        self.set_block(saved);
    }

    /// `scf.if cond -> (types) { then } else { otherwise }`; each side returns its values.
    fn if_else(
        &mut self,
        cond: ValueId,
        types: Vec<Type>,
        then: impl FnOnce(&mut Self) -> Vec<ValueId>,
        otherwise: impl FnOnce(&mut Self) -> Vec<ValueId>,
    ) -> Vec<ValueId> {
        let regions = [self.module().new_region(), self.module().new_region()];
        let blocks = regions.map(|r| self.module().append_block(r, Span::UNKNOWN));
        let op = self.op(OpSpec::new("scf.if", Span::UNKNOWN)
            .operands([cond])
            .results(types)
            .region(regions[0])
            .region(regions[1]));
        let saved = self.set_block(blocks[0]);
        let values = then(self);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN).operands(values));
        self.set_block(blocks[1]);
        let values = otherwise(self);
        self.op(OpSpec::new("scf.yield", Span::UNKNOWN).operands(values));
        self.set_block(saved);
        self.module().ops[op].results.clone()
    }

    /// For a window tap at position `p` along a dimension of `size` (a number, or an index known
    /// at run time): ANDs "0 <= p < size" into `inside` and returns `p` clamped into the
    /// dimension, so the load is always in bounds.
    fn clamp_tap(&mut self, p: ValueId, size: impl Into<Extent>, inside: &mut Option<ValueId>) -> ValueId {
        let size = size.into();
        let zero = self.idx(0);
        let hi = self.extent(size);
        let ge = self.cmpi("sge", p, zero);
        let lt = self.cmpi("slt", p, hi);
        let ok = self.value_op("arith.andi", &[ge, lt], Type::i1());
        *inside = Some(match *inside {
            None => ok,
            Some(a) => self.value_op("arith.andi", &[a, ok], Type::i1()),
        });
        let lo = self.value_op("arith.maxsi", &[p, zero], Type::Index);
        let last = match size {
            Extent::Fixed(n) => self.idx(n as i64 - 1),
            Extent::Value(n) => {
                let one = self.idx(1);
                self.value_op("arith.subi", &[n, one], Type::Index)
            }
        };
        self.value_op("arith.minsi", &[lo, last], Type::Index)
    }

    /// `constant + sum(v * stride)` over index values.
    fn affine(&mut self, terms: &[(ValueId, i64)], constant: i64) -> ValueId {
        sum_of_products(self, terms, constant, |b, s| b.idx(s))
    }

    /// The multi-index of a flat index in a row-major shape.
    fn unflatten(&mut self, flat: ValueId, shape: &[usize]) -> Vec<ValueId> {
        self.unflatten_over(flat, &fixed(shape))
    }

    /// [`LoopBuilder::unflatten`] over extents that may be known only at run time.
    fn unflatten_over(&mut self, flat: ValueId, shape: &[Extent]) -> Vec<ValueId> {
        let mut out = Vec::with_capacity(shape.len());
        for (k, &d) in shape.iter().enumerate() {
            let stride = self.extent_product(&shape[k + 1..]);
            let stride = self.extent(stride);
            let q = self.value_op("arith.divui", &[flat, stride], Type::Index);
            out.push(match d {
                Extent::Fixed(d) => {
                    let dv = self.idx(d as i64);
                    self.value_op("arith.remui", &[q, dv], Type::Index)
                }
                Extent::Value(dv) => self.value_op("arith.remui", &[q, dv], Type::Index),
            });
        }
        out
    }

    /// The same buffer seen with another static shape (same element count, contiguous), through
    /// `memref.reinterpret_cast`.
    fn reshaped(&mut self, buf: ValueId, shape: &[usize]) -> ValueId {
        self.reshaped_over(buf, &fixed(shape))
    }

    /// [`LoopBuilder::reshaped`] to extents that may be known only at run time: the view's
    /// dynamic sizes and the strides they make dynamic are operands of the cast.
    fn reshaped_over(&mut self, buf: ValueId, shape: &[Extent]) -> ValueId {
        let mt = self.ty(buf).as_memref().expect("memref").clone();
        let to = crate::types::MemRefType {
            shape: shape.iter().map(|e| e.fixed().map(|d| d as u64)).collect(),
            elem: mt.elem.clone(),
            layout: crate::types::Layout::Identity,
            memory_space: mt.memory_space.clone(),
        };
        let mut spec = crate::dialects::memref::reinterpret_spec(buf, &to, Span::UNKNOWN);
        let sizes: Vec<ValueId> = shape
            .iter()
            .filter_map(|e| match e {
                Extent::Value(v) => Some(*v),
                Extent::Fixed(_) => None,
            })
            .collect();
        let mut strides = Vec::new();
        for k in 0..shape.len() {
            if let Extent::Value(v) = self.extent_product(&shape[k + 1..]) {
                strides.push(v);
            }
        }
        if !sizes.is_empty() || !strides.is_empty() {
            spec = spec
                .operands(sizes.iter().chain(&strides).copied())
                .attr("operandSegmentSizes", crate::parser::forms::segment_sizes(&[1, 0, sizes.len(), strides.len()]));
        }
        let op = self.op(spec);
        self.module().result(op, 0)
    }

    /// A flat (1-D) view of a contiguous buffer.
    fn flat(&mut self, buf: ValueId) -> ValueId {
        let mt = self.ty(buf).as_memref().expect("memref").clone();
        if mt.rank() == 1 {
            return buf;
        }
        let dims = self.extents(buf);
        let n = self.extent_product(&dims);
        self.reshaped_over(buf, &[n])
    }

    /// `constant + sum(v * stride)` over index values, with strides that may be known only at
    /// run time.
    fn affine_over(&mut self, terms: &[(ValueId, Extent)], constant: i64) -> ValueId {
        sum_of_products(self, terms, constant, |b, s| b.extent(s))
    }

    /// `a * b` over extents, folded when both are static.
    fn extent_mul(&mut self, a: Extent, b: Extent) -> Extent {
        self.extent_product(&[a, b])
    }
}
