//! The recurrent operators RNN, GRU and LSTM: each direction a serial loop over the time
//! steps, each step parallel loops over the batch and the hidden units (on two threads, a
//! bidirectional layer's directions are instead two tasks, see [`both_directions`]).
//!
//! A step computes the gates' pre-activations (`x_t W^T + h_{t-1} R^T` and the biases, plus
//! LSTM's peepholes), then the new state elementwise, written to Y at its time step. Directions
//! are forward, reverse or both (Y's direction dim); `layout` 1 puts the batch first in X, Y,
//! Y_h and Y_c. With sequence_lens, a batch entry's steps past its length leave its state as it
//! is and its outputs zero, and the reverse direction starts from its last real step.
//! `activations` (with their alpha and beta), `clip`, LSTM's `input_forget` and GRU's
//! `linear_before_reset` are as ONNX defines them.

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::dialects::kernel::EpilogueOperands;
use xcc_ir::{OpSpec, Span, Type, ValueId};

pub struct Recurrent;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rnn,
    Gru,
    Lstm,
}

impl Kind {
    fn of(op: &str) -> Kind {
        match op {
            "RNN" => Kind::Rnn,
            "GRU" => Kind::Gru,
            _ => Kind::Lstm,
        }
    }

    /// Gates per hidden unit (W's rows are `gates * hidden`).
    fn gates(self) -> usize {
        match self {
            Kind::Rnn => 1,
            Kind::Gru => 3,
            Kind::Lstm => 4,
        }
    }

    /// The activations per direction, by default.
    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Kind::Rnn => &["Tanh"],
            Kind::Gru => &["Sigmoid", "Tanh"],
            Kind::Lstm => &["Sigmoid", "Tanh", "Tanh"],
        }
    }
}

/// One activation function with its parameters.
#[derive(Clone, Debug)]
struct Activation {
    name: String,
    alpha: f64,
    beta: f64,
}

/// What every part of the lowering reads: dims and attributes.
struct Shape {
    kind: Kind,
    seq: usize,
    batch: usize,
    input: usize,
    hidden: usize,
    directions: usize,
    batch_first: bool,
    /// Per direction, the kind's activations.
    activations: Vec<Vec<Activation>>,
    clip: Option<f64>,
    /// LSTM: the forget gate is `1 - input gate`.
    input_forget: bool,
    /// GRU: the reset gate applies to `h_{t-1} R_h^T + R_bh` rather than to `h_{t-1}`.
    linear_before_reset: bool,
    dtype: DType,
}

fn shape(node: &Node, g: &Graph) -> OResult<Shape> {
    let kind = Kind::of(&node.op);
    let x = super::float_input(node, g)?;
    let (w, r) = (g.ty(&node.inputs[1])?, g.ty(&node.inputs[2])?);
    if x.shape.len() != 3 || w.shape.len() != 3 || r.shape.len() != 3 || x.is_dynamic() {
        return err(format!(
            "X, W and R must be 3-D and known at compile time, not {}, {}, {}",
            x.describe(),
            w.describe(),
            r.describe()
        ));
    }
    let batch_first = node.int("layout", 0) == 1;
    let (seq, batch) = if batch_first { (x.shape[1], x.shape[0]) } else { (x.shape[0], x.shape[1]) };
    let directions = match node.string("direction").unwrap_or("forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        d => return err(format!("direction must be forward, reverse or bidirectional, not {d}")),
    };
    let gates = kind.gates();
    let hidden = r.shape[2];
    let expected_hidden = node.int("hidden_size", hidden as i64);
    if expected_hidden != hidden as i64
        || w.shape != [directions, gates * hidden, x.shape[2]]
        || r.shape != [directions, gates * hidden, hidden]
    {
        return err(format!(
            "W must be [{directions}, {}, {}] and R [{directions}, {}, {hidden}] (hidden_size {expected_hidden}), not {} and {}",
            gates * hidden,
            x.shape[2],
            gates * hidden,
            w.describe(),
            r.describe()
        ));
    }
    optional_input_shapes(node, g, (kind, directions, batch_first), (batch, hidden))?;
    let names: Vec<String> = match node.attrs.get("activations") {
        Some(Attr::Strs(s)) => s.clone(),
        _ => (0..directions).flat_map(|_| kind.default_activations().iter().map(|s| s.to_string())).collect(),
    };
    let per = kind.default_activations().len();
    if names.len() != per * directions {
        return err(format!(
            "{} takes {} activations per direction, not {} for {directions}",
            node.op,
            per,
            names.len()
        ));
    }
    let floats = |name: &str| match node.attrs.get(name) {
        Some(Attr::Floats(f)) => f.iter().map(|&v| v as f64).collect(),
        _ => Vec::new(),
    };
    let (alphas, betas) = (floats("activation_alpha"), floats("activation_beta"));
    let activations = names
        .chunks(per)
        .enumerate()
        .map(|(d, chunk)| {
            chunk
                .iter()
                .enumerate()
                .map(|(k, n)| activation(n, alphas.get(d * per + k).copied(), betas.get(d * per + k).copied()))
                .collect::<OResult<Vec<_>>>()
        })
        .collect::<OResult<Vec<_>>>()?;
    let clip = node.attrs.get("clip").map(|_| node.float("clip", 0.0) as f64);
    Ok(Shape {
        kind,
        seq,
        batch,
        input: x.shape[2],
        hidden,
        directions,
        batch_first,
        activations,
        clip,
        input_forget: node.int("input_forget", 0) != 0,
        linear_before_reset: node.int("linear_before_reset", 0) != 0,
        dtype: x.dtype,
    })
}

