//! `split-wide-vectors` (CPU targets): an operation on a vector of more than
//! [`SPLIT_ABOVE_LANES`] lanes becomes a loop over pieces of [`PIECE_LANES`] lanes, each wide
//! value kept in a stack buffer, before LLVM sees it.
//!
//! Why: LLVM legalizes a vector wider than the target's registers inside the code generator, in
//! one basic block, and several of its steps cost more than linear time in the lane count. A
//! masked load of 1,024 f32 was scalarized into 1,024 blocks, each inserting into the whole vector
//! (72 s, 680 MB); an `arith.divsi` of 16,384 i64 took over 300 s (the DAG combiner's alias
//! queries over thousands of loads and stores); `math.exp` of 8,192 f64 27 s. A loop's body is
//! one piece whatever the width, so the compile costs the same for 100 lanes as for 16,384.
//!
//! ```text
//! %v = vector.load %a[%i] : vector<1024xf32>    scf.for %k = 0 to 1024 step 16 {
//! %e = math.exp %v : vector<1024xf32>             %p = vector.load %a[%i + %k] : vector<16xf32>
//! vector.store %e, %b[%i]                           vector.store %p, %V[%k]
//!                                                }
//!                                                scf.for %k ... { exp of %V[%k] into %E[%k] }
//!                                                scf.for %k ... { %E[%k] into %b[%i + %k] }
//! ```
//!
//! Pieces run along each row (the last dim) in steps of [`PIECE_LANES`], a shorter piece ending a
//! row that is not a multiple; a buffer holds a value's lanes in row-major order (an `i1` lane as
//! a byte, since LLVM packs `i1` vectors into bits). Split are: elementwise `arith` and `math`
//! operations and `vector.fma`, splat constants, broadcasts of a scalar, 1-D loads and stores
//! (masked too) and transfers of any rank. A wide value another operation defines is stored to its
//! buffer where it is defined; one another operation uses is loaded whole after its loop. Each
//! operation's loop finishes before the next begins, so loads and stores keep their order.
//!
//! GPU targets keep their vectors: the pass runs on CPU targets only.

use crate::builder::LoopBuilder;
use crate::kernel::Cursor;
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::attributes::DenseValues;
use xcc_ir::dialects::vector_transfers::Transfer;
use xcc_ir::types::{Layout as MemLayout, MemRefType};
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct SplitWideVectors;

/// Vectors of more lanes than this are split. The project's kernels use 16 lanes (64 bytes, one
/// AVX-512 register, four of SSE or NEON); LLVM handles a few such registers in linear time.
pub const SPLIT_ABOVE_LANES: u64 = 64;

/// The most lanes of one piece.
pub const PIECE_LANES: u64 = 16;

impl Pass for SplitWideVectors {
    fn name(&self) -> &'static str {
        "split-wide-vectors"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            return Ok(m);
        }
        let funcs: Vec<OpId> = m.top_ops().iter().copied().filter(|&f| has_body(&m, f)).collect();
        for f in funcs {
            let mut split = Splitter::new(&m, f);
            if !split.ops.is_empty() {
                split.run(&mut m, f);
            }
        }
        Ok(m)
    }
}

fn has_body(m: &Module, f: OpId) -> bool {
    m.ops[f].name == "func.func" && m.ops[f].regions.first().is_some_and(|&r| !m.regions[r].blocks.is_empty())
}

/// A wide vector's shape and element type.
#[derive(Clone)]
struct Layout {
    shape: Vec<u64>,
    elem: Type,
}

impl Layout {
    fn of(t: &Type) -> Option<Layout> {
        match t {
            Type::Vector { shape, elem } if wide(shape) => {
                Some(Layout { shape: shape.clone(), elem: (**elem).clone() })
            }
            _ => None,
        }
    }

    fn row(&self) -> u64 {
        *self.shape.last().expect("a vector has a dim")
    }

    fn lanes(&self) -> u64 {
        self.shape.iter().product()
    }

    /// How a lane is kept in a buffer: an `i1` as a byte.
    fn stored(&self) -> Type {
        if self.elem == Type::i1() {
            Type::int(8)
        } else {
            self.elem.clone()
        }
    }
}

fn wide(shape: &[u64]) -> bool {
    !shape.is_empty() && shape.iter().all(|&d| d > 0) && shape.iter().product::<u64>() > SPLIT_ABOVE_LANES
}

fn vector(lanes: u64, elem: &Type) -> Type {
    Type::Vector { shape: vec![lanes], elem: Box::new(elem.clone()) }
}

