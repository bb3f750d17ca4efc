//! `kernel.attention` to loops: one parallel loop over the query rows (batch, pass of heads,
//! query), each row's softmax computed online over blocks of [`KEYS`] keys, with no score matrix
//! in memory and the grouped heads read where they are (`xcc_ir::dialects::kernel_attention`).
//! A task takes the rows of `heads_per_pass` heads of one group (the recorded strategy) in one
//! pass: each key and value row is loaded once for all of them, which is what a decode step
//! over a long cache is bound by (the cache comes from memory).
//!
//! Per block and head: the block's scores (the row's Q, scaled once, dotted with each key in
//! vectors of [`LANES`], the vectors of partial sums transposed into one as they add; the bias
//! added, loaded as one vector; keys past T at -inf, their loads clamped to the last key), the
//! running maximum raised to the block's, the sums and the output accumulators rescaled by
//! `exp(old max - new max)` (one exp per block), the weights `exp(score - max)` as one vector,
//! and each key's value row added times its weight. A row ends divided by its weights' sum, or
//! zeros where every key was masked (the sum is 0). A block whose every key the bias masks (-inf)
//! for every head of the pass is skipped: a causal prompt's rows read only the keys up to their
//! own.

use super::qgemm::vector;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel_attention::{heads_per_pass, key_parts, scale, AttentionShape};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, Type, ValueId};

/// The keys whose scores are taken together (one vector of weights).
const KEYS: usize = 8;

/// The lanes of the head-size vectors.
const LANES: usize = 8;

// A block's scores are one vector: its keys' vectors of partial sums, transposed as they add.
const _: () = assert!(KEYS == LANES);

/// What every row shares: the flat operands and the sizes.
struct Rows {
    q: ValueId,
    k: ValueId,
    v: ValueId,
    bias: Option<Bias>,
    out: ValueId,
    sh: AttentionShape,
    scale: f64,
    /// The queries per row of the batch and head (S), the keys (T).
    queries: Extent,
    keys: Extent,
}

/// The bias and its dims, each broadcast where it is 1.
struct Bias {
    buf: ValueId,
    dims: [Extent; 3],
}

pub fn lower(m: &mut Module, op: OpId) -> Result<(), Diagnostic> {
    let span = m.ops[op].span;
    let sh = AttentionShape::of(m, op);
    if !sh.head.is_multiple_of(LANES as u64) || !sh.v_head.is_multiple_of(LANES as u64) {
        return Err(Diagnostic::new(span, format!("kernel.attention's head sizes must be multiples of {LANES}")));
    }
    let scale = scale(m, op).expect("verified");
    let pass = heads_per_pass(m, op);
    let operands = m.ops[op].operands.clone();
    let mut c = Cursor::new(m, span);
    let q_dims = c.extents(operands[0]);
    let keys = c.extent_of(operands[1], 2);
    let flat: Vec<ValueId> = operands.iter().map(|&v| c.flat(v)).collect();
    let bias = sh.has_bias.then(|| Bias { buf: flat[3], dims: [0, 1, 2].map(|k| c.extent_of(operands[3], k)) });
    let shared = Rows {
        q: flat[0],
        k: flat[1],
        v: flat[2],
        bias,
        out: flat[flat.len() - 1],
        sh,
        scale,
        queries: q_dims[2],
        keys,
    };
    let passes = Extent::Fixed(sh.q_heads as usize / pass);
    let every_row = |c: &mut Cursor| {
        c.parallel_over(&[q_dims[0], passes, q_dims[2]], &mut |e, ivs| {
            let heads = pass_heads(e, ivs[1], pass);
            rows(e, &shared, ivs[0], &heads, ivs[2])
        });
    };
    let parts = key_parts(c.m, op);
    if parts > 1 {
        let scratch =
            super::aligned_buffer(&mut c, Type::f32(), sh.q_heads as usize * parts * (2 + sh.v_head as usize));
        let lone = lone_row_of_long_keys(&mut c, (q_dims[0], q_dims[2]), keys);
        let split = KeySplit { parts, scratch, pass };
        c.if_else(
            lone,
            vec![],
            |c| split.lower(c, &shared),
            |c| {
                every_row(c);
                vec![]
            },
        );
        c.op(xcc_ir::OpSpec::new("memref.dealloc", xcc_ir::Span::UNKNOWN).operands([scratch]));
    } else {
        every_row(&mut c);
    }
    c.finish(op);
    Ok(())
}