/// The optional inputs' dims as the operator defines them (B, sequence_lens, initial_h, and
/// LSTM's initial_c and P), which the steps index without further checks.
fn optional_input_shapes(
    node: &Node,
    g: &Graph,
    (kind, directions, batch_first): (Kind, usize, bool),
    (batch, hidden): (usize, usize),
) -> OResult<()> {
    let gates = kind.gates();
    let state = if batch_first { vec![batch, directions, hidden] } else { vec![directions, batch, hidden] };
    let lstm = kind == Kind::Lstm;
    let expected: [(usize, &str, Vec<usize>); 5] = [
        (3, "B", vec![directions, 2 * gates * hidden]),
        (4, "sequence_lens", vec![batch]),
        (5, "initial_h", state.clone()),
        (6, "initial_c", state),
        (7, "P", vec![directions, 3 * hidden]),
    ];
    for (i, what, dims) in expected {
        let Some(name) = node.input(i) else { continue };
        if i >= 6 && !lstm {
            continue;
        }
        let t = g.ty(name)?;
        if t.is_dynamic() || t.shape != dims {
            return err(format!("{what} must be {dims:?}, not {}", t.describe()));
        }
    }
    Ok(())
}

/// An activation by its ONNX name, with its parameters (the operator's defaults if not given).
fn activation(name: &str, alpha: Option<f64>, beta: Option<f64>) -> OResult<Activation> {
    let (a, b) = match name {
        "Sigmoid" | "Tanh" | "Relu" | "Softsign" | "Softplus" => (0.0, 0.0),
        "LeakyRelu" => (0.01, 0.0),
        "ThresholdedRelu" | "Elu" => (1.0, 0.0),
        "HardSigmoid" => (0.2, 0.5),
        "Affine" | "ScaledTanh" => (1.0, if name == "Affine" { 0.0 } else { 1.0 }),
        _ => return err(format!("the activation {name} is not supported")),
    };
    Ok(Activation { name: name.to_string(), alpha: alpha.unwrap_or(a), beta: beta.unwrap_or(b) })
}

impl OnnxOp for Recurrent {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let s = shape(node, g)?;
        let y = if s.batch_first {
            vec![s.batch, s.seq, s.directions, s.hidden]
        } else {
            vec![s.seq, s.directions, s.batch, s.hidden]
        };
        let state =
            if s.batch_first { vec![s.batch, s.directions, s.hidden] } else { vec![s.directions, s.batch, s.hidden] };
        Ok(node
            .outputs
            .iter()
            .enumerate()
            .map(|(i, _)| TensorType::new(s.dtype, if i == 0 { y.clone() } else { state.clone() }))
            .collect())
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let s = shape(node, g)?;
        let outputs = super::optional_outputs(e, node, 0, 3)?;
        let inputs: Vec<Option<ValueId>> =
            (0..8).map(|i| node.input(i).map(|n| e.buf(n)).transpose()).collect::<OResult<_>>()?;
        if let Some(y) = outputs[0].filter(|_| inputs[4].is_some()) {
            // Steps past a sequence's length are zero in Y; some are never written.
            let zero = e.const_of(0.0, s.dtype);
            let flat = e.flat(y);
            let n = Extent::Fixed(s.seq * s.directions * s.batch * s.hidden);
            e.parallel_over(&[n], &mut |e, ivs| e.store(zero, flat, &[ivs[0]]));
        }
        let reverse_only = node.string("direction") == Some("reverse");
        let projected = Projected::of(node, g, &s);
        let passes: Vec<Pass> = (0..s.directions)
            .map(|d| {
                let weights = projected.as_ref().map(|p| p[d].buffers(e));
                Pass::start(e, &s, &inputs, (d, d == 1 || reverse_only), weights)
            })
            .collect();
        match passes.as_slice() {
            [forward, backward] if e.vector_rows => both_directions(e, &s, (&inputs, &outputs), [forward, backward]),
            _ => passes.iter().for_each(|p| p.steps(e, &s, (&inputs, &outputs))),
        }
        for p in &passes {
            p.finish(e, &s, &outputs);
        }
        Ok(())
    }
}