/// Where one piece is: its row's leading coordinates, its first lane in the row, its first lane
/// in the buffer, and its lanes.
struct Piece<'a> {
    coords: &'a [ValueId],
    first: ValueId,
    flat: ValueId,
    lanes: u64,
}

/// Loops over the pieces of a value of `layout`: one per leading dim, then one over the row's
/// full pieces and, where the row is not a multiple of [`PIECE_LANES`], its last piece.
fn for_pieces(c: &mut Cursor, layout: &Layout, body: &mut dyn FnMut(&mut Cursor, Piece)) {
    let k = layout.shape.len();
    let lead: Vec<usize> = layout.shape[..k - 1].iter().map(|&d| d as usize).collect();
    let strides: Vec<i64> = (0..k - 1).map(|j| layout.shape[j + 1..].iter().product::<u64>() as i64).collect();
    let row = layout.row();
    let full = row / PIECE_LANES * PIECE_LANES;
    c.loop_nest(&lead, &mut |c, coords| {
        let row_start = if coords.is_empty() {
            c.idx(0)
        } else {
            let terms: Vec<(ValueId, i64)> = coords.iter().copied().zip(strides.iter().copied()).collect();
            c.affine(&terms, 0)
        };
        if full > 0 {
            let (l, u) = (c.idx(0), c.idx(full as i64));
            c.for_step(l, u, PIECE_LANES as usize, |c, first| {
                let flat = add_index(c, row_start, first);
                body(c, Piece { coords, first, flat, lanes: PIECE_LANES });
            });
        }
        if row > full {
            let first = c.idx(full as i64);
            let flat = add_index(c, row_start, first);
            body(c, Piece { coords, first, flat, lanes: row - full });
        }
    });
}

/// What one function's split needs: the operations split, the wide values kept in buffers, and
/// which of them other operations use whole.
struct Splitter {
    ops: HashSet<OpId>,
    /// Wide values split operations define or use, in the order first seen.
    buffered: Vec<ValueId>,
    buffers: HashMap<ValueId, ValueId>,
    /// Results of split operations that some other operation uses.
    needs_whole: HashSet<ValueId>,
    /// A split operation's result -> its value loaded whole after its loop.
    whole: HashMap<ValueId, ValueId>,
}

