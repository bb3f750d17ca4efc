//! The model's entry points as IR: `NAME_run` and its variants check what the caller gives
//! (pointers, dims and their ranges, byte counts, buffers that must or may be one), bring the
//! run's options and the string arena in and out, and call `NAME_compute`, which the nodes are
//! lowered into; `NAME_workspace_size` and the dims' queries answer from the same checks. The C
//! declarations of these functions are the header's (`xcc_abi`), written from the same
//! [`xcc_abi::ModelInterface`].

use super::*;

/// The outputs written by a CacheWrite of a graph input, with that input (`(output, input)`
/// indices): one buffer may serve as both.
pub(super) fn shared_buffers(
    g: &Graph,
    inputs: &[(String, TensorType)],
    outputs: &[(String, TensorType)],
) -> Vec<(usize, usize)> {
    let caches = g.nodes.iter().filter(|n| n.domain == crate::ops::XCC_DOMAIN && n.op == "CacheWrite");
    caches
        .filter_map(|n| {
            let o = outputs.iter().position(|(name, _)| *name == n.outputs[0])?;
            let i = inputs.iter().position(|(name, _)| *name == n.inputs[0])?;
            Some((o, i))
        })
        .collect()
}

/// The outputs a Concat writes from a graph input (a plain export's KV cache: `present =
/// Concat(past, new)`), with that input (`(output, input)` indices): given one buffer, the
/// Concat would read the past where it writes the present, so a run refuses it.
pub(super) fn concatenated_caches(
    g: &Graph,
    inputs: &[(String, TensorType)],
    outputs: &[(String, TensorType)],
) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    for n in g.nodes.iter().filter(|n| n.op == "Concat" && n.domain.is_empty()) {
        let Some(o) = outputs.iter().position(|(name, _)| *name == n.outputs[0]) else { continue };
        for x in &n.inputs {
            if let Some(i) = inputs.iter().position(|(name, _)| name == x) {
                pairs.push((o, i));
            }
        }
    }
    pairs
}

/// The run functions' parameters: one `i64` per dim symbol, then the tensor pointers, an
/// array for each output whose dims the run finds, and the workspace. `NAME_compute` takes the
/// data dims after the symbols.
#[derive(Clone, Copy)]
pub(super) struct Signature {
    pub(super) symbols: usize,
    pub(super) data: usize,
    pub(super) inputs: usize,
    pub(super) outputs: usize,
    pub(super) found: usize,
}

impl Signature {
    /// The tensors, the found dims' arrays and the workspace.
    fn pointers(self) -> usize {
        self.inputs + self.outputs + self.found + 1
    }

    pub(super) fn len(self) -> usize {
        self.symbols + self.pointers()
    }

    pub(super) fn compute_len(self) -> usize {
        self.len() + self.data
    }

    /// The parameter types, with `extra_pointers` more (run options) or fewer (no workspace).
    pub(super) fn types(self, extra_pointers: isize) -> Vec<Type> {
        let pointers = (self.pointers() as isize + extra_pointers) as usize;
        std::iter::repeat_n(Type::i64(), self.symbols).chain(std::iter::repeat_n(Type::ptr(), pointers)).collect()
    }

    pub(super) fn compute_types(self) -> Vec<Type> {
        let dims = self.symbols + self.data;
        std::iter::repeat_n(Type::i64(), dims).chain(std::iter::repeat_n(Type::ptr(), self.pointers())).collect()
    }
}

/// What a run checks of its dims: each symbol at least 0 (or within its range), and the bytes
/// of every tensor whose size depends on them (each distinct size once) at most
/// [`MAX_TENSOR_BYTES`].
pub(super) struct DimChecks {
    pub(super) symbols: Vec<String>,
    /// `(min, max)` per symbol: its range, or from 0 without a maximum of the user's (the run
    /// still refuses more than [`MAX_DIM`]).
    pub(super) ranges: Vec<(usize, Option<usize>)>,
    byte_counts: Vec<Dim>,
    /// The byte counts that read a data dim, checked once the data dims are known.
    data_byte_counts: Vec<Dim>,
}

/// The largest tensor a run accepts (16 TiB): far above any memory, far below where 64-bit
/// sizes overflow.
pub const MAX_TENSOR_BYTES: f64 = (1u64 << 44) as f64;

impl DimChecks {
    pub(super) fn of(g: &Graph, data: &DataDims) -> DimChecks {
        let mut counts: Vec<Dim> = g
            .types
            .values()
            .filter(|t| t.is_dynamic())
            .map(|t| Dim::product(&capacity_dims(data, t)).mul(&Dim::fixed(t.dtype.size())))
            .collect();
        counts.sort();
        counts.dedup();
        let reads_data = |d: &Dim| d.symbols().iter().any(|s| data.dims.iter().any(|(n, _)| n == s));
        let (data_byte_counts, byte_counts) = counts.into_iter().partition(reads_data);
        let ranges = g.symbols.iter().map(|s| g.bounds.get(s).map_or((0, None), |&(lo, hi)| (lo, Some(hi)))).collect();
        DimChecks { symbols: g.symbols.clone(), ranges, byte_counts, data_byte_counts }
    }