/// A bidirectional layer's steps. Each step of one direction is a few parallel loops over the
/// batch and units, each ending in a barrier; on two threads the directions run instead as two
/// tasks of one parallel loop, a thread each, with no barrier until both end (a bidirectional
/// LSTM of 512 units, 50 steps: 5.85 ms as two tasks, 6.04 ms with 202 barriers). On one thread
/// the steps run as before (the same work), and on more than two, or under a caller's own
/// parallel-for of unknown width, the steps' own loops share the threads: the run chooses by
/// runtime-c's `xcc_parallel_threads()`.
fn both_directions(e: &mut Emitter, s: &Shape, io: (&[Option<ValueId>], &[Option<ValueId>]), passes: [&Pass; 2]) {
    let threads = crate::emit::runtime_call(e, xcc_runtime_c::PARALLEL_THREADS, &[], Type::i32());
    let two = e.const_int(2, Type::i32());
    let as_tasks = e.cmpi("eq", threads, two);
    e.if_else(
        as_tasks,
        vec![],
        |e| {
            e.parallel_over(&[Extent::Fixed(2)], &mut |e, ivs| {
                let zero = e.idx(0);
                let first = e.cmpi("eq", ivs[0], zero);
                e.if_else(
                    first,
                    vec![],
                    |e| {
                        passes[0].steps(e, s, io);
                        vec![]
                    },
                    |e| {
                        passes[1].steps(e, s, io);
                        vec![]
                    },
                );
            });
            vec![]
        },
        |e| {
            passes.iter().for_each(|p| p.steps(e, s, io));
            vec![]
        },
    );
}

/// One direction's weights as GEMMs take them, where they are constants (f32): `W^T`
/// (`[input, gates * hidden]`) for the input projection of every step at once, `R^T`
/// (`[hidden, gates * hidden]`) for each step's recurrent product, and the biases summed into
/// the projection's (`[1, gates * hidden]`). A step is then one `kernel.matmul` of the state by
/// `R^T` and one elementwise pass; the naive form computed each gate's dot products in scalars
/// (a 20-step LSTM of 64 units took 7x ONNX Runtime's time, a GRU 11x).
///
/// GRU's hidden gate keeps its recurrent bias `R_bh` apart (`rb_h`), since the reset gate
/// scales it with or before the recurrent product; without `linear_before_reset`, the product
/// is of the reset state, `(r (.) h) R_h^T`, so `R^T` holds the update and reset gates' columns
/// and `r_h_t` the hidden gate's (`[hidden, hidden]`).
struct Projected {
    w_t: Tensor,
    r_t: Tensor,
    bias: Tensor,
    rb_h: Option<Tensor>,
    r_h_t: Option<Tensor>,
}

/// [`Projected`]'s constants as buffers.
struct ProjectedBuffers {
    w_t: ValueId,
    r_t: ValueId,
    bias: ValueId,
    rb_h: Option<ValueId>,
    r_h_t: Option<ValueId>,
}

impl Projected {
    /// Each direction's, where W, R and B are constants.
    fn of(node: &Node, g: &Graph, s: &Shape) -> Option<Vec<Projected>> {
        if s.dtype != DType::F32 {
            return None;
        }
        let (w, r) = (g.consts.get(&node.inputs[1])?.to_f64(), g.consts.get(&node.inputs[2])?.to_f64());
        let bias = match node.input(3) {
            Some(b) => g.consts.get(b)?.to_f64(),
            None => vec![0.0; s.directions * 2 * s.kind.gates() * s.hidden],
        };
        Some((0..s.directions).map(|d| Projected::direction(s, d, (&w, &r, &bias))).collect())
    }

    fn direction(s: &Shape, d: usize, (w, r, bias): (&[f64], &[f64], &[f64])) -> Projected {
        let (h, gh) = (s.hidden, s.kind.gates() * s.hidden);
        // Rows `rows` of direction d's [gh, k] matrix, transposed to [k, rows].
        let transposed = |v: &[f64], k: usize, rows: std::ops::Range<usize>| {
            let n = rows.len();
            let out: Vec<f64> = (0..k * n).map(|i| v[(d * gh + rows.start + i % n) * k + i / n]).collect();
            Tensor::from_f64(DType::F32, vec![k, n], &out)
        };
        let (wb, rb) = (&bias[d * 2 * gh..d * 2 * gh + gh], &bias[d * 2 * gh + gh..(d + 1) * 2 * gh]);
        let gru = s.kind == Kind::Gru;
        let summed: Vec<f64> = (0..gh).map(|j| if gru && j >= 2 * h { wb[j] } else { wb[j] + rb[j] }).collect();
        let split = gru && !s.linear_before_reset;
        Projected {
            w_t: transposed(w, s.input, 0..gh),
            r_t: transposed(r, h, 0..if split { 2 * h } else { gh }),
            bias: Tensor::from_f64(DType::F32, vec![1, gh], &summed),
            rb_h: gru.then(|| Tensor::from_f64(DType::F32, vec![1, h], &rb[2 * h..])),
            r_h_t: split.then(|| transposed(r, h, 2 * h..gh)),
        }
    }

    fn buffers(&self, e: &mut Emitter) -> ProjectedBuffers {
        ProjectedBuffers {
            w_t: e.constant_buffer(&self.w_t),
            r_t: e.constant_buffer(&self.r_t),
            bias: e.constant_buffer(&self.bias),
            rb_h: self.rb_h.as_ref().map(|t| e.constant_buffer(t)),
            r_h_t: self.r_h_t.as_ref().map(|t| e.constant_buffer(t)),
        }
    }
}