impl Splitter {
    fn new(m: &Module, f: OpId) -> Splitter {
        let mut ops = HashSet::new();
        m.walk_nested(f, &mut |op| {
            if splits(m, op) {
                ops.insert(op);
            }
        });
        let (mut buffered, mut seen, mut needs_whole) = (Vec::new(), HashSet::new(), HashSet::new());
        m.walk_nested(f, &mut |op| {
            let d = &m.ops[op];
            if ops.contains(&op) {
                for &v in d.operands.iter().chain(&d.results) {
                    if Layout::of(m.ty(v)).is_some() && seen.insert(v) {
                        buffered.push(v);
                    }
                }
                return;
            }
            for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
                if m.defining_op(v).is_some_and(|def| ops.contains(&def)) {
                    needs_whole.insert(v);
                }
            }
        });
        Splitter { ops, buffered, buffers: HashMap::new(), needs_whole, whole: HashMap::new() }
    }

    fn run(&mut self, m: &mut Module, f: OpId) {
        let span = m.ops[f].span;
        let mut c = Cursor::new(m, span);
        for &v in &self.buffered {
            let layout = Layout::of(c.m.ty(v)).expect("buffered values are wide");
            let buffer = stack_buffer(&mut c, &layout);
            self.buffers.insert(v, buffer);
        }
        let scratch = c.block;
        let allocas = std::mem::take(&mut m.blocks[scratch].ops);
        for r in m.ops[f].regions.clone() {
            for b in m.regions[r].blocks.clone() {
                self.rebuild_block(m, b);
            }
        }
        let entry = m.regions[m.ops[f].regions[0]].blocks[0];
        for &a in &allocas {
            m.ops[a].parent = Some(entry);
        }
        let rest = std::mem::take(&mut m.blocks[entry].ops);
        m.blocks[entry].ops = allocas.into_iter().chain(rest).collect();
        m.replace_uses_by_map_in(f, &self.whole);
    }

    /// Rebuilds block `b` once: its buffered arguments stored first, each split operation
    /// replaced by its loop (and its result loaded whole where another operation uses it), each
    /// other operation's buffered results stored after it; nested blocks as they come.
    fn rebuild_block(&mut self, m: &mut Module, b: BlockId) {
        let old = std::mem::take(&mut m.blocks[b].ops);
        let mut new = Vec::with_capacity(old.len());
        let span = m.blocks[b].span;
        let mut c = Cursor::new(m, span);
        for a in c.m.blocks[b].args.clone() {
            self.store_whole(&mut c, a);
        }
        self.take_built(&mut c, b, &mut new);
        for op in old {
            if !self.ops.contains(&op) {
                for r in c.m.ops[op].regions.clone() {
                    for inner in c.m.regions[r].blocks.clone() {
                        self.rebuild_block(c.m, inner);
                    }
                }
                new.push(op);
                for r in c.m.ops[op].results.clone() {
                    self.store_whole(&mut c, r);
                }
            } else {
                c.span = c.m.ops[op].span;
                self.split_op(&mut c, op);
                for r in c.m.ops[op].results.clone() {
                    if self.needs_whole.contains(&r) {
                        let whole = self.load_whole(&mut c, r);
                        self.whole.insert(r, whole);
                    }
                }
                c.m.ops[op].parent = None;
            }
            self.take_built(&mut c, b, &mut new);
        }
        c.m.blocks[b].ops = new;
    }

    /// Moves what the cursor built to the end of `new` (block `b`'s operations).
    fn take_built(&self, c: &mut Cursor, b: BlockId, new: &mut Vec<OpId>) {
        for built in std::mem::take(&mut c.m.blocks[c.block].ops) {
            c.m.ops[built].parent = Some(b);
            new.push(built);
        }
    }

    /// `v` (defined by an operation kept whole, or a block argument) stored to its buffer.
    fn store_whole(&self, c: &mut Cursor, v: ValueId) {
        let Some(&buffer) = self.buffers.get(&v) else { return };
        if c.m.defining_op(v).is_some_and(|d| self.ops.contains(&d)) {
            return;
        }
        let layout = Layout::of(c.m.ty(v)).expect("buffered values are wide");
        let flat = reshape(c, v, &vector(layout.lanes(), &layout.elem));
        let zero = c.idx(0);
        store_piece(c, flat, buffer, zero);
    }

    /// A split operation's result `r` loaded whole from its buffer.
    fn load_whole(&self, c: &mut Cursor, r: ValueId) -> ValueId {
        let layout = Layout::of(c.m.ty(r)).expect("buffered values are wide");
        let zero = c.idx(0);
        let flat = load_piece(c, self.buffers[&r], zero, layout.lanes(), &layout.elem);
        reshape(c, flat, &Type::Vector { shape: layout.shape.clone(), elem: Box::new(layout.elem.clone()) })
    }

    /// The loop that does `op`'s work a piece at a time.
    fn split_op(&self, c: &mut Cursor, op: OpId) {
        let d = c.m.ops[op].clone();
        match d.name.as_str() {
            "arith.constant" | "vector.broadcast" => self.split_fill(c, &d),
            "vector.load" | "vector.store" | "vector.maskedload" | "vector.maskedstore" => self.split_access(c, &d),
            "vector.transfer_read" | "vector.transfer_write" => self.split_transfer(c, op, &d),
            _ => self.split_elementwise(c, &d),
        }
    }

    /// The buffer's piece of wide operand `v`, else `v` itself (a scalar).
    fn operand_piece(&self, c: &mut Cursor, v: ValueId, at: &Piece) -> ValueId {
        match self.buffers.get(&v) {
            Some(&buffer) => {
                let elem = c.m.ty(v).element_or_self().clone();
                load_piece(c, buffer, at.flat, at.lanes, &elem)
            }
            None => v,
        }
    }

    /// A splat constant's or a scalar broadcast's pieces, each the same.
    fn split_fill(&self, c: &mut Cursor, d: &xcc_ir::module::OpData) {
        let r = d.results[0];
        let layout = Layout::of(c.m.ty(r)).expect("a split fill is wide");
        let buffer = self.buffers[&r];
        for_pieces(c, &layout, &mut |c, at| {
            let t = vector(at.lanes, &layout.elem);
            let piece = match &d.attrs.iter().find(|(k, _)| k == "value") {
                Some((_, Attribute::Dense { values, .. })) => {
                    let value = Attribute::Dense { values: values.clone(), ty: t.clone() };
                    c.value_attr("arith.constant", &[], t, vec![("value", value)])
                }
                _ => c.value_op("vector.broadcast", &[d.operands[0]], t),
            };
            store_piece(c, piece, buffer, at.flat);
        });
    }

    /// Each piece of every result from the pieces of the vector operands (scalar operands, such
    /// as a select's condition, as they are).
    fn split_elementwise(&self, c: &mut Cursor, d: &xcc_ir::module::OpData) {
        let layout = Layout::of(c.m.ty(d.results[0])).expect("a split result is wide");
        for_pieces(c, &layout, &mut |c, at| {
            let args: Vec<ValueId> = d.operands.iter().map(|&v| self.operand_piece(c, v, &at)).collect();
            let types: Vec<Type> = d.results.iter().map(|&r| vector(at.lanes, c.m.ty(r).element_or_self())).collect();
            let mut spec = OpSpec::new(d.name.clone(), d.span).operands(args).results(types);
            spec.attrs = d.attrs.clone();
            let piece = c.op(spec);
            for (i, &r) in d.results.iter().enumerate() {
                let value = c.m.result(piece, i);
                store_piece(c, value, self.buffers[&r], at.flat);
            }
        });
    }

    /// 1-D loads and stores (masked too): each piece at the last index plus its first lane.
    fn split_access(&self, c: &mut Cursor, d: &xcc_ir::module::OpData) {
        let read = matches!(d.name.as_str(), "vector.load" | "vector.maskedload");
        let at_memref = usize::from(d.name == "vector.store");
        let rank = c.m.ty(d.operands[at_memref]).as_memref().expect("verified memref").rank();
        let last_index = at_memref + rank;
        let vt = if read { c.m.ty(d.results[0]).clone() } else { c.m.ty(access_value(d)).clone() };
        let layout = Layout::of(&vt).expect("a split access is wide");
        for_pieces(c, &layout, &mut |c, at| {
            let mut operands = Vec::with_capacity(d.operands.len());
            for (i, &v) in d.operands.iter().enumerate() {
                operands.push(match i {
                    i if i == last_index => add_index(c, v, at.first),
                    i if i >= at_memref && i < last_index => v,
                    _ => self.operand_piece(c, v, &at),
                });
            }
            let mut spec = OpSpec::new(d.name.clone(), d.span).operands(operands);
            spec.attrs = d.attrs.clone();
            if read {
                spec = spec.results([vector(at.lanes, &layout.elem)]);
            }
            let piece = c.op(spec);
            if read {
                let value = c.m.result(piece, 0);
                store_piece(c, value, self.buffers[&d.results[0]], at.flat);
            }
        });
    }

    /// Each piece a transfer of the vector's rank whose dims are 1 but the last, at the row's
    /// coordinates and the piece's first lane: the original's bounds and mask, lane for lane.
    fn split_transfer(&self, c: &mut Cursor, op: OpId, d: &xcc_ir::module::OpData) {
        let t = Transfer::of(c.m, op).expect("verified transfer");
        let vt = if t.read { c.m.ty(d.results[0]).clone() } else { c.m.ty(d.operands[0]).clone() };
        let layout = Layout::of(&vt).expect("a split transfer is wide");
        let k = layout.shape.len();
        for_pieces(c, &layout, &mut |c, at| {
            let mut indices = t.indices.clone();
            let rank = indices.len();
            for (j, &coord) in at.coords.iter().enumerate() {
                indices[rank - k + j] = add_index(c, indices[rank - k + j], coord);
            }
            indices[rank - 1] = add_index(c, indices[rank - 1], at.first);
            let shape: Vec<u64> = (0..k).map(|j| if j + 1 == k { at.lanes } else { 1 }).collect();
            let piece_t = Type::Vector { shape: shape.clone(), elem: Box::new(layout.elem.clone()) };
            let mask_t = Type::Vector { shape, elem: Box::new(Type::i1()) };
            let mut operands = Vec::new();
            if let Some(v) = t.vector {
                let value = self.operand_piece(c, v, &at);
                operands.push(reshape(c, value, &piece_t));
            }
            operands.push(t.memref);
            operands.extend(indices);
            operands.extend(t.padding);
            if let Some(mask) = t.mask {
                let piece = self.operand_piece(c, mask, &at);
                operands.push(reshape(c, piece, &mask_t));
            }
            let mut spec = OpSpec::new(d.name.clone(), d.span).operands(operands);
            spec.attrs = d.attrs.clone();
            if t.read {
                spec = spec.results([piece_t.clone()]);
            }
            let piece = c.op(spec);
            if t.read {
                let value = c.m.result(piece, 0);
                let flat = reshape(c, value, &vector(at.lanes, &layout.elem));
                store_piece(c, flat, self.buffers[&d.results[0]], at.flat);
            }
        });
    }
}

