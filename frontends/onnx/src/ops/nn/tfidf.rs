//! TfIdfVectorizer, expanded ([`crate::ops::expansion`]): for each row of integer tokens, how
//! often each n-gram of the pool occurs, its items `d` apart for every distance `d` from 1 to
//! `max_skip_count + 1` (a unigram is counted once, not once per distance), scattered to the
//! output columns `ngram_indexes`, then weighted by `mode` (TF: the counts; IDF: `weights[i]`,
//! or 1, where the count is nonzero; TFIDF: `weights[i] * count`). The pool's n-grams of one
//! length are matched together: each of their items compared with the row's tokens at once
//! (`[rows, windows, n-grams]`), the comparisons of one n-gram and-ed, the windows summed.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct TfIdfVectorizer;

/// The pool's n-grams of one length, in pool order, with their ids (the order of all pool
/// n-grams, which `ngram_indexes` maps to output columns).
struct Grams {
    len: usize,
    items: Vec<Vec<i64>>,
    ids: Vec<usize>,
}

impl Expanded for TfIdfVectorizer {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if !matches!(t.dtype, DType::I32 | DType::I64) {
            return err(format!(
                "TfIdfVectorizer takes int32 or int64 tokens, not {} (strings are not supported)",
                t.dtype.name()
            ));
        }
        if t.shape.len() > 2 {
            return err(format!("TfIdfVectorizer takes a vector or a matrix of tokens, not {}", t.describe()));
        }
        let (groups, total) = pool(node)?;
        let indexes = node.ints("ngram_indexes").unwrap_or_default();
        if indexes.len() != total || indexes.iter().any(|&i| i < 0) {
            return err(format!(
                "ngram_indexes must hold one output column for each of the {total} n-grams, not {indexes:?}"
            ));
        }
        let width = indexes.iter().max().map_or(0, |&m| m as usize + 1);
        let what = format!("ngram_indexes reach column {}: a {total}x{width} scatter matrix", width.saturating_sub(1));
        g.constant_fits(total.checked_mul(width), DType::F32, &what)?;
        let row_len = t.shape.last().copied().unwrap_or(1);
        let rows = x.reshape(&node.inputs[0], &[-1, row_len as i64]);
        let max_distance = node.int("max_skip_count", 0).max(0) as usize + 1;
        let mut counts = Vec::new();
        for grams in &groups {
            counts.push(count(x, &rows, row_len, grams, max_distance, t.dtype));
        }
        // [rows, n-grams in id order] x [n-grams, columns] scatters (and sums) them to columns.
        let ids: Vec<usize> = groups.iter().flat_map(|gr| gr.ids.iter().copied()).collect();
        let mut scatter = vec![0.0; ids.len() * width];
        for (k, &id) in ids.iter().enumerate() {
            scatter[k * width + indexes[id] as usize] = 1.0;
        }
        let y = if ids.is_empty() {
            zero_columns(x, &rows, t.dtype, width)
        } else {
            let refs: Vec<&str> = counts.iter().map(String::as_str).collect();
            let all =
                if refs.len() == 1 { refs[0].to_string() } else { x.op("Concat", &refs, &[("axis", Attr::Int(1))]) };
            let scatter = x.constant(Tensor::from_f64(DType::F32, vec![ids.len(), width], &scatter));
            x.op("MatMul", &[&all, &scatter], &[])
        };
        let y = weighted(node, x, &y, width)?;
        let y = if t.shape.len() == 2 { y } else { x.reshape(&y, &[width as i64]) };
        x.output(&y, Some(&node.outputs[0]));
        Ok(())
    }
}

/// The pool's n-grams grouped by length (those from `min_gram_length` to `max_gram_length`),
/// and the number of n-grams in the pool.
fn pool(node: &Node) -> OResult<(Vec<Grams>, usize)> {
    if node.attrs.contains_key("pool_strings") {
        return err("TfIdfVectorizer over strings (pool_strings) is not supported");
    }
    let pool = node.ints("pool_int64s").unwrap_or_default();
    let starts = node.ints("ngram_counts").unwrap_or_default();
    let (min, max) = (node.int("min_gram_length", 1), node.int("max_gram_length", 1));
    if min < 1 || max < min {
        return err(format!("min_gram_length {min} and max_gram_length {max} must satisfy 1 <= min <= max"));
    }
    let (mut groups, mut next_id) = (Vec::new(), 0usize);
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(pool.len() as i64);
        if start < 0 || end < start || end as usize > pool.len() {
            return err(format!("ngram_counts {starts:?} does not split a pool of {} items", pool.len()));
        }
        let len = k + 1;
        let items = &pool[start as usize..end as usize];
        if !items.len().is_multiple_of(len) {
            return err(format!("the pool's {len}-grams take {} items, not a multiple of {len}", items.len()));
        }
        let n = items.len() / len;
        if (min as usize..=max as usize).contains(&len) && n > 0 {
            let items: Vec<Vec<i64>> = items.chunks(len).map(<[i64]>::to_vec).collect();
            groups.push(Grams { len, items, ids: (next_id..next_id + n).collect() });
        }
        next_id += n;
    }
    Ok((groups, next_id))
}