/// `out = a x b (+ bias)` as a `kernel.matmul` (all f32, row-major).
fn matmul(e: &mut Emitter, a: ValueId, b: ValueId, bias: Option<ValueId>, out: ValueId) {
    let ops = EpilogueOperands { a, b, bias, residual: None, output: out };
    e.op(ops.into_spec("kernel.matmul", Span::UNKNOWN));
}

/// Where a step reads its gates' pre-activations: the `gates` buffer (filled by [`gates`]), or
/// the projection of every step's input `p` (`[seq * batch, gates * hidden]`, in X's order of
/// time and batch) plus this step's recurrent product `q` (`[batch, columns of R^T]`); GRU's
/// `rb_h` as in [`Projected`].
#[derive(Clone, Copy)]
enum GateSource {
    Buffer,
    Projected {
        p: ValueId,
        q: ValueId,
        rb_h: Option<ValueId>,
        /// GRU without `linear_before_reset`: `(r (.) h) R_h^T + R_bh` (`[batch, hidden]`).
        reset_product: Option<ValueId>,
    },
}

/// X's row (of `[seq * batch, input]`) of time `t` and batch entry `b`.
fn x_row(e: &mut Emitter, s: &Shape, t: ValueId, b: ValueId) -> ValueId {
    match s.batch_first {
        true => e.affine(&[(b, s.seq as i64), (t, 1)], 0),
        false => e.affine(&[(t, s.batch as i64), (b, 1)], 0),
    }
}

/// The buffers of one direction's pass.
struct State {
    h: ValueId,
    c: ValueId,
    gates: ValueId,
    /// GRU: `h_{t-1} R_h^T (+ R_bh)`, before or after the reset gate.
    recurrent_h: ValueId,
}

/// One direction's pass over the sequence: its buffers, made (and the state initialized, every
/// step's input projection computed) before any step runs, so that two passes can run at once.
struct Pass {
    d: usize,
    reverse: bool,
    st: State,
    source: GateSource,
    weights: Option<ProjectedBuffers>,
}

impl Pass {
    fn start(
        e: &mut Emitter,
        s: &Shape,
        inputs: &[Option<ValueId>],
        (d, reverse): (usize, bool),
        weights: Option<ProjectedBuffers>,
    ) -> Pass {
        let dt = s.dtype;
        let (b, h, gh) = (s.batch, s.hidden, s.kind.gates() * s.hidden);
        let st = State {
            h: e.alloc_tensor(&TensorType::new(dt, vec![b, h])),
            c: e.alloc_tensor(&TensorType::new(dt, vec![b, h])),
            gates: e.alloc_tensor(&TensorType::new(dt, vec![b, gh])),
            recurrent_h: e.alloc_tensor(&TensorType::new(dt, vec![b, h])),
        };
        let di = e.idx(d as i64);
        // The initial state.
        e.parallel_over(&[Extent::Fixed(b), Extent::Fixed(h)], &mut |e, ivs| {
            for (input, buf) in [(inputs[5], st.h), (inputs[6], st.c)] {
                let v = match input {
                    Some(init) => e.load(init, &state_index(s, di, ivs[0], ivs[1])),
                    None => e.const_of(0.0, dt),
                };
                e.store(v, buf, &[ivs[0], ivs[1]]);
            }
        });
        // Every step's input projection at once, X seen as [seq * batch, input] rows.
        let source = match &weights {
            Some(w) => {
                let x = e.reshaped(inputs[0].expect("X"), &[s.seq * s.batch, s.input]);
                let p = e.alloc_tensor(&TensorType::new(dt, vec![s.seq * s.batch, gh]));
                matmul(e, x, w.w_t, Some(w.bias), p);
                // Without linear_before_reset, R^T holds the update and reset gates' columns only.
                let columns = if w.r_h_t.is_some() { 2 * h } else { gh };
                let q = e.alloc_tensor(&TensorType::new(dt, vec![b, columns]));
                let reset_product = w.r_h_t.map(|_| e.alloc_tensor(&TensorType::new(dt, vec![b, h])));
                GateSource::Projected { p, q, rb_h: w.rb_h, reset_product }
            }
            None => GateSource::Buffer,
        };
        Pass { d, reverse, st, source, weights }
    }

    /// The serial loop over the time steps.
    fn steps(&self, e: &mut Emitter, s: &Shape, (inputs, outputs): (&[Option<ValueId>], &[Option<ValueId>])) {
        let acts = &s.activations[self.d];
        let (st, source, projected) = (&self.st, self.source, self.weights.as_ref());
        let di = e.idx(self.d as i64);
        e.for_loop_over(Extent::Fixed(s.seq), |e, step| {
            let at = Step { d: di, step, reverse: self.reverse };
            match (source, projected) {
                (GateSource::Projected { p, q, reset_product, .. }, Some(w)) => {
                    matmul(e, st.h, w.r_t, None, q);
                    if let (Some(r_h_t), Some(product)) = (w.r_h_t, reset_product) {
                        reset_state(e, s, inputs[4], st, (&at, p, q), acts);
                        matmul(e, st.recurrent_h, r_h_t, w.rb_h, product);
                    }
                }
                _ => gates(e, s, inputs, st, &at),
            }
            if s.kind == Kind::Gru && projected.is_none() {
                gru_reset(e, s, inputs, st, &at, acts);
            }
            update(e, s, (inputs, outputs), st, (&at, source), acts);
        });
    }

