//! `kernel.attention` to loops: one parallel loop over the query rows (batch, head, query),
//! each row's softmax computed online over blocks of [`KEYS`] keys, with no score matrix in
//! memory and the grouped heads read where they are (`xcc_ir::dialects::kernel_attention`).
//!
//! Per block: the block's scores (the row's Q, scaled once, dotted with each key in vectors of
//! [`LANES`]; the bias added; keys past T at -inf, their loads clamped to the last key), the
//! running maximum raised to the block's, the sums and the output accumulators rescaled by
//! `exp(old max - new max)` (one exp per block), the weights `exp(score - max)` as one vector,
//! and each key's value row added times its weight. A row ends divided by its weights' sum, or
//! zeros where every key was masked (the sum is 0). A block whose every key the bias masks (-inf)
//! is skipped: a causal prompt's rows read only the keys up to their own. A decode step's row
//! reads each key and value once; the rows of a head group read the same keys from cache.

use super::qgemm::vector;
use super::Cursor;
use crate::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel_attention::{scale, AttentionShape};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, Type, ValueId};

/// The keys whose scores are taken together (one vector of weights).
const KEYS: usize = 8;

/// The lanes of the head-size vectors.
const LANES: usize = 8;

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
    let operands = m.ops[op].operands.clone();
    let mut c = Cursor::new(m, span);
    let q_dims = c.extents(operands[0]);
    let keys = c.extent_of(operands[1], 2);
    let flat: Vec<ValueId> = operands.iter().map(|&v| c.flat(v)).collect();
    let bias = sh.has_bias.then(|| Bias { buf: flat[3], dims: [0, 1, 2].map(|k| c.extent_of(operands[3], k)) });
    let rows = Rows {
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
    c.parallel_over(&[q_dims[0], q_dims[1], q_dims[2]], &mut |e, ivs| row(e, &rows, (ivs[0], ivs[1], ivs[2])));
    c.finish(op);
    Ok(())
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

/// The output row `(b, h, s)`.
fn row(e: &mut Cursor, r: &Rows, (b, h, s): (ValueId, ValueId, ValueId)) {
    let (d, dv) = ((r.sh.head as usize) / LANES, (r.sh.v_head as usize) / LANES);
    let q_at = row_start(e, (b, h, s), (r.sh.q_heads, r.queries, r.sh.head));
    let factor = e.const_float(r.scale, Type::f32());
    let factor = splat(e, factor, LANES);
    let q: Vec<ValueId> = vectors(e, r.q, q_at, d)
        .into_iter()
        .map(|x| e.value_op("arith.mulf", &[x, factor], vector(LANES, Type::f32())))
        .collect();
    let group = e.idx((r.sh.q_heads / r.sh.kv_heads) as i64);
    let kv_head = e.value_op("arith.divui", &[h, group], Type::Index);
    let zero = e.idx(0);
    let k_at = row_start(e, (b, kv_head, zero), (r.sh.kv_heads, r.keys, r.sh.head));
    let v_at = row_start(e, (b, kv_head, zero), (r.sh.kv_heads, r.keys, r.sh.v_head));
    let bias_at = r.bias.as_ref().map(|bias| bias_row(e, bias, (b, h, s), r));
    let keys = e.extent(r.keys);
    let last = {
        let one = e.idx(1);
        e.value_op("arith.subi", &[keys, one], Type::Index)
    };
    let blocks = {
        let rounded = e.affine(&[(keys, 1)], KEYS as i64 - 1);
        let per = e.idx(KEYS as i64);
        e.value_op("arith.divui", &[rounded, per], Type::Index)
    };
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let zero_f = e.const_float(0.0, Type::f32());
    let zeros = splat(e, zero_f, LANES);
    let inits: Vec<ValueId> = [vec![neg_inf, zero_f], vec![zeros; dv]].concat();
    let types: Vec<Type> = inits.iter().map(|&v| e.ty(v).clone()).collect();
    let state = e.for_accs_between(zero, blocks, &inits, |e, blk, st| {
        let first = e.affine(&[(blk, KEYS as i64)], 0);
        let at = KeyBlock { first, keys, last, k_at, v_at, bias_at };
        match bias_at {
            None => block(e, r, &q, &at, st),
            // A block whose every key the bias masks adds nothing: a causal prompt's row skips
            // the keys after it, half of its keys over the prompt.
            Some(bias_at) => {
                let masked = all_masked(e, r, bias_at, &at);
                e.if_else(masked, types.clone(), |_| st.to_vec(), |e| block(e, r, &q, &at, st))
            }
        }
    });
    // The row divided by its weights' sum; zeros where every key was masked.
    let sum = state[1];
    let positive = e.cmpf("ogt", sum, zero_f);
    let one_f = e.const_float(1.0, Type::f32());
    let inverse = e.value_op("arith.divf", &[one_f, sum], Type::f32());
    let inverse = e.value_op("arith.select", &[positive, inverse, zero_f], Type::f32());
    let inverse = splat(e, inverse, LANES);
    let out_at = row_start(e, (b, h, s), (r.sh.q_heads, r.queries, r.sh.v_head));
    for (i, &acc) in state[2..].iter().enumerate() {
        let y = e.value_op("arith.mulf", &[acc, inverse], vector(LANES, Type::f32()));
        let at = e.affine(&[(out_at, 1)], (i * LANES) as i64);
        e.op(xcc_ir::OpSpec::new("vector.store", xcc_ir::Span::UNKNOWN).operands([y, r.out, at]));
    }
}

/// Where a block's keys are: its first key, the key count and the last key, the row's keys,
/// values and bias.
struct KeyBlock {
    first: ValueId,
    keys: ValueId,
    last: ValueId,
    k_at: ValueId,
    v_at: ValueId,
    bias_at: Option<ValueId>,
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

/// Whether the bias is -inf at every key of the block (its keys past T count as masked).
fn all_masked(e: &mut Cursor, r: &Rows, bias_at: ValueId, at: &KeyBlock) -> ValueId {
    let left = e.value_op("arith.subi", &[at.keys, at.first], Type::Index);
    let mask = e.value_op("vector.create_mask", &[left], vector(KEYS, Type::i1()));
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let neg_infs = splat(e, neg_inf, KEYS);
    let from = e.affine(&[(bias_at, 1), (at.first, 1)], 0);
    let buf = r.bias.as_ref().expect("a bias").buf;
    let bias = e.value_op("vector.maskedload", &[buf, from, mask, neg_infs], vector(KEYS, Type::f32()));
    let masked = e.cmpf("oeq", bias, neg_infs);
    let kind = Attribute::Opaque("#vector.kind<and>".into());
    e.value_attr("vector.reduction", &[masked], Type::i1(), vec![("kind", kind)])
}

/// One block of keys: `st` is the running maximum, the weights' sum and the output's vectors.
fn block(e: &mut Cursor, r: &Rows, q: &[ValueId], at: &KeyBlock, st: &[ValueId]) -> Vec<ValueId> {
    let (d, dv) = (q.len(), st.len() - 2);
    let f32v = vector(KEYS, Type::f32());
    let neg_inf = e.const_float(f64::NEG_INFINITY, Type::f32());
    let mut scores = splat(e, neg_inf, KEYS);
    let mut clamped = Vec::with_capacity(KEYS);
    for j in 0..KEYS {
        let t = e.affine(&[(at.first, 1)], j as i64);
        let inside = e.cmpi("ult", t, at.keys);
        let t = e.value_op("arith.minui", &[t, at.last], Type::Index);
        clamped.push(t);
        let key = e.affine_over(&[(at.k_at, Extent::Fixed(1)), (t, Extent::Fixed(d * LANES))], 0);
        let k = vectors(e, r.k, key, d);
        let mut dot = e.splat_const(0.0, vector(LANES, Type::f32()));
        for (&qi, &ki) in q.iter().zip(&k) {
            dot = e.fmuladd(qi, ki, dot);
        }
        let mut score = reduce(e, "add", dot);
        if let Some(bias_at) = at.bias_at {
            let i = e.affine(&[(bias_at, 1), (t, 1)], 0);
            let bias = e.load(r.bias.as_ref().expect("a bias").buf, &[i]);
            score = e.value_op("arith.addf", &[score, bias], Type::f32());
        }
        let score = e.value_op("arith.select", &[inside, score, neg_inf], Type::f32());
        let position = Attribute::DenseArray { elem: Type::i64(), values: vec![j as i128] };
        scores = e.value_attr("vector.insert", &[score, scores], f32v.clone(), vec![("static_position", position)]);
    }
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
    let mut acc: Vec<ValueId> =
        st[2..].iter().map(|&a| e.value_op("arith.mulf", &[a, rescales], vector(LANES, Type::f32()))).collect();
    for (j, &t) in clamped.iter().enumerate() {
        let position = Attribute::DenseArray { elem: Type::i64(), values: vec![j as i128] };
        let w = e.value_attr("vector.extract", &[weights], Type::f32(), vec![("static_position", position)]);
        let w = splat(e, w, LANES);
        let value = e.affine_over(&[(at.v_at, Extent::Fixed(1)), (t, Extent::Fixed(dv * LANES))], 0);
        let v = vectors(e, r.v, value, dv);
        for (a, &vi) in acc.iter_mut().zip(&v) {
            *a = e.fmuladd(w, vi, *a);
        }
    }
    [vec![new_max, sum], acc].concat()
}