/// The heads of pass `p`: `p * pass` to `p * pass + pass - 1`.
fn pass_heads(e: &mut Cursor, p: ValueId, pass: usize) -> Vec<ValueId> {
    (0..pass).map(|i| e.affine(&[(p, pass as i64)], i as i64)).collect()
}

/// The fewest keys a part of a split row takes: each part pays for its queries' loads, its
/// state's store and its share of the combination, which a few blocks of keys outweigh.
pub const PART_KEYS: usize = 128;

/// Whether the query rows are one (`B * S = 1`, a decode step) over at least two parts' keys.
fn lone_row_of_long_keys(c: &mut Cursor, (batch, queries): (Extent, Extent), keys: Extent) -> ValueId {
    let rows = c.extent_mul(batch, queries);
    let (rows, keys) = (c.extent(rows), c.extent(keys));
    let one = c.idx(1);
    let lone = c.cmpi("eq", rows, one);
    let least = c.idx(2 * PART_KEYS as i64);
    let long = c.cmpi("uge", keys, least);
    c.value_op("arith.andi", &[lone, long], Type::i1())
}

/// A lone query row's keys in `parts` parts, each pass of heads over each part one task of a
/// parallel loop that leaves its state (running maximum, sum, output sums) in `scratch`
/// (`[heads, parts, 2 + Dv]`); then each head's parts combined on the calling thread. The parts
/// depend on the keys alone, so any thread count computes the same values.
struct KeySplit {
    parts: usize,
    scratch: ValueId,
    pass: usize,
}

impl KeySplit {
    fn lower(&self, c: &mut Cursor, r: &Rows) -> Vec<ValueId> {
        let keys = c.extent(r.keys);
        let blocks = ceil_div(c, keys, KEYS);
        // As many parts as have PART_KEYS keys each, at most `parts`, in whole blocks.
        let most = c.idx(PART_KEYS as i64);
        let most = c.value_op("arith.divui", &[keys, most], Type::Index);
        let cap = c.idx(self.parts as i64);
        let used = c.value_op("arith.minui", &[most, cap], Type::Index);
        let per_part = c.affine(&[(blocks, 1), (used, 1)], -1);
        let per_part = c.value_op("arith.divui", &[per_part, used], Type::Index);
        let passes = Extent::Fixed(r.sh.q_heads as usize / self.pass);
        let zero = c.idx(0);
        c.parallel_over(&[passes, Extent::Fixed(self.parts)], &mut |e, ivs| {
            let heads = pass_heads(e, ivs[0], self.pass);
            let first = e.value_op("arith.muli", &[ivs[1], per_part], Type::Index);
            let first = e.value_op("arith.minui", &[first, blocks], Type::Index);
            let end = e.value_op("arith.addi", &[first, per_part], Type::Index);
            let end = e.value_op("arith.minui", &[end, blocks], Type::Index);
            let state = pass_state(e, r, (zero, &heads, zero), (first, end));
            for (i, &h) in heads.iter().enumerate() {
                let at = self.state_at(e, r, h, ivs[1]);
                self.store_state(e, at, &state[i * self.state_len(r)..(i + 1) * self.state_len(r)]);
            }
        });
        c.for_loop(0, r.sh.q_heads as usize, |e, h| self.combine(e, r, h));
        vec![]
    }