    /// The final state, into Y_h and Y_c.
    fn finish(&self, e: &mut Emitter, s: &Shape, outputs: &[Option<ValueId>]) {
        let di = e.idx(self.d as i64);
        e.parallel_over(&[Extent::Fixed(s.batch), Extent::Fixed(s.hidden)], &mut |e, ivs| {
            for (output, buf) in [(outputs[1], self.st.h), (outputs[2], self.st.c)] {
                if let Some(out) = output {
                    let v = e.load(buf, &[ivs[0], ivs[1]]);
                    e.store(v, out, &state_index(s, di, ivs[0], ivs[1]));
                }
            }
        });
    }
}

/// Where a step is: the direction (as an index), the step, and whether time runs backwards.
struct Step {
    d: ValueId,
    step: ValueId,
    reverse: bool,
}

/// Y_h's (and initial_h's) index of direction `d`, batch entry `b`, unit `j`.
fn state_index(s: &Shape, d: ValueId, b: ValueId, j: ValueId) -> Vec<ValueId> {
    if s.batch_first {
        vec![b, d, j]
    } else {
        vec![d, b, j]
    }
}

/// The time step that step `step` of batch entry `b` processes, and whether there is one (the
/// step is within the entry's length).
/// The time step `step` reads and writes for batch entry `b`, and whether the step is within
/// the entry's length: `None` without sequence_lens, where every step is (a condition the
/// step's loop would otherwise test per unit, keeping LLVM from vectorizing the update).
fn time_of(
    e: &mut Emitter,
    s: &Shape,
    lens: Option<ValueId>,
    step: ValueId,
    b: ValueId,
    reverse: bool,
) -> (ValueId, Option<ValueId>) {
    let Some(l) = lens else {
        let t = if reverse { e.affine(&[(step, -1)], s.seq as i64 - 1) } else { step };
        return (t, None);
    };
    let v = e.load(l, &[b]);
    let len = e.value_op("arith.index_cast", &[v], Type::Index);
    let active = e.cmpi("slt", step, len);
    if !reverse {
        return (step, Some(active));
    }
    // len - 1 - step, kept in range where the step is inactive.
    let last = e.affine(&[(len, 1), (step, -1)], -1);
    let zero = e.idx(0);
    let t = e.value_op("arith.maxsi", &[last, zero], Type::Index);
    (t, Some(active))
}

/// X's index at time `t`, batch entry `b`, feature `k`.
fn x_index(s: &Shape, t: ValueId, b: ValueId, k: ValueId) -> Vec<ValueId> {
    if s.batch_first {
        vec![b, t, k]
    } else {
        vec![t, b, k]
    }
}

/// The gates' pre-activations of one step: `x_t W^T + W_b` and `h_{t-1} R^T + R_b`, added,
/// except for GRU's hidden gate, whose recurrent part goes to `recurrent_h` for
/// [`gru_reset`].
fn gates(e: &mut Emitter, s: &Shape, inputs: &[Option<ValueId>], st: &State, at: &Step) {
    let dt = s.dtype;
    let (x, w, r, bias) = (inputs[0].expect("X"), inputs[1].expect("W"), inputs[2].expect("R"), inputs[3]);
    let (hidden, gh, d) = (s.hidden, s.kind.gates() * s.hidden, at.d);
    e.parallel_over(&[Extent::Fixed(s.batch), Extent::Fixed(gh)], &mut |e, ivs| {
        let (b, j) = (ivs[0], ivs[1]);
        let (t, _) = time_of(e, s, inputs[4], at.step, b, at.reverse);
        let (mut wb, mut rb) = (e.const_of(0.0, dt), e.const_of(0.0, dt));
        if let Some(bias) = bias {
            wb = e.load(bias, &[d, j]);
            let rj = e.affine(&[(j, 1)], gh as i64);
            rb = e.load(bias, &[d, rj]);
        }
        let input = e.for_acc_over(Extent::Fixed(s.input), wb, |e, k, acc| {
            let xv = e.load(x, &x_index(s, t, b, k));
            let wv = e.load(w, &[d, j, k]);
            e.fmuladd(xv, wv, acc)
        });
        let recurrent = e.for_acc_over(Extent::Fixed(hidden), rb, |e, k, acc| {
            let hv = e.load(st.h, &[b, k]);
            let rv = e.load(r, &[d, j, k]);
            e.fmuladd(hv, rv, acc)
        });
        if s.kind != Kind::Gru {
            let v = e.fbin("arith.addf", input, recurrent);
            e.store(v, st.gates, &[b, j]);
            return;
        }
        let first = e.idx(2 * hidden as i64);
        let is_hidden = e.cmpi("sge", j, first);
        let both = e.fbin("arith.addf", input, recurrent);
        let v = e.select_f(is_hidden, input, both);
        e.store(v, st.gates, &[b, j]);
        e.if_then(is_hidden, |e| {
            let unit = e.affine(&[(j, 1)], -2 * hidden as i64);
            e.store(recurrent, st.recurrent_h, &[b, unit]);
        });
    });
}