/// A 64-byte aligned stack buffer for a value of `layout`, its lanes in row-major order.
fn stack_buffer(c: &mut Cursor, layout: &Layout) -> ValueId {
    let t = MemRefType {
        shape: vec![Some(layout.lanes())],
        elem: Box::new(layout.stored()),
        layout: MemLayout::Identity,
        memory_space: None,
    };
    let alloca = c.op(OpSpec::new("memref.alloca", Span::UNKNOWN)
        .results([Type::MemRef(t)])
        .attr("alignment", Attribute::i64(64))
        .attr("operandSegmentSizes", xcc_ir::parser::forms::segment_sizes(&[0, 0])));
    c.m.result(alloca, 0)
}

/// `lanes` lanes of `elem` from `buffer[flat]` on.
fn load_piece(c: &mut Cursor, buffer: ValueId, flat: ValueId, lanes: u64, elem: &Type) -> ValueId {
    if *elem == Type::i1() {
        let bytes = c.value_op("vector.load", &[buffer, flat], vector(lanes, &Type::int(8)));
        return c.value_op("arith.trunci", &[bytes], vector(lanes, elem));
    }
    c.value_op("vector.load", &[buffer, flat], vector(lanes, elem))
}

/// `piece` (1-D) stored to `buffer[flat]` on.
fn store_piece(c: &mut Cursor, piece: ValueId, buffer: ValueId, flat: ValueId) {
    let Type::Vector { shape, elem } = c.m.ty(piece).clone() else { unreachable!("a vector piece") };
    let piece =
        if *elem == Type::i1() { c.value_op("arith.extui", &[piece], vector(shape[0], &Type::int(8))) } else { piece };
    c.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([piece, buffer, flat]));
}