    /// A head's state: maximum, sum, then the output sums.
    fn state_len(&self, r: &Rows) -> usize {
        2 + r.sh.v_head as usize / LANES
    }

    fn state_at(&self, e: &mut Cursor, r: &Rows, h: ValueId, part: ValueId) -> ValueId {
        let floats = 2 + r.sh.v_head as i64;
        e.affine(&[(h, self.parts as i64 * floats), (part, floats)], 0)
    }

    fn store_state(&self, e: &mut Cursor, at: ValueId, st: &[ValueId]) {
        e.store(st[0], self.scratch, &[at]);
        let sum_at = e.affine(&[(at, 1)], 1);
        e.store(st[1], self.scratch, &[sum_at]);
        for (i, &acc) in st[2..].iter().enumerate() {
            let acc_at = e.affine(&[(at, 1)], (2 + i * LANES) as i64);
            e.op(xcc_ir::OpSpec::new("vector.store", xcc_ir::Span::UNKNOWN).operands([acc, self.scratch, acc_at]));
        }
    }

    /// Head `h`'s parts into its output row: each part's sums rescaled by `exp(its maximum -
    /// the largest)` (0 for a part with no key, whose maximum is -inf) and added.
    fn combine(&self, e: &mut Cursor, r: &Rows, h: ValueId) {
        let dv = r.sh.v_head as usize / LANES;
        let parts: Vec<(ValueId, ValueId, Vec<ValueId>)> = (0..self.parts)
            .map(|p| {
                let p = e.idx(p as i64);
                let at = self.state_at(e, r, h, p);
                let max = e.load(self.scratch, &[at]);
                let sum_at = e.affine(&[(at, 1)], 1);
                let sum = e.load(self.scratch, &[sum_at]);
                let acc_at = e.affine(&[(at, 1)], 2);
                (max, sum, vectors(e, self.scratch, acc_at, dv))
            })
            .collect();
        let mut max = parts[0].0;
        for part in &parts[1..] {
            max = e.value_op("arith.maximumf", &[max, part.0], Type::f32());
        }
        // Measured from 0 where no part has a key (-inf - -inf is NaN): every weight is then 0.
        let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
        let none = e.cmpf("oeq", max, neg_inf);
        let zero = e.const_float(0.0, Type::f32());
        let base = e.value_op("arith.select", &[none, zero, max], Type::f32());
        let zeros = splat(e, zero, LANES);
        let (mut sum, mut acc) = (zero, vec![zeros; dv]);
        for (part_max, part_sum, part_acc) in &parts {
            let shifted = e.value_op("arith.subf", &[*part_max, base], Type::f32());
            let w = e.value_op("math.exp", &[shifted], Type::f32());
            sum = e.fmuladd(w, *part_sum, sum);
            let ws = splat(e, w, LANES);
            for (a, &x) in acc.iter_mut().zip(part_acc) {
                *a = e.fmuladd(ws, x, *a);
            }
        }
        let zero_i = e.idx(0);
        let out_at = row_start(e, (zero_i, h, zero_i), (r.sh.q_heads, r.queries, r.sh.v_head));
        store_row(e, r, out_at, &[[max, sum].as_slice(), &acc].concat());
    }
}

/// `ceil(n / by)`.
fn ceil_div(e: &mut Cursor, n: ValueId, by: usize) -> ValueId {
    let rounded = e.affine(&[(n, 1)], by as i64 - 1);
    let by = e.idx(by as i64);
    e.value_op("arith.divui", &[rounded, by], Type::Index)
}

/// `[b, h, s]` of a `[B, H, S, size]` buffer, flat.
fn row_start(
    e: &mut Cursor,
    (b, h, s): (ValueId, ValueId, ValueId),
    (heads, queries, size): (u64, Extent, u64),
) -> ValueId {
    let row = e.extent_mul(queries, Extent::Fixed(size as usize));
    let head = e.extent_mul(Extent::Fixed(heads as usize), row);
    e.affine_over(&[(b, head), (h, row), (s, Extent::Fixed(size as usize))], 0)
}