/// GRU: the reset gate applied, into `recurrent_h`: with linear_before_reset, `r_t (.)
/// (h_{t-1} R_h^T + R_bh)`; without, `(r_t (.) h_{t-1}) R_h^T + R_bh`, which needs every
/// unit's reset gate first.
fn gru_reset(e: &mut Emitter, s: &Shape, inputs: &[Option<ValueId>], st: &State, at: &Step, acts: &[Activation]) {
    let (dt, hidden, d) = (s.dtype, s.hidden, at.d);
    let (r, bias) = (inputs[2].expect("R"), inputs[3]);
    let reset = |e: &mut Emitter, b: ValueId, k: ValueId| {
        let at = e.affine(&[(k, 1)], hidden as i64);
        let pre = e.load(st.gates, &[b, at]);
        activate(e, s, &acts[0], pre)
    };
    e.parallel_over(&[Extent::Fixed(s.batch), Extent::Fixed(hidden)], &mut |e, ivs| {
        let (b, j) = (ivs[0], ivs[1]);
        let v = if s.linear_before_reset {
            let rt = reset(e, b, j);
            let lin = e.load(st.recurrent_h, &[b, j]);
            e.fbin("arith.mulf", rt, lin)
        } else {
            let mut rb = e.const_of(0.0, dt);
            if let Some(bias) = bias {
                let rj = e.affine(&[(j, 1)], (5 * hidden) as i64);
                rb = e.load(bias, &[d, rj]);
            }
            let row = e.affine(&[(j, 1)], (2 * hidden) as i64);
            e.for_acc_over(Extent::Fixed(hidden), rb, |e, k, acc| {
                let rt = reset(e, b, k);
                let hv = e.load(st.h, &[b, k]);
                let rh = e.fbin("arith.mulf", rt, hv);
                let rv = e.load(r, &[d, row, k]);
                e.fmuladd(rh, rv, acc)
            })
        };
        e.store(v, st.recurrent_h, &[b, j]);
    });
}

/// GRU without `linear_before_reset`, from the projection `p` and the update and reset gates'
/// recurrent products `q` (`[batch, 2 * hidden]`): the reset state `r (.) h` into `recurrent_h`,
/// for its product with `R_h^T`.
fn reset_state(
    e: &mut Emitter,
    s: &Shape,
    lens: Option<ValueId>,
    st: &State,
    (at, p, q): (&Step, ValueId, ValueId),
    acts: &[Activation],
) {
    let hidden = s.hidden;
    e.parallel_over(&[Extent::Fixed(s.batch), Extent::Fixed(hidden)], &mut |e, ivs| {
        let (b, j) = (ivs[0], ivs[1]);
        let (t, _) = time_of(e, s, lens, at.step, b, at.reverse);
        let row = x_row(e, s, t, b);
        let unit = e.affine(&[(j, 1)], hidden as i64);
        let input = e.load(p, &[row, unit]);
        let product = e.load(q, &[b, unit]);
        let pre = e.fbin("arith.addf", input, product);
        let r = activate(e, s, &acts[0], pre);
        let h = e.load(st.h, &[b, j]);
        let v = e.fbin("arith.mulf", r, h);
        e.store(v, st.recurrent_h, &[b, j]);
    });
}