/// Whether `op` is one this pass splits: its vector wide, its kind one of those listed above.
fn splits(m: &Module, op: OpId) -> bool {
    let d = &m.ops[op];
    let name = d.name.as_str();
    let first_result = d.results.first().map(|&r| m.ty(r));
    match name {
        "arith.constant" => {
            let splat = matches!(m.attr(op, "value"), Some(Attribute::Dense { values, .. }) if values.len() == 1 && !matches!(values, DenseValues::Hex(_)));
            splat && first_result.is_some_and(|t| Layout::of(t).is_some())
        }
        "vector.broadcast" => {
            !matches!(m.ty(d.operands[0]), Type::Vector { .. }) && first_result.is_some_and(|t| Layout::of(t).is_some())
        }
        "vector.load" | "vector.maskedload" => first_result.is_some_and(one_dim_wide),
        "vector.store" | "vector.maskedstore" => one_dim_wide(m.ty(access_value(d))),
        "vector.transfer_read" => first_result.is_some_and(|t| Layout::of(t).is_some()),
        "vector.transfer_write" => Layout::of(m.ty(d.operands[0])).is_some(),
        _ if name == "vector.fma" || (name.starts_with("arith.") || name.starts_with("math.")) => {
            elementwise_wide(m, op)
        }
        _ => false,
    }
}

fn one_dim_wide(t: &Type) -> bool {
    matches!(t, Type::Vector { shape, .. } if shape.len() == 1) && Layout::of(t).is_some()
}

/// The vector a store writes: `vector.store`'s first operand, `vector.maskedstore`'s last.
fn access_value(d: &xcc_ir::module::OpData) -> ValueId {
    if d.name == "vector.store" {
        d.operands[0]
    } else {
        *d.operands.last().expect("verified store")
    }
}

/// Every result a wide vector of one shape, every operand a vector of that shape or a scalar.
fn elementwise_wide(m: &Module, op: OpId) -> bool {
    let d = &m.ops[op];
    let Some(Type::Vector { shape, .. }) = d.results.first().map(|&r| m.ty(r)) else { return false };
    if !wide(shape) || !d.regions.is_empty() {
        return false;
    }
    let same = |t: &Type| matches!(t, Type::Vector { shape: s, .. } if s == shape);
    d.results.iter().all(|&r| same(m.ty(r)))
        && d.operands.iter().all(|&v| same(m.ty(v)) || !matches!(m.ty(v), Type::Vector { .. }))
}

/// `a + b` over indices.
fn add_index(c: &mut Cursor, a: ValueId, b: ValueId) -> ValueId {
    c.value_op("arith.addi", &[a, b], Type::Index)
}

/// `v` as type `t` (same lanes in row-major order), or `v` where it already is.
fn reshape(c: &mut Cursor, v: ValueId, t: &Type) -> ValueId {
    if c.m.ty(v) == t {
        v
    } else {
        c.value_op("vector.shape_cast", &[v], t.clone())
    }
}