/// Loads `count` vectors of [`LANES`] from `at` on.
fn vectors(e: &mut Cursor, buf: ValueId, at: ValueId, count: usize) -> Vec<ValueId> {
    (0..count)
        .map(|i| {
            let at = e.affine(&[(at, 1)], (i * LANES) as i64);
            e.value_op("vector.load", &[buf, at], vector(LANES, Type::f32()))
        })
        .collect()
}

fn reduce(e: &mut Cursor, kind: &str, v: ValueId) -> ValueId {
    let kind = Attribute::Opaque(format!("#vector.kind<{kind}>"));
    e.value_attr("vector.reduction", &[v], Type::f32(), vec![("kind", kind)])
}

fn splat(e: &mut Cursor, v: ValueId, lanes: usize) -> ValueId {
    e.value_op("vector.broadcast", &[v], vector(lanes, Type::f32()))
}

/// The output rows `(b, h, s)` of each head `h` of `heads` (heads of one group, which read the
/// same keys and values) in one pass over the keys: each key and value row loaded once for all.
fn rows(e: &mut Cursor, r: &Rows, b: ValueId, heads: &[ValueId], s: ValueId) {
    let zero = e.idx(0);
    let keys = e.extent(r.keys);
    let blocks = ceil_div(e, keys, KEYS);
    let state = pass_state(e, r, (b, heads, s), (zero, blocks));
    let out_row = state.len() / heads.len();
    for (i, &h) in heads.iter().enumerate() {
        let out_at = row_start(e, (b, h, s), (r.sh.q_heads, r.queries, r.sh.v_head));
        store_row(e, r, out_at, &state[i * out_row..(i + 1) * out_row]);
    }
}

/// Each head's running softmax over the key blocks `first` to `end` (of [`KEYS`]) of the rows
/// `(b, h, s)`: per head, its maximum, its weights' sum and its output sums.
fn pass_state(
    e: &mut Cursor,
    r: &Rows,
    (b, heads, s): (ValueId, &[ValueId], ValueId),
    (first_block, end_block): (ValueId, ValueId),
) -> Vec<ValueId> {
    let (d, dv) = ((r.sh.head as usize) / LANES, (r.sh.v_head as usize) / LANES);
    let factor = e.const_float(r.scale, Type::f32());
    let factor = splat(e, factor, LANES);
    let q: Vec<Vec<ValueId>> = heads
        .iter()
        .map(|&h| {
            let q_at = row_start(e, (b, h, s), (r.sh.q_heads, r.queries, r.sh.head));
            vectors(e, r.q, q_at, d)
                .into_iter()
                .map(|x| e.value_op("arith.mulf", &[x, factor], vector(LANES, Type::f32())))
                .collect()
        })
        .collect();
    let group = e.idx((r.sh.q_heads / r.sh.kv_heads) as i64);
    let kv_head = e.value_op("arith.divui", &[heads[0], group], Type::Index);
    let zero = e.idx(0);
    let k_at = row_start(e, (b, kv_head, zero), (r.sh.kv_heads, r.keys, r.sh.head));
    let v_at = row_start(e, (b, kv_head, zero), (r.sh.kv_heads, r.keys, r.sh.v_head));
    // One bias row for all the heads where the bias is broadcast over heads.
    let bias_rows: Vec<ValueId> = match &r.bias {
        None => vec![],
        Some(bias) if bias.dims[1] == Extent::Fixed(1) => vec![bias_row(e, bias, (b, heads[0], s), r)],
        Some(bias) => heads.iter().map(|&h| bias_row(e, bias, (b, h, s), r)).collect(),
    };
    let keys = e.extent(r.keys);
    let last = {
        let one = e.idx(1);
        e.value_op("arith.subi", &[keys, one], Type::Index)
    };
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let zero_f = e.const_float(0.0, Type::f32());
    let zeros = splat(e, zero_f, LANES);
    let per_head: Vec<ValueId> = [vec![neg_inf, zero_f], vec![zeros; dv]].concat();
    let inits: Vec<ValueId> = heads.iter().flat_map(|_| per_head.iter().copied()).collect();
    let types: Vec<Type> = inits.iter().map(|&v| e.ty(v).clone()).collect();
    e.for_accs_between(first_block, end_block, &inits, |e, blk, st| {
        let first = e.affine(&[(blk, KEYS as i64)], 0);
        let at = KeyBlock { first, keys, last, k_at, v_at };
        if bias_rows.is_empty() {
            let left = e.value_op("arith.subi", &[keys, first], Type::Index);
            let inside = e.value_op("vector.create_mask", &[left], vector(KEYS, Type::i1()));
            return block(e, r, &q, &at, &Masking::Inside(inside), st);
        }
        let biases: Vec<ValueId> = bias_rows.iter().map(|&row| block_bias(e, r, row, &at)).collect();
        // A block whose every key the bias masks for every head adds nothing: a causal
        // prompt's row skips the keys after it, half of its keys over the prompt.
        let masked = all_masked(e, &biases);
        e.if_else(masked, types.clone(), |_| st.to_vec(), |e| block(e, r, &q, &at, &Masking::Bias(biases.clone()), st))
    })
}