/// The new state from the gates, written to Y at its time step (its state unchanged and Y
/// zero past a sequence's length).
fn update(
    e: &mut Emitter,
    s: &Shape,
    (inputs, outputs): (&[Option<ValueId>], &[Option<ValueId>]),
    st: &State,
    (at, source): (&Step, GateSource),
    acts: &[Activation],
) {
    let (dt, hidden, d) = (s.dtype, s.hidden, at.d);
    let units = Units::of(s);
    e.parallel_over(&[Extent::Fixed(s.batch), Extent::Fixed(hidden / units.lanes)], &mut |e, ivs| {
        let (b, j) = (ivs[0], e.affine(&[(ivs[1], units.lanes as i64)], 0));
        let (t, active) = time_of(e, s, inputs[4], at.step, b, at.reverse);
        let lane_active = active.map(|a| units.condition(e, a));
        // A gate's pre-activation, and its input part alone (GRU's hidden gate).
        let part = |e: &mut Emitter, g: usize, recurrent: bool| {
            let unit = e.affine(&[(j, 1)], (g * hidden) as i64);
            match source {
                GateSource::Buffer => units.load(e, st.gates, &[b, unit]),
                GateSource::Projected { p, q, .. } => {
                    let row = x_row(e, s, t, b);
                    let input = units.load(e, p, &[row, unit]);
                    if !recurrent {
                        return input;
                    }
                    let product = units.load(e, q, &[b, unit]);
                    e.fbin("arith.addf", input, product)
                }
            }
        };
        let gate = |e: &mut Emitter, g: usize| part(e, g, true);
        let h_prev = units.load(e, st.h, &[b, j]);
        let (h_new, c_new) = match s.kind {
            Kind::Rnn => {
                let a = gate(e, 0);
                (activate(e, s, &acts[0], a), None)
            }
            Kind::Gru => {
                let z = gate(e, 0);
                let z = activate(e, s, &acts[0], z);
                // The hidden gate's input part, plus its recurrent part (reset applied).
                let hx = part(e, 2, false);
                let rh = match source {
                    GateSource::Buffer => units.load(e, st.recurrent_h, &[b, j]),
                    GateSource::Projected { reset_product: Some(product), .. } => units.load(e, product, &[b, j]),
                    GateSource::Projected { q, rb_h, .. } => {
                        // linear_before_reset: r (.) (h R_h^T + R_bh).
                        let r = gate(e, 1);
                        let r = activate(e, s, &acts[0], r);
                        let unit = e.affine(&[(j, 1)], (2 * hidden) as i64);
                        let product = units.load(e, q, &[b, unit]);
                        let zero = e.idx(0);
                        let bias = units.load(e, rb_h.expect("a GRU's R_bh"), &[zero, j]);
                        let linear = e.fbin("arith.addf", product, bias);
                        e.fbin("arith.mulf", r, linear)
                    }
                };
                let pre = e.fbin("arith.addf", hx, rh);
                let candidate = activate(e, s, &acts[1], pre);
                let one = units.constant(e, 1.0, dt);
                let keep = e.fbin("arith.subf", one, z);
                let a = e.fbin("arith.mulf", keep, candidate);
                (e.fmuladd(z, h_prev, a), None)
            }
            Kind::Lstm => {
                let c_prev = units.load(e, st.c, &[b, j]);
                let peephole = |e: &mut Emitter, k: usize, c: ValueId, v: ValueId| match inputs[7] {
                    Some(p) => {
                        let at = e.affine(&[(j, 1)], (k * hidden) as i64);
                        let pv = units.load(e, p, &[d, at]);
                        e.fmuladd(pv, c, v)
                    }
                    None => v,
                };
                let i_pre = gate(e, 0);
                let i_pre = peephole(e, 0, c_prev, i_pre);
                let i = activate(e, s, &acts[0], i_pre);
                let f = if s.input_forget {
                    let one = units.constant(e, 1.0, dt);
                    e.fbin("arith.subf", one, i)
                } else {
                    let f_pre = gate(e, 2);
                    let f_pre = peephole(e, 2, c_prev, f_pre);
                    activate(e, s, &acts[0], f_pre)
                };
                let g_pre = gate(e, 3);
                let cand = activate(e, s, &acts[1], g_pre);
                let ic = e.fbin("arith.mulf", i, cand);
                let c = e.fmuladd(f, c_prev, ic);
                let o_pre = gate(e, 1);
                let o_pre = peephole(e, 1, c, o_pre);
                let o = activate(e, s, &acts[0], o_pre);
                let hc = apply(e, &acts[2], c, dt);
                (e.fbin("arith.mulf", o, hc), Some((c, c_prev)))
            }
        };
        let kept = |e: &mut Emitter, new: ValueId, old: ValueId| match lane_active {
            Some(a) => e.select_f(a, new, old),
            None => new,
        };
        let h_kept = kept(e, h_new, h_prev);
        units.store(e, h_kept, st.h, &[b, j]);
        if let Some((c, c_prev)) = c_new {
            let c_kept = kept(e, c, c_prev);
            units.store(e, c_kept, st.c, &[b, j]);
        }
        if let Some(y) = outputs[0] {
            let at = if s.batch_first { vec![b, t, d, j] } else { vec![t, d, b, j] };
            match active {
                Some(a) => e.if_then(a, |e| units.store(e, h_new, y, &at)),
                None => units.store(e, h_new, y, &at),
            }
        }
    });
}

/// How [`update`] steps through the hidden units: one at a time, or `lanes` at once as vectors
/// (f32 with the hidden size a multiple of 16). LLVM does not vectorize the scalar loop: its
/// iterations are a flattened range over batch and units, whose indices are divisions.
#[derive(Clone, Copy)]
struct Units {
    lanes: usize,
}

impl Units {
    const LANES: usize = 16;

    fn of(s: &Shape) -> Units {
        let vectors = s.dtype == DType::F32 && s.hidden.is_multiple_of(Self::LANES);
        Units { lanes: if vectors { Self::LANES } else { 1 } }
    }

    fn vector(self) -> Option<Type> {
        (self.lanes > 1).then(|| Type::Vector { shape: vec![self.lanes as u64], elem: Box::new(Type::f32()) })
    }

    /// The units from `idx` (the last index the first unit's) of `buf`.
    fn load(self, e: &mut Emitter, buf: ValueId, idx: &[ValueId]) -> ValueId {
        match self.vector() {
            Some(vt) => e.value_op("vector.load", &[&[buf][..], idx].concat(), vt),
            None => e.load(buf, idx),
        }
    }