/// `[rows, n]`: how often each n-gram of `grams` occurs in each row, over every distance
/// (distance 1 only for unigrams).
fn count(x: &mut Expansion, rows: &str, row_len: usize, grams: &Grams, max_distance: usize, dtype: DType) -> String {
    let n = grams.len;
    let distances = if n == 1 { 1 } else { max_distance };
    let mut total: Option<String> = None;
    for d in 1..=distances {
        let span = (n - 1) * d;
        if span >= row_len {
            break;
        }
        let windows = row_len - span;
        let mut matched: Option<String> = None;
        for k in 0..n {
            let (s, e, axis) = (x.ints(&[(k * d) as i64]), x.ints(&[(k * d + windows) as i64]), x.ints(&[1]));
            let tokens = x.op("Slice", &[rows, &s, &e, &axis], &[]);
            let tokens = x.unsqueeze(&tokens, &[2]);
            let item: Vec<f64> = grams.items.iter().map(|gram| gram[k] as f64).collect();
            let item = x.constant(Tensor::from_f64(dtype, vec![1, 1, item.len()], &item));
            let equal = x.op("Equal", &[&tokens, &item], &[]);
            matched = Some(match matched {
                None => equal,
                Some(m) => x.op("And", &[&m, &equal], &[]),
            });
        }
        let hits = x.cast(&matched.expect("n >= 1"), DType::Bool, DType::F32);
        let axis = x.ints(&[1]);
        let found = x.op("ReduceSum", &[&hits, &axis], &[("keepdims", Attr::Int(0))]);
        total = Some(match total {
            None => found,
            Some(t) => x.op("Add", &[&t, &found], &[]),
        });
    }
    // Rows too short for any n-gram of this length count none.
    total.unwrap_or_else(|| zero_columns(x, rows, dtype, grams.items.len()))
}

/// `[rows, n]` zeros (f32), one row per row of tokens.
fn zero_columns(x: &mut Expansion, rows: &str, dtype: DType, n: usize) -> String {
    let (start, end, axis) = (x.ints(&[0]), x.ints(&[1]), x.ints(&[1]));
    let first = x.op("Slice", &[rows, &start, &end, &axis], &[]);
    let first = x.cast(&first, dtype, DType::F32);
    let none = x.scalar(0.0, DType::F32);
    let zeros = x.op("Mul", &[&first, &none], &[]);
    let wide = x.constant(Tensor::from_f64(DType::F32, vec![1, n], &vec![0.0; n]));
    x.op("Add", &[&zeros, &wide], &[])
}

/// The counts `y` (`[rows, width]`) weighted by the node's mode.
fn weighted(node: &Node, x: &mut Expansion, y: &str, width: usize) -> OResult<String> {
    let weights: Vec<f64> = match node.attrs.get("weights") {
        Some(Attr::Floats(w)) => w.iter().map(|&v| v as f64).collect(),
        _ => Vec::new(),
    };
    if !weights.is_empty() && weights.len() != width {
        return err(format!("weights has {} values for {width} output columns", weights.len()));
    }
    let mode = node.string("mode").unwrap_or("");
    let w = |x: &mut Expansion| x.constant(Tensor::from_f64(DType::F32, vec![1, width], &weights));
    Ok(match (mode, weights.is_empty()) {
        ("TF", _) | ("TFIDF", true) => y.to_string(),
        ("TFIDF", false) => {
            let w = w(x);
            x.op("Mul", &[y, &w], &[])
        }
        ("IDF", empty) => {
            let zero = x.scalar(0.0, DType::F32);
            let present = x.op("Greater", &[y, &zero], &[]);
            let present = x.cast(&present, DType::Bool, DType::F32);
            if empty {
                present
            } else {
                let w = w(x);
                x.op("Mul", &[&present, &w], &[])
            }
        }
        (m, _) => return err(format!("TfIdfVectorizer's mode must be TF, IDF or TFIDF, not '{m}'")),
    })
}