    /// True (an i1) when the dims given in `args` (one i64 per symbol) break a rule.
    fn broken(&self, e: &mut Emitter, args: &[ValueId]) -> ValueId {
        let values: Vec<(&str, ValueId)> = self.symbols.iter().map(String::as_str).zip(args.iter().copied()).collect();
        let outside = outside_ranges(e, args, &self.ranges);
        let big = too_large(e, &self.byte_counts, &values);
        e.value_op("arith.ori", &[outside, big], Type::i1())
    }

    /// The largest value of every symbol, when each has a range.
    pub(super) fn maxima(&self) -> Option<Vec<usize>> {
        self.ranges.iter().map(|&(_, hi)| hi).collect()
    }
}

/// True (an i1) when one of `values` (i64) is outside its `(min, max)`.
fn outside_ranges(e: &mut Emitter, values: &[ValueId], ranges: &[(usize, Option<usize>)]) -> ValueId {
    let mut bad = e.const_int(0, Type::i1());
    for (&a, &(lo, hi)) in values.iter().zip(ranges) {
        let lo = e.const_int(lo as i128, Type::i64());
        let small = e.cmpi("slt", a, lo);
        bad = e.value_op("arith.ori", &[bad, small], Type::i1());
        let hi = e.const_int(hi.unwrap_or(MAX_DIM) as i128, Type::i64());
        let big = e.cmpi("sgt", a, hi);
        bad = e.value_op("arith.ori", &[bad, big], Type::i1());
    }
    bad
}

/// True (an i1) when one of `byte_counts`, at the symbols' `values` (i64), is over
/// [`MAX_TENSOR_BYTES`]. Evaluated in f64, which cannot overflow and is exact far past the limit.
fn too_large(e: &mut Emitter, byte_counts: &[Dim], values: &[(&str, ValueId)]) -> ValueId {
    let mut bad = e.const_int(0, Type::i1());
    let mut as_float = HashMap::new();
    for &(s, a) in values {
        as_float.insert(s, e.value_op("arith.sitofp", &[a], f64_type()));
    }
    let limit = e.const_float(MAX_TENSOR_BYTES, f64_type());
    for bytes in byte_counts {
        let mut total = e.const_float(0.0, f64_type());
        for (c, syms) in bytes.terms() {
            let mut term = e.const_float(c as f64, f64_type());
            for s in syms {
                term = e.value_op("arith.mulf", &[term, as_float[s.as_str()]], f64_type());
            }
            total = e.value_op("arith.addf", &[total, term], f64_type());
        }
        let big = e.cmpf("ogt", total, limit);
        bad = e.value_op("arith.ori", &[bad, big], Type::i1());
    }
    bad
}