/// A row's output, its accumulators divided by its weights' sum; zeros where every key was
/// masked (the sum is 0). `st` is the row's running maximum, sum and accumulators.
fn store_row(e: &mut Cursor, r: &Rows, out_at: ValueId, st: &[ValueId]) {
    let zero_f = e.const_float(0.0, Type::f32());
    let sum = st[1];
    let positive = e.cmpf("ogt", sum, zero_f);
    let one_f = e.const_float(1.0, Type::f32());
    let inverse = e.value_op("arith.divf", &[one_f, sum], Type::f32());
    let inverse = e.value_op("arith.select", &[positive, inverse, zero_f], Type::f32());
    let inverse = splat(e, inverse, LANES);
    for (i, &acc) in st[2..].iter().enumerate() {
        let y = e.value_op("arith.mulf", &[acc, inverse], vector(LANES, Type::f32()));
        let at = e.affine(&[(out_at, 1)], (i * LANES) as i64);
        e.op(xcc_ir::OpSpec::new("vector.store", xcc_ir::Span::UNKNOWN).operands([y, r.out, at]));
    }
}

/// Where a block's keys are: its first key, the key count and the last key, the group's keys
/// and values.
struct KeyBlock {
    first: ValueId,
    keys: ValueId,
    last: ValueId,
    k_at: ValueId,
    v_at: ValueId,
}

/// How a block's keys past T (and those the bias masks) get a score of -inf: through the mask
/// of the keys inside, or through the bias of each head (one for all where it is broadcast),
/// loaded as -inf past T.
enum Masking {
    Inside(ValueId),
    Bias(Vec<ValueId>),
}

/// The row's bias start: each of the bias's dims broadcast where it is 1.
fn bias_row(e: &mut Cursor, bias: &Bias, (b, h, s): (ValueId, ValueId, ValueId), r: &Rows) -> ValueId {
    let zero = e.idx(0);
    let index = |e: &mut Cursor, i: ValueId, dim: Extent| match dim {
        Extent::Fixed(1) => zero,
        Extent::Fixed(_) => i,
        Extent::Value(n) => {
            let one = e.idx(1);
            let single = e.cmpi("eq", n, one);
            e.value_op("arith.select", &[single, zero, i], Type::Index)
        }
    };
    let (bb, hb, sb) = (index(e, b, bias.dims[0]), index(e, h, bias.dims[1]), index(e, s, bias.dims[2]));
    let row = r.keys;
    let plane = e.extent_mul(bias.dims[2], row);
    let head = e.extent_mul(bias.dims[1], plane);
    e.affine_over(&[(bb, head), (hb, plane), (sb, row)], 0)
}