    fn store(self, e: &mut Emitter, v: ValueId, buf: ValueId, idx: &[ValueId]) {
        match self.vector() {
            Some(_) => {
                e.op(OpSpec::new("vector.store", Span::UNKNOWN).operands([&[v, buf][..], idx].concat()));
            }
            None => e.store(v, buf, idx),
        }
    }

    fn constant(self, e: &mut Emitter, v: f64, d: DType) -> ValueId {
        match self.vector() {
            Some(vt) => e.splat_const(v, vt),
            None => e.const_of(v, d),
        }
    }

    /// A scalar condition for every unit.
    fn condition(self, e: &mut Emitter, c: ValueId) -> ValueId {
        match self.vector() {
            Some(vt) => e.value_op("vector.broadcast", &[c], vt.with_element(Type::i1())),
            None => c,
        }
    }
}

/// A constant of `like`'s type: a scalar, or a vector with every lane `v`.
fn constant_like(e: &mut Emitter, v: f64, like: ValueId, d: DType) -> ValueId {
    match e.m.ty(like).clone() {
        vt @ Type::Vector { .. } => e.splat_const(v, vt),
        _ => e.const_of(v, d),
    }
}

/// A gate's activation of its whole pre-activation (peepholes included), clipped first.
fn activate(e: &mut Emitter, s: &Shape, a: &Activation, pre: ValueId) -> ValueId {
    let pre = clip(e, s, pre);
    apply(e, a, pre, s.dtype)
}

/// `v` clipped to `[-clip, clip]` when the operator has a clip.
fn clip(e: &mut Emitter, s: &Shape, v: ValueId) -> ValueId {
    let Some(c) = s.clip else { return v };
    let (lo, hi) = (constant_like(e, -c, v, s.dtype), constant_like(e, c, v, s.dtype));
    let v = e.fbin("arith.maximumf", v, lo);
    e.fbin("arith.minimumf", v, hi)
}

/// An activation function on one value.
fn apply(e: &mut Emitter, a: &Activation, x: ValueId, d: DType) -> ValueId {
    let c = |e: &mut Emitter, v: f64| constant_like(e, v, x, d);
    let t = e.m.ty(x).clone();
    let op = |e: &mut Emitter, name: &str, args: &[ValueId]| e.value_op(name, args, t.clone());
    match a.name.as_str() {
        "Tanh" => op(e, "math.tanh", &[x]),
        "Relu" => {
            let z = c(e, 0.0);
            op(e, "arith.maximumf", &[x, z])
        }
        "Sigmoid" => {
            let n = op(e, "arith.negf", &[x]);
            let ex = op(e, "math.exp", &[n]);
            let one = c(e, 1.0);
            let den = op(e, "arith.addf", &[one, ex]);
            op(e, "arith.divf", &[one, den])
        }
        "HardSigmoid" => {
            let (al, be, z, one) = (c(e, a.alpha), c(e, a.beta), c(e, 0.0), c(e, 1.0));
            let m = op(e, "arith.mulf", &[al, x]);
            let s = op(e, "arith.addf", &[m, be]);
            let lo = op(e, "arith.maximumf", &[s, z]);
            op(e, "arith.minimumf", &[lo, one])
        }
        "LeakyRelu" => {
            let (al, z) = (c(e, a.alpha), c(e, 0.0));
            let m = op(e, "arith.mulf", &[al, x]);
            let neg = e.cmpf("olt", x, z);
            op(e, "arith.select", &[neg, m, x])
        }
        "ThresholdedRelu" => {
            let (al, z) = (c(e, a.alpha), c(e, 0.0));
            let above = e.cmpf("ogt", x, al);
            op(e, "arith.select", &[above, x, z])
        }
        "Affine" => {
            let (al, be) = (c(e, a.alpha), c(e, a.beta));
            let m = op(e, "arith.mulf", &[al, x]);
            op(e, "arith.addf", &[m, be])
        }
        "ScaledTanh" => {
            let (al, be) = (c(e, a.alpha), c(e, a.beta));
            let m = op(e, "arith.mulf", &[be, x]);
            let th = op(e, "math.tanh", &[m]);
            op(e, "arith.mulf", &[al, th])
        }
        "Elu" => {
            let (al, z, one) = (c(e, a.alpha), c(e, 0.0), c(e, 1.0));
            let ex = op(e, "math.exp", &[x]);
            let em = op(e, "arith.subf", &[ex, one]);
            let neg = op(e, "arith.mulf", &[al, em]);
            let lt = e.cmpf("olt", x, z);
            op(e, "arith.select", &[lt, neg, x])
        }
        "Softsign" => {
            let one = c(e, 1.0);
            let ab = op(e, "math.absf", &[x]);
            let den = op(e, "arith.addf", &[one, ab]);
            op(e, "arith.divf", &[x, den])
        }
        _ => {
            // Softplus (the only other name `activation` accepts).
            let one = c(e, 1.0);
            let ex = op(e, "math.exp", &[x]);
            let s = op(e, "arith.addf", &[one, ex]);
            op(e, "math.log", &[s])
        }
    }
}