/// Whether the workspace at the symbols' `maxima` serves every smaller run: true when no
/// tensor's dim shrinks as a symbol grows (no term with symbols has a negative coefficient, and
/// every dim the run computes from the dims [`DataExpr::grows`]; the workspace is then sums,
/// products and maxima of growing sizes), and no tensor at the maxima is over
/// [`MAX_TENSOR_BYTES`] (a run there would be refused).
pub(super) fn check_ranges(g: &Graph, data: &DataDims, maxima: &[usize]) -> OResult<()> {
    let mut at_max: HashMap<&str, f64> =
        g.symbols.iter().map(String::as_str).zip(maxima.iter().map(|&m| m as f64)).collect();
    for (name, x) in &data.dims {
        if !x.grows() {
            // Computed dims are named `tensor.k`.
            let (tensor, k) = name.rsplit_once('.').unwrap_or((name, "?"));
            return Err(OnnxError::tensor(
                tensor,
                format!(
                    "its dim {k} is computed as {x}, which may shrink as a symbol grows, so no one workspace serves \
                     every size in the ranges given; give the dims without a range"
                ),
            ));
        }
        let value = x.eval(&|s| at_max.get(s).map(|&v| v as i64));
        at_max.insert(name, value.map_or(f64::INFINITY, |v| v as f64));
    }
    let mut names: Vec<&String> = g.types.keys().collect();
    names.sort();
    for name in names {
        let t = &g.types[name];
        if !t.is_dynamic() {
            continue;
        }
        let dims = capacity_dims(data, t);
        if let Some(d) = dims.iter().find(|d| d.terms().any(|(c, syms)| c < 0 && !syms.is_empty())) {
            return Err(OnnxError::tensor(
                name,
                format!(
                    "its dim {d} shrinks as a symbol grows, so no one workspace serves every size in the ranges \
                     given; give the dims without a range"
                ),
            ));
        }
        let bytes = Dim::product(&dims).mul(&Dim::fixed(t.dtype.size()));
        let value: f64 = bytes
            .terms()
            .map(|(c, syms)| {
                syms.iter().fold(c as f64, |v, s| v * at_max.get(s.as_str()).copied().unwrap_or(f64::INFINITY))
            })
            .sum();
        if value > MAX_TENSOR_BYTES {
            return Err(OnnxError::tensor(
                name,
                format!(
                    "at the largest dims the ranges allow, the tensor is {} = {value:e} bytes, over the 2^44 bytes a \
                     run accepts; lower the ranges' maxima",
                    crate::dim::dims_text(&dims)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a tensor's dims read a dim the run finds.
pub(super) fn reads_found(data: &DataDims, t: &TensorType) -> bool {
    t.is_dynamic() && t.dims().iter().any(|d| data.reads_found(d))
}

/// A tensor's dims at their capacity (each found dim at its largest).
pub(super) fn capacity_dims(data: &DataDims, t: &TensorType) -> Vec<Dim> {
    t.dims().iter().map(|d| data.at_capacity(d).unwrap_or_else(|| d.clone())).collect()
}

/// What the prologue cannot compute: a dim computed from, or a condition on, a dim found while
/// running; and a tensor whose dims may shrink as a found dim grows (its capacity would not
/// hold it).
pub(super) fn check_found_dims(g: &Graph, data: &DataDims) -> OResult<()> {
    let found = |d: &Dim| data.reads_found(d);
    let computed =
        data.dims.iter().map(|(n, x)| (n.as_str(), x)).chain(data.checks.iter().map(|c| (c.what.as_str(), &c.holds)));
    for (what, x) in computed {
        if x.reads_dim(&found) {
            return err(format!(
                "'{what}' ({x}) reads a count an operator finds while running (NonZero's, Compress's), but xcc \
                 computes such dims before the run"
            ));
        }
    }
    let mut names: Vec<&String> = g.types.keys().collect();
    names.sort();
    for name in names {
        let t = &g.types[name];
        if let Some(d) = t.dims().iter().find(|d| data.at_capacity(d).is_none()) {
            return Err(OnnxError::tensor(
                name,
                format!("its dim {d} shrinks as a count found while running grows, so its capacity is unknown"),
            ));
        }
    }
    Ok(())
}

/// The bytes of workspace `compute` needs (known once `plan-workspace` has run), as an i64;
/// `dims` are the values of all its dims.
pub(super) fn workspace_bytes(e: &mut Emitter, compute: &str, dims: &[ValueId]) -> ValueId {
    let size = e.value_attr("kernel.workspace_size", dims, Type::Index, vec![("function", Attribute::symbol(compute))]);
    e.value_op("arith.index_cast", &[size], Type::i64())
}

/// A pointer argument as an integer, for the checks.
pub(super) fn address(e: &mut Emitter, p: ValueId) -> ValueId {
    e.value_op("llvm.ptrtoint", &[p], Type::i64())
}

/// The most pointers checked for NULL one comparison each; more are checked by a loop.
const UNROLLED_NULL_CHECKS: usize = 64;

/// Whether any of `pointers` is NULL, by a loop over their addresses stored in a stack array.
/// As one `or` of a comparison per pointer, each comparison became a fact for LLVM's constraint
/// elimination in all the code after the check, whose cost grew with their square (5 s for the
/// 1,000 pointers of 500 inputs and outputs); a loop's comparisons are not facts there.
fn any_null(e: &mut Emitter, pointers: &[ValueId]) -> ValueId {
    let t = Type::MemRef(MemRefType {
        shape: vec![Some(pointers.len() as u64)],
        elem: Box::new(Type::i64()),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    });
    let addresses = e.value_attr("memref.alloca", &[], t, vec![("operandSegmentSizes", segment_sizes(&[0, 0]))]);
    for (i, &p) in pointers.iter().enumerate() {
        let (a, at) = (address(e, p), e.idx(i as i64));
        e.store(a, addresses, &[at]);
    }
    let (zero, none) = (e.const_int(0, Type::i64()), e.const_int(0, Type::i1()));
    e.for_acc(0, pointers.len(), none, |e, i, any| {
        let a = e.load(addresses, &[i]);
        let null = e.cmpi("eq", a, zero);
        e.value_op("arith.ori", &[any, null], Type::i1())
    })
}

/// The status of the first failure among `failures` (an i1 and a code each), or `XCC_OK`.
fn first_failure(e: &mut Emitter, failures: &[(ValueId, i32)]) -> ValueId {
    // Consecutive failures of one code (every pointer's NULL check) are one condition, their `or`
    // as a balanced tree: a chain of one select per check made LLVM's InstCombine quadratic (4 s
    // for the 500 pointers of 250 inputs and outputs).
    let mut runs: Vec<(Vec<ValueId>, i32)> = Vec::new();
    for &(bad, code) in failures {
        match runs.last_mut() {
            Some((conditions, last)) if *last == code => conditions.push(bad),
            _ => runs.push((vec![bad], code)),
        }
    }
    let mut rc = e.const_int(status::OK as i128, Type::i32());
    for (conditions, code) in runs.into_iter().rev() {
        let bad = any_of(e, &conditions);
        let code = e.const_int(code as i128, Type::i32());
        rc = e.value_op("arith.select", &[bad, code, rc], Type::i32());
    }
    rc
}

/// The `or` of i1 conditions, as a balanced tree.
fn any_of(e: &mut Emitter, conditions: &[ValueId]) -> ValueId {
    match conditions {
        [one] => *one,
        _ => {
            let (left, right) = conditions.split_at(conditions.len() / 2);
            let (a, b) = (any_of(e, left), any_of(e, right));
            e.value_op("arith.ori", &[a, b], Type::i1())
        }
    }
}

/// `rc == XCC_OK ? then() : rc`, one i32.
fn if_ok(e: &mut Emitter, rc: ValueId, then: impl FnOnce(&mut Emitter) -> ValueId) -> ValueId {
    let ok = e.const_int(status::OK as i128, Type::i32());
    let fine = e.cmpi("eq", rc, ok);
    e.if_else(fine, vec![Type::i32()], |e| vec![then(e)], |_| vec![rc])[0]
}

/// `func.call @callee(args) -> result`.
pub(super) fn call(e: &mut Emitter, callee: &str, args: &[ValueId], result: Type) -> ValueId {
    e.value_attr("func.call", args, result, vec![("callee", Attribute::symbol(callee))])
}

/// The exported functions around `NAME_compute`.
pub(super) struct Entries {
    pub(super) name: String,
    pub(super) compute: String,
    pub(super) sig: Signature,
    pub(super) checks: DimChecks,
    pub(super) data: DataDims,
    pub(super) inputs: Vec<(String, TensorType)>,
    pub(super) outputs: Vec<(String, TensorType)>,
    /// Whether the model has STRING tensors: the run then brackets `compute` with a string arena
    /// and gives its STRING outputs' strings to the caller.
    pub(super) strings: bool,
    /// Per input, whether it is optional (a NULL pointer is no tensor, not an error).
    pub(super) optional: Vec<bool>,
    /// The (output, input) pairs a caller may give as one buffer ([`shared_buffers`]).
    pub(super) shared: Vec<(usize, usize)>,
    /// The (output, input) pairs a caller must not give as one buffer ([`concatenated_caches`]).
    pub(super) apart: Vec<(usize, usize)>,
}

impl Entries {
    /// A new exported function `NAME_suffix`; returns its arguments, the builder inside.
    fn begin(&self, e: &mut Emitter, suffix: &str, params: Vec<Type>, result: Type) -> Vec<ValueId> {
        let (_, b) = function(&mut e.m, &format!("{}_{suffix}", self.name), params, vec![result]);
        e.set_block(b);
        e.m.blocks[b].args.clone()
    }

    /// Whether the size functions read the inputs (some data dim or check reads their
    /// elements).
    pub(super) fn reads_inputs(&self) -> bool {
        self.data.reads_inputs()
    }

    /// Whether the run computes dims that are not expressions of the symbols (from the inputs'
    /// elements, or from the dims by a floor division or a minimum): `NAME_output_dims` then
    /// reports the outputs' dims.
    pub(super) fn computes_dims(&self) -> bool {
        !self.data.is_empty()
    }

    /// The names of `NAME_compute`'s dims: the model's symbols, then the data dims.
    fn dim_names(&self) -> impl Iterator<Item = &String> {
        self.checks.symbols.iter().chain(self.data.dims.iter().map(|(n, _)| n))
    }

    /// The checks every entry makes before it reads a tensor: the dims (`XCC_ERROR_BAD_DIM`),
    /// then NULL `tensors` (`XCC_ERROR_NULL_TENSOR`); then, reading the inputs, the data dims
    /// and the shape inputs' conditions (`XCC_ERROR_BAD_SHAPE_INPUT`) and the sizes they make
    /// (`XCC_ERROR_BAD_DIM`). Returns the status and, when it is `XCC_OK`, every dim of
    /// `NAME_compute` (i64 each; zeros otherwise).
    pub(super) fn prologue(
        &self,
        e: &mut Emitter,
        dims: &[ValueId],
        inputs: &[ValueId],
        tensors: &[ValueId],
    ) -> (ValueId, Vec<ValueId>) {
        let rc = self.arguments_status(e, dims, inputs, tensors);
        if self.data.is_empty() {
            return (rc, dims.to_vec());
        }
        let ok = e.const_int(status::OK as i128, Type::i32());
        let fine = e.cmpi("eq", rc, ok);
        let types: Vec<Type> = std::iter::once(Type::i32()).chain(vec![Type::i64(); self.sig.data]).collect();
        let results = e.if_else(
            fine,
            types,
            |e| self.data_dims(e, dims, inputs),
            |e| std::iter::once(rc).chain((0..self.sig.data).map(|_| e.const_int(0, Type::i64()))).collect(),
        );
        (results[0], dims.iter().copied().chain(results[1..].iter().copied()).collect())
    }

    /// The status of the arguments alone: the dims (`XCC_ERROR_BAD_DIM`), then NULL `tensors`
    /// (`XCC_ERROR_NULL_TENSOR`).
    fn arguments_status(&self, e: &mut Emitter, dims: &[ValueId], inputs: &[ValueId], tensors: &[ValueId]) -> ValueId {
        let mut failures: Vec<(ValueId, i32)> = Vec::new();
        if self.sig.symbols > 0 {
            failures.push((self.checks.broken(e, dims), status::BAD_DIM));
        }
        let zero = e.const_int(0, Type::i64());
        // An optional input may be NULL: none given.
        let optional = |p: ValueId| inputs.iter().position(|&q| q == p).is_some_and(|k| self.optional[k]);
        let required: Vec<ValueId> = tensors.iter().copied().filter(|&p| !optional(p)).collect();
        if required.len() > UNROLLED_NULL_CHECKS {
            failures.push((any_null(e, &required), status::NULL_TENSOR));
        } else {
            for p in required {
                let a = address(e, p);
                failures.push((e.cmpi("eq", a, zero), status::NULL_TENSOR));
            }
        }
        first_failure(e, &failures)
    }

    /// Binds the symbols and the inputs' buffers, then computes the data dims (i64 each).
    fn bind_data_dims(&self, e: &mut Emitter, dims: &[ValueId], inputs: &[ValueId]) -> Vec<ValueId> {
        e.symbols.clear();
        for (s, &a) in self.checks.symbols.iter().zip(dims) {
            let v = e.value_op("arith.index_cast", &[a], Type::Index);
            e.symbols.insert(s.clone(), v);
        }
        e.buffers.clear();
        for ((n, t), &p) in self.inputs.iter().zip(inputs) {
            // An input's dims are the model's symbols, known here (an image's byte count).
            let known =
                t.dims().iter().all(|d| d.terms().all(|(_, syms)| syms.iter().all(|s| e.symbols.contains_key(s))));
            if known {
                let v = e.memref_from_ptr(p, t);
                e.buffers.insert(n.clone(), v);
            }
        }
        let mut values = Vec::new();
        for (n, x) in &self.data.dims {
            let v = e.data_value(x);
            e.symbols.insert(n.clone(), v);
            values.push(e.value_op("arith.index_cast", &[v], Type::i64()));
        }
        values
    }

    /// The conditions a run checks after it computes its data dims, in the order of
    /// `NAME_failed_check`'s answer: each data dim at least 0, then the operators' conditions.
    pub(super) fn conditions(&self) -> Vec<String> {
        let dims = self.data.dims.iter().map(|(n, x)| format!("the computed dim {n} = {x} is not negative"));
        dims.chain(self.data.checks.iter().map(|c| c.what.clone())).collect()
    }

    /// `NAME_failed_check(dims... [, inputs...])`: which of [`Entries::conditions`] these
    /// arguments break first (its index), or -1: none does, or the run refuses the arguments
    /// before it computes any (a negative dim, a NULL input).
    pub(super) fn failed_check(&self, e: &mut Emitter) {
        let args = self.begin(e, "failed_check", self.size_params(), Type::i32());
        let (dims, inputs) = args.split_at(self.sig.symbols);
        let rc = self.arguments_status(e, dims, inputs, inputs);
        let ok = e.const_int(status::OK as i128, Type::i32());
        let fine = e.cmpi("eq", rc, ok);
        let index = e.if_else(
            fine,
            vec![Type::i32()],
            |e| {
                let values = self.bind_data_dims(e, dims, inputs);
                let fails = self.broken_conditions(e, &values);
                let mut index = e.const_int(-1, Type::i32());
                for (k, &f) in fails.iter().enumerate().rev() {
                    let at = e.const_int(k as i128, Type::i32());
                    index = e.value_op("arith.select", &[f, at, index], Type::i32());
                }
                vec![index]
            },
            |e| vec![e.const_int(-1, Type::i32())],
        )[0];
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([index]));
    }

    /// Whether each of [`Entries::conditions`] is broken (an i1 each), for the data dims
    /// `values`: a data dim may be 0 (an empty tensor), as with constants; never negative.
    fn broken_conditions(&self, e: &mut Emitter, values: &[ValueId]) -> Vec<ValueId> {
        let zero = e.const_int(0, Type::i64());
        let mut broken: Vec<ValueId> = values.iter().map(|&v| e.cmpi("slt", v, zero)).collect();
        for c in &self.data.checks {
            let v = e.data_value(&c.holds);
            let zero = e.idx(0);
            broken.push(e.cmpi("eq", v, zero));
        }
        broken
    }

    /// The status and the data dims (i64 each) computed from the inputs, which are there.
    pub(super) fn data_dims(&self, e: &mut Emitter, dims: &[ValueId], inputs: &[ValueId]) -> Vec<ValueId> {
        let values = self.bind_data_dims(e, dims, inputs);
        let broken = self.broken_conditions(e, &values);
        // A broken condition on input data is the input's fault, one on the dims alone the dims'
        // (a kernel larger than its input); a value the model does not support, its own.
        let mut bad_shape = e.const_int(0, Type::i1());
        let mut bad_dims = e.const_int(0, Type::i1());
        let mut unsupported = e.const_int(0, Type::i1());
        let kinds = self
            .data
            .dims
            .iter()
            .map(|(_, x)| (false, x.reads_elements()))
            .chain(self.data.checks.iter().map(|c| (c.unsupported, c.reads_elements)));
        for (&fails, (unsupported_value, reads_elements)) in broken.iter().zip(kinds) {
            let flag = match (unsupported_value, reads_elements) {
                (true, _) => &mut unsupported,
                (false, true) => &mut bad_shape,
                (false, false) => &mut bad_dims,
            };
            *flag = e.value_op("arith.ori", &[*flag, fails], Type::i1());
        }
        let all: Vec<(&str, ValueId)> =
            self.dim_names().map(String::as_str).zip(dims.iter().chain(&values).copied()).collect();
        let too_big = too_large(e, &self.checks.data_byte_counts, &all);
        let bad_size = e.value_op("arith.ori", &[bad_dims, too_big], Type::i1());
        let rc = first_failure(
            e,
            &[
                (bad_shape, status::BAD_SHAPE_INPUT),
                (unsupported, status::UNSUPPORTED_INPUT),
                (bad_size, status::BAD_DIM),
            ],
        );
        std::iter::once(rc).chain(values).collect()
    }

    /// `NAME_run(dims..., tensors..., workspace)`: the [`Entries::prologue`], then a NULL or
    /// misaligned workspace when one is needed; else runs `compute`, whose status reports
    /// index errors found on the way.
    pub(super) fn checked_run(&self, e: &mut Emitter) {
        let args = self.begin(e, "run", self.sig.types(0), Type::i32());
        let (dims, pointers) = args.split_at(self.sig.symbols);
        let (ws, tensors) = pointers.split_last().expect("the workspace argument");
        let (rc, all_dims) = self.prologue(e, dims, &tensors[..self.sig.inputs], tensors);
        let rc = if self.shared.is_empty() { rc } else { if_ok(e, rc, |e| self.shared_layouts(e, &all_dims, tensors)) };
        let rc = if self.apart.is_empty() { rc } else { if_ok(e, rc, |e| self.kept_apart(e, tensors)) };
        let rc = if_ok(e, rc, |e| {
            let zero = e.const_int(0, Type::i64());
            let needed = workspace_bytes(e, &self.compute, &all_dims);
            let needs = e.cmpi("sgt", needed, zero);
            let wsa = address(e, *ws);
            let null = e.cmpi("eq", wsa, zero);
            let mask = e.const_int(ALIGN as i128 - 1, Type::i64());
            let low = e.value_op("arith.andi", &[wsa, mask], Type::i64());
            let misaligned = e.cmpi("ne", low, zero);
            let failures = [
                (e.value_op("arith.andi", &[needs, null], Type::i1()), status::NULL_WORKSPACE),
                (e.value_op("arith.andi", &[needs, misaligned], Type::i1()), status::WORKSPACE_MISALIGNED),
            ];
            let rc = first_failure(e, &failures);
            let call_args: Vec<ValueId> = all_dims.iter().chain(pointers).copied().collect();
            if_ok(e, rc, |e| {
                if !self.strings {
                    return call(e, &self.compute, &call_args, Type::i32());
                }
                let previous = runtime_call(e, STRINGS_ENTER, &[], Type::i64());
                self.define_dims(e, &all_dims);
                let rc = self.check_strings(e, &tensors[..self.sig.inputs]);
                let rc = if_ok(e, rc, |e| call(e, &self.compute, &call_args, Type::i32()));
                let rc = self.export_strings(e, rc, &tensors[self.sig.inputs..]);
                runtime_call(e, STRINGS_LEAVE, &[previous, rc], Type::i32())
            })
        });
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([rc]));
    }

    /// Gives the caller each string of the STRING outputs (runtime-c copies them out of the
    /// run's arena), or NULLs them where `rc` is a failure; returns the status.
    fn export_strings(&self, e: &mut Emitter, mut rc: ValueId, outputs: &[ValueId]) -> ValueId {
        for ((_, t), &p) in self.outputs.iter().zip(outputs).filter(|((_, t), _)| t.dtype == DType::Str) {
            let n = string_count(e, t);
            let p = address(e, p);
            rc = runtime_call(e, STRINGS_EXPORT, &[p, n, rc], Type::i32());
        }
        rc
    }

    /// `XCC_ERROR_NULL_TENSOR` where a STRING input holds a NULL string, else `XCC_OK`.
    fn check_strings(&self, e: &mut Emitter, inputs: &[ValueId]) -> ValueId {
        let mut rc = e.const_int(status::OK as i128, Type::i32());
        for ((_, t), &p) in self.inputs.iter().zip(inputs).filter(|((_, t), _)| t.dtype == DType::Str) {
            let n = string_count(e, t);
            let p = address(e, p);
            let bad = runtime_call(e, STRINGS_CHECK, &[p, n], Type::i32());
            rc = if_ok(e, rc, |_| bad);
        }
        rc
    }

    /// Makes the run's dims (`all_dims`, in [`Entries::dim_names`]' order) the symbols' values.
    fn define_dims(&self, e: &mut Emitter, all_dims: &[ValueId]) {
        for (s, &a) in self.dim_names().zip(all_dims) {
            let v = e.value_op("arith.index_cast", &[a], Type::Index);
            e.symbols.insert(s.clone(), v);
        }
    }

    /// `XCC_ERROR_BAD_DIM` where the caller gives one buffer as an input and an output of a
    /// shared pair (a past cache and its present) whose dims differ in this run: the kernels
    /// that read the present would read past the buffer. Checked before any kernel runs.
    fn shared_layouts(&self, e: &mut Emitter, all_dims: &[ValueId], tensors: &[ValueId]) -> ValueId {
        self.define_dims(e, all_dims);
        let mut bad = e.const_int(0, Type::i1());
        for &(o, i) in &self.shared {
            let same = self.one_buffer(e, tensors, (o, i));
            let mut differ = e.const_int(0, Type::i1());
            for (x, y) in self.inputs[i].1.dims().iter().zip(self.outputs[o].1.dims()) {
                if *x != y {
                    let (x, y) = (e.dim_value(x), e.dim_value(&y));
                    let ne = e.cmpi("ne", x, y);
                    differ = e.value_op("arith.ori", &[differ, ne], Type::i1());
                }
            }
            let both = e.value_op("arith.andi", &[same, differ], Type::i1());
            bad = e.value_op("arith.ori", &[bad, both], Type::i1());
        }
        let (failed, ok) =
            (e.const_int(status::BAD_DIM as i128, Type::i32()), e.const_int(status::OK as i128, Type::i32()));
        e.value_op("arith.select", &[bad, failed, ok], Type::i32())
    }

    /// True (an i1) where the caller gave output `o` and input `i` one buffer (`tensors` are
    /// the run's inputs, then its outputs).
    fn one_buffer(&self, e: &mut Emitter, tensors: &[ValueId], (o, i): (usize, usize)) -> ValueId {
        let (a, b) = (address(e, tensors[i]), address(e, tensors[self.sig.inputs + o]));
        e.cmpi("eq", a, b)
    }

    /// `XCC_ERROR_ALIASED_BUFFERS` where the caller gives one buffer as an input and an output
    /// that must be apart ([`concatenated_caches`]).
    fn kept_apart(&self, e: &mut Emitter, tensors: &[ValueId]) -> ValueId {
        let mut bad = e.const_int(0, Type::i1());
        for &pair in &self.apart {
            let same = self.one_buffer(e, tensors, pair);
            bad = e.value_op("arith.ori", &[bad, same], Type::i1());
        }
        let failed = e.const_int(status::ALIASED_BUFFERS as i128, Type::i32());
        let ok = e.const_int(status::OK as i128, Type::i32());
        e.value_op("arith.select", &[bad, failed, ok], Type::i32())
    }

    /// The parameters of the size functions: the dims, and the inputs when data dims read them.
    fn size_params(&self) -> Vec<Type> {
        std::iter::repeat_n(Type::i64(), self.sig.symbols)
            .chain(std::iter::repeat_n(Type::ptr(), self.size_inputs()))
            .collect()
    }

    /// How many input pointers the size functions take after the dims: all or none.
    fn size_inputs(&self) -> usize {
        if self.reads_inputs() {
            self.sig.inputs
        } else {
            0
        }
    }

    /// `NAME_workspace_size(dims... [, inputs...])`: 0 for arguments `NAME_run` refuses (it
    /// refuses them before it looks at the workspace).
    pub(super) fn workspace_size(&self, e: &mut Emitter) {
        let args = self.begin(e, "workspace_size", self.size_params(), Type::i64());
        let (dims, inputs) = args.split_at(self.sig.symbols);
        let (rc, all_dims) = self.prologue(e, dims, inputs, inputs);
        let size = workspace_bytes(e, &self.compute, &all_dims);
        let (ok, zero) = (e.const_int(status::OK as i128, Type::i32()), e.const_int(0, Type::i64()));
        let fine = e.cmpi("eq", rc, ok);
        let size = e.value_op("arith.select", &[fine, size, zero], Type::i64());
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([size]));
    }

    /// `NAME_workspace_size_max()`: the workspace of the run at every symbol's maximum, which
    /// serves every run the ranges allow ([`check_ranges`]: no size shrinks as a symbol grows).
    pub(super) fn workspace_size_max(&self, e: &mut Emitter, maxima: &[usize]) {
        self.begin(e, "workspace_size_max", Vec::new(), Type::i64());
        let args: Vec<ValueId> = maxima.iter().map(|&m| e.const_int(m as i128, Type::i64())).collect();
        let size = call(e, &format!("{}_workspace_size", self.name), &args, Type::i64());
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([size]));
    }

    /// `NAME_workspace_size` called with the size parameters found in `args` (a run's).
    fn call_workspace_size(&self, e: &mut Emitter, args: &[ValueId]) -> ValueId {
        let n = self.size_params().len();
        call(e, &format!("{}_workspace_size", self.name), &args[..n], Type::i64())
    }

    /// `NAME_output_dims(dims... [, inputs...], output dims...)`, for models with data dims: writes
    /// each output's dims (an `int64_t` per dim) for these inputs, or returns why `NAME_run`
    /// would refuse them.
    pub(super) fn output_dims(&self, e: &mut Emitter) {
        let params: Vec<Type> = self.size_params().into_iter().chain(vec![Type::ptr(); self.sig.outputs]).collect();
        let args = self.begin(e, "output_dims", params, Type::i32());
        let (dims, pointers) = args.split_at(self.sig.symbols);
        let (inputs, targets) = pointers.split_at(self.size_inputs());
        let (rc, all_dims) = self.prologue(e, dims, inputs, pointers);
        let rc = if_ok(e, rc, |e| {
            self.define_dims(e, &all_dims);
            // An output's capacity: each found dim at its largest.
            for (s, capacity) in &self.data.found {
                let v = e.dim_value(capacity);
                e.symbols.insert(s.clone(), v);
            }
            for ((_, t), &p) in self.outputs.iter().zip(targets) {
                e.write_dims(p, &t.dims());
            }
            e.const_int(status::OK as i128, Type::i32())
        });
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([rc]));
    }

    /// `NAME_run_alloc(...)`, which allocates the workspace itself and reports a failed
    /// allocation.
    pub(super) fn run_alloc(&self, e: &mut Emitter) {
        let args = self.begin(e, "run_alloc", self.sig.types(-1), Type::i32());
        let size = self.call_workspace_size(e, &args);
        let size = e.value_op("arith.index_cast", &[size], Type::Index);
        let dynamic = MemRefType {
            shape: vec![None],
            elem: Box::new(Type::i8()),
            layout: xcc_ir::types::Layout::Identity,
            memory_space: None,
        };
        let ws = e.op(OpSpec::new("memref.alloc", Span::UNKNOWN)
            .operands([size])
            .results([Type::MemRef(dynamic)])
            .attr("alignment", Attribute::i64(ALIGN))
            .attr("operandSegmentSizes", segment_sizes(&[1, 0])));
        let ws = e.m.result(ws, 0);
        let addr = e.address_of(ws);
        // A workspace of 0 bytes may come back NULL, which is no failure: the run needs none (or
        // refuses its arguments first).
        let zero = e.const_int(0, Type::i64());
        let null = e.cmpi("eq", addr, zero);
        let wanted = e.value_op("arith.index_cast", &[size], Type::i64());
        let wanted = e.cmpi("sgt", wanted, zero);
        let failed = e.value_op("arith.andi", &[null, wanted], Type::i1());
        let rc = e.if_else(
            failed,
            vec![Type::i32()],
            |e| vec![e.const_int(status::OUT_OF_MEMORY as i128, Type::i32())],
            |e| {
                let wsp = e.value_op("llvm.inttoptr", &[addr], Type::ptr());
                let call_args: Vec<ValueId> = args.iter().copied().chain([wsp]).collect();
                let rc = call(e, &format!("{}_run", self.name), &call_args, Type::i32());
                e.op(OpSpec::new("memref.dealloc", Span::UNKNOWN).operands([ws]));
                vec![rc]
            },
        )[0];
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([rc]));
    }

    /// `NAME_run_with(..., workspace, options)`: `NAME_run` with the caller's run options
    /// (threads, pool, parallel-for) current on this thread for the call; runtime-c's
    /// parallel-for reads them. A workspace smaller than the options say is needed fails before
    /// anything runs.
    pub(super) fn run_with_options(&self, e: &mut Emitter) {
        xcc_ir::builder::declare_function(&mut e.m, RUN_OPTIONS_ENTER, vec![Type::ptr()], vec![Type::ptr()]);
        xcc_ir::builder::declare_function(&mut e.m, RUN_OPTIONS_LEAVE, vec![Type::ptr()], vec![]);
        xcc_ir::builder::declare_function(&mut e.m, CHECK_WORKSPACE, vec![Type::ptr(), Type::i64()], vec![Type::i32()]);
        let args = self.begin(e, "run_with", self.sig.types(1), Type::i32());
        let options = args[self.sig.len()];
        let needed = self.call_workspace_size(e, &args);
        let check = OpSpec::new("llvm.call", Span::UNKNOWN).operands([options, needed]).results([Type::i32()]);
        let rc = e.op(check.attr("callee", Attribute::symbol(CHECK_WORKSPACE)));
        let rc = e.m.result(rc, 0);
        let rc = if_ok(e, rc, |e| {
            let enter = OpSpec::new("llvm.call", Span::UNKNOWN).operands([options]).results([Type::ptr()]);
            let previous = e.op(enter.attr("callee", Attribute::symbol(RUN_OPTIONS_ENTER)));
            let previous = e.m.result(previous, 0);
            let rc = call(e, &format!("{}_run", self.name), &args[..self.sig.len()], Type::i32());
            let leave = OpSpec::new("llvm.call", Span::UNKNOWN).operands([previous]);
            e.op(leave.attr("callee", Attribute::symbol(RUN_OPTIONS_LEAVE)));
            rc
        });
        e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([rc]));
    }
}

/// runtime-c's string arena around a run, and the copy of its STRING outputs for the caller.
const STRINGS_ENTER: &str = "xcc_strings_enter";
const STRINGS_LEAVE: &str = "xcc_strings_leave";
const STRINGS_EXPORT: &str = "xcc_strings_export";
const STRINGS_CHECK: &str = "xcc_strings_check";

/// The element count of a STRING tensor, an i64 (its dims' symbols defined).
fn string_count(e: &mut Emitter, t: &TensorType) -> ValueId {
    let n = e.dim_value(&Dim::product(&t.dims()));
    e.value_op("arith.index_cast", &[n], Type::i64())
}

/// Whether the module calls a runtime-c function that makes strings (inside a body graph whose
/// strings the top graph never sees, too): its run needs a string arena.
pub(super) fn makes_strings(m: &Module) -> bool {
    ["xcc_string_concat", "xcc_string_split_next", "xcc_string_change_case"]
        .iter()
        .any(|f| m.lookup_symbol(f).is_some())
}