/// The bias of a block's keys from the row at `bias_at`, -inf past T.
fn block_bias(e: &mut Cursor, r: &Rows, bias_at: ValueId, at: &KeyBlock) -> ValueId {
    let left = e.value_op("arith.subi", &[at.keys, at.first], Type::Index);
    let mask = e.value_op("vector.create_mask", &[left], vector(KEYS, Type::i1()));
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let neg_infs = splat(e, neg_inf, KEYS);
    let from = e.affine(&[(bias_at, 1), (at.first, 1)], 0);
    let buf = r.bias.as_ref().expect("a bias").buf;
    e.value_op("vector.maskedload", &[buf, from, mask, neg_infs], vector(KEYS, Type::f32()))
}

/// Whether every one of the blocks' biases is -inf at every key.
fn all_masked(e: &mut Cursor, biases: &[ValueId]) -> ValueId {
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let neg_infs = splat(e, neg_inf, KEYS);
    let kind = Attribute::Opaque("#vector.kind<and>".into());
    let mut all = None;
    for &bias in biases {
        let masked = e.cmpf("oeq", bias, neg_infs);
        let masked = e.value_attr("vector.reduction", &[masked], Type::i1(), vec![("kind", kind.clone())]);
        all = Some(match all {
            None => masked,
            Some(a) => e.value_op("arith.andi", &[a, masked], Type::i1()),
        });
    }
    all.expect("a bias row")
}

/// One block of keys for every head of the pass: `st` holds each head's running maximum,
/// weights' sum and output vectors. Each key row is loaded once and dotted with every head's
/// query; each value row likewise added to every head's output.
fn block(
    e: &mut Cursor,
    r: &Rows,
    q: &[Vec<ValueId>],
    at: &KeyBlock,
    masking: &Masking,
    st: &[ValueId],
) -> Vec<ValueId> {
    let d = q[0].len();
    let dv = st.len() / q.len() - 2;
    let clamped: Vec<ValueId> = (0..KEYS)
        .map(|j| {
            let t = e.affine(&[(at.first, 1)], j as i64);
            e.value_op("arith.minui", &[t, at.last], Type::Index)
        })
        .collect();
    // Each head's dot products with the block's keys, one vector of partial sums per key.
    let mut partials: Vec<Vec<ValueId>> = vec![Vec::with_capacity(KEYS); q.len()];
    for &t in &clamped {
        let key = e.affine_over(&[(at.k_at, Extent::Fixed(1)), (t, Extent::Fixed(d * LANES))], 0);
        let k = vectors(e, r.k, key, d);
        for (qh, part) in q.iter().zip(&mut partials) {
            let mut dot = e.value_op("arith.mulf", &[qh[0], k[0]], vector(LANES, Type::f32()));
            for (&qi, &ki) in qh.iter().zip(&k).skip(1) {
                dot = e.fmuladd(qi, ki, dot);
            }
            part.push(dot);
        }
    }
    let mut next = Vec::with_capacity(st.len());
    let mut weights = Vec::with_capacity(q.len());
    for (i, part) in partials.into_iter().enumerate() {
        let scores = sums_per_vector(e, part);
        let scores = match masking {
            Masking::Inside(inside) => {
                let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
                let neg_infs = splat(e, neg_inf, KEYS);
                e.value_op("arith.select", &[*inside, scores, neg_infs], vector(KEYS, Type::f32()))
            }
            Masking::Bias(biases) => {
                let bias = biases[i.min(biases.len() - 1)];
                e.value_op("arith.addf", &[scores, bias], vector(KEYS, Type::f32()))
            }
        };
        let head_st = &st[i * (dv + 2)..(i + 1) * (dv + 2)];
        let (w, updated) = online_softmax(e, scores, head_st);
        weights.push(w);
        next.extend(updated);
    }
    // Each key's value row, times each head's weight for the key, into that head's outputs.
    for (j, &t) in clamped.iter().enumerate() {
        let value = e.affine_over(&[(at.v_at, Extent::Fixed(1)), (t, Extent::Fixed(dv * LANES))], 0);
        let v = vectors(e, r.v, value, dv);
        for (i, &w) in weights.iter().enumerate() {
            let position = Attribute::DenseArray { elem: Type::i64(), values: vec![j as i128] };
            let w = e.value_attr("vector.extract", &[w], Type::f32(), vec![("static_position", position)]);
            let w = splat(e, w, LANES);
            for (a, &vi) in next[i * (dv + 2) + 2..(i + 1) * (dv + 2)].iter_mut().zip(&v) {
                *a = e.fmuladd(w, vi, *a);
            }
        }
    }
    next
}

/// The block's `scores` into a head's running softmax `st` (maximum, sum, output vectors):
/// the block's weights `exp(score - max)`, and the state with the maximum raised to the block's,
/// the sum and the outputs rescaled by `exp(old max - new max)` and the block's weights summed.
fn online_softmax(e: &mut Cursor, scores: ValueId, st: &[ValueId]) -> (ValueId, Vec<ValueId>) {
    let f32v = vector(KEYS, Type::f32());
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let (max, sum) = (st[0], st[1]);
    let block_max = reduce(e, "maxnumf", scores);
    let new_max = e.value_op("arith.maximumf", &[max, block_max], Type::f32());
    // Measured from 0 while every key so far is masked (-inf - -inf is NaN).
    let none = e.cmpf("oeq", new_max, neg_inf);
    let zero = e.const_float(0.0, Type::f32());
    let base = e.value_op("arith.select", &[none, zero, new_max], Type::f32());
    let old = e.value_op("arith.subf", &[max, base], Type::f32());
    let rescale = e.value_op("math.exp", &[old], Type::f32());
    let bases = splat(e, base, KEYS);
    let shifted = e.value_op("arith.subf", &[scores, bases], f32v.clone());
    let weights = e.value_op("math.exp", &[shifted], f32v);
    let block_sum = reduce(e, "add", weights);
    let sum = e.fmuladd(sum, rescale, block_sum);
    let rescales = splat(e, rescale, LANES);
    let acc = st[2..].iter().map(|&a| e.value_op("arith.mulf", &[a, rescales], vector(LANES, Type::f32())));
    (weights, [new_max, sum].into_iter().chain(acc).collect())
}

/// One vector of [`KEYS`] lanes whose lane `j` is the sum of `parts[j]`'s lanes: pairs of
/// vectors halved and added level by level (a transposition folded into the sums), 7 adds for
/// the 8 sums where one reduction per vector would take 24 operations and the inserts.
fn sums_per_vector(e: &mut Cursor, mut parts: Vec<ValueId>) -> ValueId {
    let t = vector(LANES, Type::f32());
    let mut width = 1;
    while parts.len() > 1 {
        // Lane `l` of a block of `2 * width` takes the first vector's lanes of the block, then
        // the second's; the second mask the lanes `width` further on.
        let mask = |offset: usize| {
            let values = (0..LANES)
                .map(|l| {
                    let (block, pos) = (l / (2 * width) * 2 * width, l % (2 * width));
                    let lane = if pos < width { block + pos } else { LANES + block + pos - width };
                    (lane + offset) as i128
                })
                .collect();
            Attribute::DenseArray { elem: Type::i64(), values }
        };
        parts = parts
            .chunks(2)
            .map(|pair| {
                let low = e.value_attr("vector.shuffle", &[pair[0], pair[1]], t.clone(), vec![("mask", mask(0))]);
                let high = e.value_attr("vector.shuffle", &[pair[0], pair[1]], t.clone(), vec![("mask", mask(width))]);
                e.value_op("arith.addf", &[low, high], t.clone())
            })
            .collect();
        width *= 2;
    }
    parts[0]
}
