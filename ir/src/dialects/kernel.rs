//! `kernel`: xcc's kernel level, between a model's graph and loops. Structured, target-neutral
//! operations on buffers, which say what is computed and leave how (tiling, packing, layout,
//! vectorization, threads or a GPU grid) to the passes over this level and to its lowering,
//! `kernel-to-loops`:
//!
//! - `kernel.generic`: a loop nest over an iteration space, each operand read or written at an
//!   affine map of the loop indices (as `linalg.generic`); loops are `parallel` or `reduction`,
//!   the body computes the outputs' elements from the operands' (`kernel.index` gives a loop
//!   index, and the body may read other buffers, for gathers);
//! - `kernel.matmul`: `out = act(alpha * A x B + beta * bias + residual)` with broadcast batch
//!   dimensions, the epilogue typed by its operands and attributes ([`Epilogue`]); or, over i8
//!   operands into an i32 output, the exact integer product of (un)signed bytes
//!   ([`is_integer_matmul`]);
//! - `kernel.conv`: an N-d convolution with groups, strides, dilations and pads, with the same
//!   epilogue;
//! - `kernel.conv_planes`: an integer convolution over flattened planes in channel quads
//!   ([`verify_conv_planes`]), the form a quantized convolution takes once its input is padded
//!   and laid out (by the graph) so that every tap reads a contiguous run of positions;
//! - `kernel.copy`: the elements of one buffer into another of the same size, in row-major order
//!   (reshapes);
//! - `kernel.workspace_size`: the bytes a function's workspace needs, known once
//!   `plan-workspace` has placed its buffers; its operands stand for the function's leading
//!   arguments when buffers have sizes known only at run time (computed from those arguments).
//!
//! Operands may have dims known only at run time (`memref<?x768xf32>`): loops then run to
//! `memref.dim` of the operand that gives their size, and the verifiers check what is static. A
//! dynamic dim is never broadcast at run time (a dynamic batch dim of a matmul's A is the
//! output's); `kernel.conv` takes dynamic batch and spatial dims, its channels and weights static.
//!
//! The custom forms name operands by role, as `linalg` does: `kernel.matmul ins(%a, %b : A, B)
//! bias(%c : C) residual(%r : R) outs(%y : Y) {alpha = ...}`, `kernel.copy ins(%x : X) outs(%y :
//! Y)` (`test-suite/roundtrip/xcc_kernel.mlir` has each).

use super::constraints::{operand_types, result_types};
use crate::affine::{AffineExpr, AffineMap};
use crate::attributes::Attribute;
use crate::entity::{OpId, RegionId};
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrDef, AttrKind, Count, OpDef, Segment, Syntax, Traits};
use crate::parser::forms::{parse_opt_attr_dict, segment_sizes, RETURN};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{MemRefType, Type};
use crate::Diagnostic;

const GENERIC_SEGMENTS: &[Segment] = &[Segment::Variadic("inputs"), Segment::Variadic("outputs")];
const EPILOGUE_SEGMENTS: &[Segment] = &[
    Segment::One("a"),
    Segment::One("b"),
    Segment::Optional("bias"),
    Segment::Optional("residual"),
    Segment::One("output"),
];

/// The epilogue's attributes, shared by `kernel.matmul` and `kernel.conv`.
const MATMUL_ATTRS: &[AttrDef] = &[
    optional("transpose_a", AttrKind::Unit),
    optional("transpose_b", AttrKind::Unit),
    // B stored as column panels: `[ceil(N / w), K, w]`, panel p holding columns p*w.. of every
    // row contiguously (zeros past N); what the GEMM micro-kernel reads fastest.
    optional("b_panels", AttrKind::Integer),
    optional("alpha", AttrKind::Float),
    optional("beta", AttrKind::Float),
    optional("act_min", AttrKind::Float),
    optional("act_max", AttrKind::Float),
    optional("epilogue_map", AttrKind::Symbol),
    // An integer matmul (i8 A and B, an i32 output): which operands hold unsigned bytes (the
    // others are signed), and B stored as quads of k, `[ceil(N / w), ceil(K / 4), w, 4]`
    // (zeros past N and K), as the integer micro-kernel reads it.
    optional("a_unsigned", AttrKind::Unit),
    optional("b_unsigned", AttrKind::Unit),
    optional("b_quads", AttrKind::Integer),
    // An integer matmul's byte dot products, and 16-bit pair products on CPUs with AVX2
    // (`kernel-choose-strategies`).
    optional("byte_dots", AttrKind::String),
    optional("pair_products", AttrKind::Unit),
    // The GEMM micro-kernel's register tiles by CPU level, `[min_level, rows, vectors]` triples
    // (`kernel-choose-strategies`, from the target's table).
    optional("register_tiles", AttrKind::IntList),
    // How a GPU computes it: "tiled_gemm" (with `tensor_cores` for TF32), "split_k" over
    // `splits` runs of K, or "direct" with `thread_tile` outputs a thread
    // (`kernel-choose-strategies`).
    optional("gpu_strategy", AttrKind::String),
    optional("tensor_cores", AttrKind::Unit),
    optional("splits", AttrKind::Integer),
    optional("thread_tile", AttrKind::Integer),
];
const CONV_ATTRS: &[AttrDef] = &[
    required("strides", AttrKind::IntList),
    required("pads", AttrKind::IntList),
    required("dilations", AttrKind::IntList),
    required("group", AttrKind::Integer),
    // Winograd's F(m x m, 3 x 3) with this output tile m (2): the weights are stored transformed,
    // `[m + 2, m + 2, K, C]` (`kernel-pack-weights`).
    optional("winograd", AttrKind::Integer),
    // How a CPU computes it: "winograd", "depthwise", "im2col" or "direct"
    // (`kernel-choose-strategies`), and the GEMM's register tiles as on `kernel.matmul`.
    optional("strategy", AttrKind::String),
    optional("register_tiles", AttrKind::IntList),
    // The L2 cache bytes an im2col GEMM's blocks of columns are sized for.
    optional("l2_cache_bytes", AttrKind::Integer),
    // How a GPU computes it, as on `kernel.matmul`.
    optional("gpu_strategy", AttrKind::String),
    optional("tensor_cores", AttrKind::Unit),
    optional("splits", AttrKind::Integer),
    optional("thread_tile", AttrKind::Integer),
    optional("act_min", AttrKind::Float),
    optional("act_max", AttrKind::Float),
    optional("epilogue_map", AttrKind::Symbol),
];

const WRITES: Traits = Traits::READS.union(Traits::WRITES);

pub const OPS: &[OpDef] = &[
    OpDef::new("kernel.generic", "a loop nest reading and writing operands at affine maps of its indices")
        .operand_count(Count::Segments(GENERIC_SEGMENTS))
        .regions(Count::Exactly(1))
        .attrs(&[required("indexing_maps", AttrKind::Array), required("iterator_types", AttrKind::Array)])
        .traits(WRITES.union(Traits::RECURSIVE_EFFECTS))
        .verify(verify_generic)
        .syntax(Syntax::custom(parse_generic, Some(print_generic))),
    OpDef::new("kernel.yield", "the elements a kernel.generic body writes to its outputs")
        .operand_count(Count::AtLeast(0))
        .traits(Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE))
        .parents(&["kernel.generic"])
        .verify(verify_yield)
        .syntax(RETURN),
    OpDef::new("kernel.index", "the current index of one loop of the enclosing kernel.generic")
        .results(1)
        .attrs(&[required("dim", AttrKind::Integer)])
        .pure()
        .parents(&["kernel.generic"])
        .verify(verify_index)
        .syntax(Syntax::custom(parse_index, Some(print_index))),
    OpDef::new("kernel.matmul", "out = act(alpha * A x B + beta * bias + residual), batched")
        .operand_count(Count::Segments(EPILOGUE_SEGMENTS))
        .attrs(MATMUL_ATTRS)
        .traits(WRITES)
        .verify(verify_matmul)
        .syntax(EPILOGUE_SYNTAX),
    OpDef::new("kernel.conv", "an N-d convolution with groups, strides, dilations, pads and an epilogue")
        .operand_count(Count::Segments(EPILOGUE_SEGMENTS))
        .attrs(CONV_ATTRS)
        .traits(WRITES)
        .verify(verify_conv)
        .syntax(EPILOGUE_SYNTAX),
    OpDef::new("kernel.conv_planes", "an integer convolution over flattened planes in channel quads")
        .operand_count(Count::AtLeast(3))
        .attrs(&[
            required("tap_offsets", AttrKind::IntList),
            required("tap_quads", AttrKind::IntList),
            optional("input_unsigned", AttrKind::Unit),
            optional("weights_unsigned", AttrKind::Unit),
            optional("epilogue_map", AttrKind::Symbol),
            // Its products, as on an integer `kernel.matmul` (`kernel-choose-strategies`).
            optional("byte_dots", AttrKind::String),
            optional("pair_products", AttrKind::Unit),
        ])
        .traits(WRITES)
        .verify(verify_conv_planes),
    OpDef::new("kernel.copy", "the elements of a buffer into another of the same size, row-major")
        .operands(2)
        .traits(WRITES)
        .verify(verify_copy)
        .syntax(Syntax::custom(parse_copy, Some(print_copy))),
    OpDef::new("kernel.workspace_size", "the bytes a function's workspace needs (set by plan-workspace)")
        .operand_count(Count::AtLeast(0))
        .results(1)
        .attrs(&[required("function", AttrKind::Symbol)])
        .pure()
        .verify(verify_workspace_size),
];

/// What a `kernel.matmul` or `kernel.conv` applies to each result before storing it, in order:
/// `alpha * acc + beta * bias + residual`, then a clamp to `[act_min, act_max]` (ReLU, ReLU6),
/// then `epilogue_map`: a function of one element (`(f32) -> f32`, arith and math only: SiLU,
/// GELU, Sigmoid), which the kernel lowering computes in the registers the result is stored from.
#[derive(Clone, Debug, PartialEq)]
pub struct Epilogue {
    pub alpha: f64,
    pub beta: f64,
    pub has_bias: bool,
    pub has_residual: bool,
    pub act_min: Option<f64>,
    pub act_max: Option<f64>,
    /// The symbol of the function applied last (`epilogue_map`).
    pub map: Option<String>,
}

impl Epilogue {
    pub fn of(m: &Module, op: OpId) -> Epilogue {
        let float = |k: &str| {
            m.attr(op, k).and_then(|a| match a {
                Attribute::Float { value, .. } => Some(*value),
                Attribute::Integer { value, .. } => Some(*value as f64),
                _ => None,
            })
        };
        let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
        Epilogue {
            alpha: float("alpha").unwrap_or(1.0),
            beta: float("beta").unwrap_or(1.0),
            has_bias: seg.get(2) == Some(&1),
            has_residual: seg.get(3) == Some(&1),
            act_min: float("act_min"),
            act_max: float("act_max"),
            map: m.attr(op, "epilogue_map").and_then(Attribute::as_symbol).map(str::to_string),
        }
    }

    /// The activation as attributes (`act_min`, `act_max`) for `set_attr`.
    pub fn activation_attrs(min: Option<f64>, max: Option<f64>) -> Vec<(String, Attribute)> {
        let f = |v: f64| Attribute::Float { value: v as f32 as f64, ty: Type::f32() };
        let mut out = Vec::new();
        if let Some(v) = min {
            out.push(("act_min".to_string(), f(v)));
        }
        if let Some(v) = max {
            out.push(("act_max".to_string(), f(v)));
        }
        out
    }
}

/// The operands of a `kernel.matmul`/`kernel.conv` by role.
#[derive(Clone, Copy, Debug)]
pub struct EpilogueOperands {
    pub a: crate::ValueId,
    pub b: crate::ValueId,
    pub bias: Option<crate::ValueId>,
    pub residual: Option<crate::ValueId>,
    pub output: crate::ValueId,
}

impl EpilogueOperands {
    pub fn of(m: &Module, op: OpId) -> EpilogueOperands {
        let ops = &m.ops[op].operands;
        let e = Epilogue::of(m, op);
        let mut next = 2;
        let mut take = |present: bool| {
            present.then(|| {
                next += 1;
                ops[next - 1]
            })
        };
        let bias = take(e.has_bias);
        let residual = take(e.has_residual);
        EpilogueOperands { a: ops[0], b: ops[1], bias, residual, output: *ops.last().expect("an output") }
    }

    /// The operands in order with their `operandSegmentSizes`.
    pub fn into_spec(self, name: &str, span: crate::Span) -> OpSpec {
        let mut operands = vec![self.a, self.b];
        operands.extend(self.bias);
        operands.extend(self.residual);
        operands.push(self.output);
        let seg = segment_sizes(&[1, 1, self.bias.is_some() as usize, self.residual.is_some() as usize, 1]);
        OpSpec::new(name, span).operands(operands).attr("operandSegmentSizes", seg)
    }
}

/// How many iterations a loop of a `kernel.generic` makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopSize {
    Static(u64),
    /// Dimension `dim` of `operand`, known at run time.
    Dynamic {
        operand: crate::ValueId,
        dim: usize,
    },
}

impl LoopSize {
    pub fn as_static(self) -> Option<u64> {
        match self {
            LoopSize::Static(s) => Some(s),
            LoopSize::Dynamic { .. } => None,
        }
    }

    /// Whether two loops make as many iterations whatever the run-time dims: equal static sizes,
    /// or dynamic dims of buffers allocated with the same size value (or the same dim of the
    /// same buffer).
    pub fn same_as(self, other: LoopSize, m: &Module) -> bool {
        match (self, other) {
            (LoopSize::Static(a), LoopSize::Static(b)) => a == b,
            (LoopSize::Dynamic { operand: a, dim: i }, LoopSize::Dynamic { operand: b, dim: j }) => {
                (a, i) == (b, j) || alloc_size(m, a, i).is_some_and(|x| alloc_size(m, b, j) == Some(x))
            }
            _ => false,
        }
    }
}

/// The `index` value a `memref.alloc` was given for its dynamic dim `dim`.
fn alloc_size(m: &Module, buffer: crate::ValueId, dim: usize) -> Option<crate::ValueId> {
    let def = m.defining_op(buffer)?;
    if m.ops[def].name != "memref.alloc" {
        return None;
    }
    let shape = &m.ty(buffer).as_memref()?.shape;
    if shape.get(dim)?.is_some() {
        return None;
    }
    let k = shape[..dim].iter().filter(|d| d.is_none()).count();
    m.ops[def].operands.get(k).copied()
}

/// A `kernel.generic`'s structure.
#[derive(Clone, Debug)]
pub struct Generic {
    pub inputs: Vec<crate::ValueId>,
    pub outputs: Vec<crate::ValueId>,
    pub maps: Vec<AffineMap>,
    /// `true` for a parallel loop, `false` for a reduction.
    pub parallel: Vec<bool>,
    pub body: RegionId,
}

impl Generic {
    pub fn of(m: &Module, op: OpId) -> Option<Generic> {
        let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list)?;
        let ops = &m.ops[op].operands;
        let n_in = usize::try_from(*seg.first()?).ok()?;
        let maps = m
            .attr(op, "indexing_maps")?
            .as_array()?
            .iter()
            .map(|a| a.as_affine_map().cloned())
            .collect::<Option<Vec<_>>>()?;
        let parallel = m
            .attr(op, "iterator_types")?
            .as_array()?
            .iter()
            .map(|a| match a.as_str() {
                Some("parallel") => Some(true),
                Some("reduction") => Some(false),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Generic {
            inputs: ops.get(..n_in)?.to_vec(),
            outputs: ops.get(n_in..)?.to_vec(),
            maps,
            parallel,
            body: *m.ops[op].regions.first()?,
        })
    }

    /// The size of each loop: for loop `d`, the smallest static extent among the operand
    /// dimensions read at exactly `d` (an operand may be read or written in part: a slice of its
    /// input, a piece of a concatenation's output; a larger size would index out of that smallest
    /// one), else the first dynamic one, known at run time.
    pub fn loop_sizes(&self, m: &Module) -> Result<Vec<LoopSize>, String> {
        let operands = self.inputs.iter().chain(&self.outputs).copied();
        // One walk over the maps' results (in operand and position order, as the sizes combine),
        // not one per loop: a rank-4,000 tensor's maps would otherwise be read 4,000 times.
        let mut sizes: Vec<Option<LoopSize>> = vec![None; self.parallel.len()];
        for (v, map) in operands.zip(&self.maps) {
            let Some(mt) = m.ty(v).as_memref() else { continue };
            for (k, e) in map.results.iter().enumerate() {
                let AffineExpr::Dim(d) = *e else { continue };
                let Some(size) = sizes.get_mut(d as usize) else { continue };
                *size = Some(match (*size, mt.shape.get(k).copied().flatten()) {
                    (Some(LoopSize::Static(s)), Some(x)) => LoopSize::Static(s.min(x)),
                    (Some(LoopSize::Static(s)), None) => LoopSize::Static(s),
                    (_, Some(x)) => LoopSize::Static(x),
                    (Some(dynamic), None) => dynamic,
                    (None, None) => LoopSize::Dynamic { operand: v, dim: k },
                });
            }
        }
        sizes
            .into_iter()
            .enumerate()
            .map(|(d, size)| size.ok_or_else(|| format!("no operand dimension gives the size of loop {d}")))
            .collect()
    }

    /// The spec of a new `kernel.generic` (the body region still to fill).
    pub fn spec(&self, span: crate::Span) -> OpSpec {
        let iterators =
            self.parallel.iter().map(|&p| Attribute::String(if p { "parallel" } else { "reduction" }.into())).collect();
        OpSpec::new("kernel.generic", span)
            .operands(self.inputs.iter().chain(&self.outputs).copied())
            .attr("operandSegmentSizes", segment_sizes(&[self.inputs.len(), self.outputs.len()]))
            .attr("indexing_maps", Attribute::Array(self.maps.iter().cloned().map(Attribute::AffineMap).collect()))
            .attr("iterator_types", Attribute::Array(iterators))
            .region(self.body)
    }
}

fn memref(t: &Type) -> Result<&MemRefType, String> {
    t.as_memref().ok_or_else(|| format!("operands must be memrefs, found {t}"))
}

fn verify_generic(m: &Module, op: OpId) -> Result<(), String> {
    let g = Generic::of(m, op)
        .ok_or("needs indexing_maps (affine maps) and iterator_types (\"parallel\" or \"reduction\")")?;
    let operands: Vec<crate::ValueId> = g.inputs.iter().chain(&g.outputs).copied().collect();
    if g.maps.len() != operands.len() {
        return Err(format!("has {} operands but {} indexing maps", operands.len(), g.maps.len()));
    }
    if g.outputs.is_empty() {
        return Err("needs at least one output".into());
    }
    let loops = g.parallel.len() as u32;
    for (i, (&v, map)) in operands.iter().zip(&g.maps).enumerate() {
        let mt = memref(m.ty(v))?;
        if map.num_dims != loops || map.num_symbols != 0 {
            return Err(format!("map #{i} must take the {loops} loop indices and no symbols"));
        }
        if map.results.len() != mt.rank() {
            return Err(format!("map #{i} gives {} indices for an operand of rank {}", map.results.len(), mt.rank()));
        }
    }
    for (k, map) in g.maps[g.inputs.len()..].iter().enumerate() {
        let mut reads_reduction = false;
        for e in &map.results {
            e.for_each_dim(&mut |d| reads_reduction |= g.parallel.get(d as usize).is_some_and(|&p| !p));
        }
        if reads_reduction {
            return Err(format!("output #{k}'s map uses a reduction loop"));
        }
    }
    let sizes = g.loop_sizes(m)?;
    let empty = sizes.contains(&LoopSize::Static(0));
    // Indices over loops of run-time size are not checked here: the operands they come from
    // bound them.
    let dynamic: Vec<bool> = sizes.iter().map(|s| s.as_static().is_none()).collect();
    let sizes: Vec<u64> = sizes.iter().map(|s| s.as_static().unwrap_or(1)).collect();
    for (i, (&v, map)) in operands.iter().zip(&g.maps).enumerate().filter(|_| !empty) {
        let shape = &memref(m.ty(v))?.shape;
        for (k, e) in map.results.iter().enumerate() {
            let mut reads_dynamic = false;
            e.for_each_dim(&mut |d| reads_dynamic |= dynamic.get(d as usize).copied().unwrap_or(false));
            if reads_dynamic {
                continue;
            }
            let (lo, hi) =
                index_range(e, &sizes).ok_or(format!("map #{i}: index {k} is not a bounded affine function"))?;
            if let Some(dim) = shape[k] {
                if lo < 0 || hi >= dim as i128 {
                    return Err(format!("map #{i} reads index {k} from {lo} to {hi}, outside 0..{dim}"));
                }
            }
        }
    }
    let Some(&entry) = m.regions[g.body].blocks.first() else { return Err("needs a body".into()) };
    let args: Vec<&Type> = m.blocks[entry].args.iter().map(|&a| m.ty(a)).collect();
    let elems: Vec<&Type> = operands.iter().map(|&v| &*m.ty(v).as_memref().expect("checked").elem).collect();
    if args != elems {
        return Err("the body takes one element of each operand, in order".into());
    }
    Ok(())
}

/// The smallest and largest value of `e` over the loops' box (loop `d` from 0 to `sizes[d] - 1`),
/// by interval arithmetic; `None` for expressions that are not bounded that way (a product of
/// two loop indices, a division by a non-constant).
pub fn index_range(e: &AffineExpr, sizes: &[u64]) -> Option<(i128, i128)> {
    let constant = |e: &AffineExpr| match e {
        AffineExpr::Const(c) => Some(*c as i128),
        _ => None,
    };
    Some(match e {
        AffineExpr::Dim(d) => (0, *sizes.get(*d as usize)? as i128 - 1),
        AffineExpr::Symbol(_) => return None,
        AffineExpr::Const(c) => (*c as i128, *c as i128),
        AffineExpr::Add(a, b) => {
            let (x, y) = (index_range(a, sizes)?, index_range(b, sizes)?);
            (x.0 + y.0, x.1 + y.1)
        }
        AffineExpr::Mul(a, b) => {
            let (r, c) = match (constant(a), constant(b)) {
                (_, Some(c)) => (index_range(a, sizes)?, c),
                (Some(c), _) => (index_range(b, sizes)?, c),
                _ => return None,
            };
            if c >= 0 {
                (r.0 * c, r.1 * c)
            } else {
                (r.1 * c, r.0 * c)
            }
        }
        AffineExpr::FloorDiv(a, b) | AffineExpr::CeilDiv(a, b) => {
            let c = constant(b).filter(|&c| c > 0)?;
            let r = index_range(a, sizes)?;
            let up = matches!(e, AffineExpr::CeilDiv(..));
            let div = |x: i128| if up { -((-x).div_euclid(c)) } else { x.div_euclid(c) };
            (div(r.0), div(r.1))
        }
        AffineExpr::Mod(a, b) => {
            let c = constant(b).filter(|&c| c > 0)?;
            index_range(a, sizes)?;
            (0, c - 1)
        }
    })
}

fn enclosing_generic(m: &Module, op: OpId) -> Option<OpId> {
    m.ops[op].parent.and_then(|b| m.parent_op_of_block(b)).filter(|&p| m.ops[p].name == "kernel.generic")
}

fn verify_yield(m: &Module, op: OpId) -> Result<(), String> {
    let g = enclosing_generic(m, op).and_then(|p| Generic::of(m, p)).ok_or("must end a kernel.generic body")?;
    let want: Vec<&Type> = g.outputs.iter().map(|&v| &*m.ty(v).as_memref().expect("verified").elem).collect();
    if operand_types(m, op) != want {
        return Err("yields one element of each output, of its element type".into());
    }
    Ok(())
}

fn verify_index(m: &Module, op: OpId) -> Result<(), String> {
    let g = enclosing_generic(m, op).and_then(|p| Generic::of(m, p)).ok_or("must be inside a kernel.generic body")?;
    let dim = m.attr(op, "dim").and_then(Attribute::as_int).expect("checked by the table");
    if dim < 0 || dim as usize >= g.parallel.len() {
        return Err(format!("loop {dim} does not exist"));
    }
    if !result_types(m, op)[0].is_index() {
        return Err("the result is an index".into());
    }
    Ok(())
}

/// An operand's dims; `None` is a dimension known only at run time.
type Dims = [Option<u64>];

fn dims(t: &Type) -> Result<Vec<Option<u64>>, String> {
    Ok(memref(t)?.shape.clone())
}

/// Whether two dims may be equal: the same size, or one known only at run time.
fn agree(a: Option<u64>, b: Option<u64>) -> bool {
    a.is_none() || b.is_none() || a == b
}

fn agree_all(a: &[Option<u64>], b: &[Option<u64>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| agree(x, y))
}

/// `[2x?x4]`, as shapes are written in messages.
fn shape_text(shape: &[Option<u64>]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.map_or("?".to_string(), |d| d.to_string())).collect();
    format!("[{}]", dims.join("x"))
}

/// Whether `lead` broadcasts to `batch` (numpy rules, right-aligned).
fn broadcasts_to(lead: &[Option<u64>], batch: &[Option<u64>]) -> bool {
    lead.len() <= batch.len() && lead.iter().rev().zip(batch.iter().rev()).all(|(&a, &b)| agree(a, b) || a == Some(1))
}

/// The dims of `t`, which must all be known at compile time (weights, a convolution's
/// channels and spatial dims).
fn static_dims(t: &Type, what: &str) -> Result<Vec<u64>, String> {
    memref(t)?.shape.iter().map(|d| d.ok_or_else(|| format!("{what} must have static dims, not {t}"))).collect()
}

fn verify_epilogue_operands(m: &Module, op: OpId, out: &[Option<u64>]) -> Result<(), String> {
    let ops = EpilogueOperands::of(m, op);
    let elem = &memref(m.ty(ops.output))?.elem;
    if let Some(map) = Epilogue::of(m, op).map {
        verify_epilogue_map(m, &map, elem)?;
    }
    for v in [Some(ops.a), Some(ops.b), ops.bias, ops.residual].into_iter().flatten() {
        if memref(m.ty(v))?.elem != *elem {
            return Err("every operand has the output's element type".into());
        }
    }
    if let Some(r) = ops.residual {
        if !agree_all(&dims(m.ty(r))?, out) {
            return Err("the residual has the output's shape".into());
        }
    }
    Ok(())
}

/// Whether `op` may be part of an `epilogue_map`'s body: an arith or math operation without
/// regions (a pure function of its operands).
pub fn is_map_op(m: &Module, op: OpId) -> bool {
    let n = m.ops[op].name.as_str();
    (n.starts_with("arith.") || n.starts_with("math.")) && m.ops[op].regions.is_empty()
}

/// `epilogue_map` names a function of one element of the output's type whose body is one block
/// of arith and math operations (the kernel lowering copies it into its stores).
fn verify_epilogue_map(m: &Module, name: &str, elem: &Type) -> Result<(), String> {
    let func = m.lookup_symbol(name).filter(|&f| m.ops[f].name == "func.func");
    let func = func.ok_or_else(|| format!("epilogue_map @{name} names no function"))?;
    let ft = m.function_type(func).ok_or_else(|| format!("@{name} has no function type"))?;
    if ft.inputs.as_slice() != [elem.clone()] || ft.results.as_slice() != [elem.clone()] {
        return Err(format!("epilogue_map @{name} must take and return one {elem}"));
    }
    verify_map_body(m, func, name)
}

/// An epilogue map's body: one block of arith and math operations, then `func.return`.
fn verify_map_body(m: &Module, func: OpId, name: &str) -> Result<(), String> {
    let blocks = m.ops[func].regions.first().map(|&r| m.regions[r].blocks.clone()).unwrap_or_default();
    let [block] = blocks.as_slice() else { return Err(format!("epilogue_map @{name} must have one block")) };
    for &o in &m.blocks[*block].ops {
        let n = m.ops[o].name.as_str();
        if !is_map_op(m, o) && n != "func.return" {
            return Err(format!("epilogue_map @{name} may only compute with arith and math, not {n}"));
        }
    }
    Ok(())
}

/// Batch dims broadcast (numpy rules) where they are static; a dim known only at run time is
/// the output's (no broadcasting decided at run time).
/// Whether a `kernel.matmul` multiplies bytes into an i32 output: `out = A x B` with each byte
/// widened (zero-extended where `a_unsigned`/`b_unsigned` say so, else sign-extended), exactly.
pub fn is_integer_matmul(m: &Module, op: OpId) -> bool {
    let ops = EpilogueOperands::of(m, op);
    let elem = |v| m.ty(v).as_memref().map(|t| (*t.elem).clone());
    elem(ops.a) == Some(Type::i8()) && elem(ops.output) == Some(Type::i32())
}

/// An integer matmul has no epilogue; its B, if in quads, is `[ceil(N / w), ceil(K / 4), w, 4]`
/// and A `[.., M, K]`, and may be i16 (the bytes widened by `kernel-pack-weights`).
fn verify_integer_matmul(m: &Module, op: OpId, (a, b, out): (&Dims, &Dims, &Dims)) -> Result<(), String> {
    let ops = EpilogueOperands::of(m, op);
    let b_elem = memref(m.ty(ops.b))?.elem.as_ref().clone();
    let quads = m.attr(op, "b_quads").is_some();
    if b_elem != Type::i8() && !(quads && b_elem == Type::i16()) {
        return Err("an integer matmul multiplies i8 A and B (in quads, B may be i16) into i32".into());
    }
    if b_elem == Type::i16() && m.attr(op, "b_unsigned").is_some() {
        return Err("an i16 B holds its values: b_unsigned is for bytes".into());
    }
    let e = Epilogue::of(m, op);
    let transposed = m.attr(op, "transpose_a").is_some() || m.attr(op, "transpose_b").is_some();
    if e.has_bias || e.has_residual || e.act_min.is_some() || e.act_max.is_some() || e.map.is_some() || transposed {
        return Err("an integer matmul has no bias, residual, activation or transposes".into());
    }
    if e.alpha != 1.0 || e.beta != 1.0 || m.attr(op, "b_panels").is_some() {
        return Err("an integer matmul has no alpha, beta or b_panels".into());
    }
    let (ar, or) = (a.len() - 2, out.len() - 2);
    let Some(w) = m.attr(op, "b_quads").and_then(Attribute::as_int) else {
        let br = b.len() - 2;
        if !agree(a[ar + 1], b[br]) || !agree(a[ar], out[or]) || !agree(b[br + 1], out[or + 1]) {
            return Err(format!("shapes {} x {} -> {} do not multiply", shape_text(a), shape_text(b), shape_text(out)));
        }
        if !broadcasts_to(&a[..ar], &out[..or]) || !broadcasts_to(&b[..br], &out[..or]) {
            return Err("A's and B's batch dims must broadcast to the output's".into());
        }
        return Ok(());
    };
    let (n, k) = (out[or + 1], a[ar + 1]);
    let (Some(n), Some(k)) = (n, k) else { return Err("with b_quads, K and N are static".into()) };
    let want = [Some(n.div_ceil(w.max(1) as u64)), Some(k.div_ceil(4)), Some(w as u64), Some(4)];
    if w <= 0 || b != want || !agree(a[ar], out[or]) || !broadcasts_to(&a[..ar], &out[..or]) {
        return Err(format!(
            "with b_quads = {w}, A [.., M, K] x B [ceil(N/{w}), ceil(K/4), {w}, 4] -> [.., M, N]: {} x {} -> {}",
            shape_text(a),
            shape_text(b),
            shape_text(out)
        ));
    }
    Ok(())
}

fn verify_matmul(m: &Module, op: OpId) -> Result<(), String> {
    let ops = EpilogueOperands::of(m, op);
    let (a, b, out) = (dims(m.ty(ops.a))?, dims(m.ty(ops.b))?, dims(m.ty(ops.output))?);
    if a.len() < 2 || b.len() < 2 || out.len() < 2 {
        return Err("A, B and the output have rank 2 or more (batch dims first)".into());
    }
    if is_integer_matmul(m, op) {
        return verify_integer_matmul(m, op, (&a, &b, &out));
    }
    if m.attr(op, "b_quads").is_some() || m.attr(op, "a_unsigned").is_some() || m.attr(op, "b_unsigned").is_some() {
        return Err("b_quads, a_unsigned and b_unsigned belong to integer matmuls (i8 x i8 -> i32)".into());
    }
    let (ta, tb) = (m.attr(op, "transpose_a").is_some(), m.attr(op, "transpose_b").is_some());
    if let Some(w) = m.attr(op, "b_panels").and_then(Attribute::as_int) {
        return verify_panels(m, op, &ops, (&a, &b, &out), w as usize, ta || tb);
    }
    let (ar, br, or) = (a.len() - 2, b.len() - 2, out.len() - 2);
    let (am, ak) = if ta { (a[ar + 1], a[ar]) } else { (a[ar], a[ar + 1]) };
    let (bk, bn) = if tb { (b[br + 1], b[br]) } else { (b[br], b[br + 1]) };
    if !agree(ak, bk) || !agree(am, out[or]) || !agree(bn, out[or + 1]) {
        return Err(format!("shapes {} x {} -> {} do not multiply", shape_text(&a), shape_text(&b), shape_text(&out)));
    }
    if !broadcasts_to(&a[..ar], &out[..or]) || !broadcasts_to(&b[..br], &out[..or]) {
        return Err("A's and B's batch dims must broadcast to the output's".into());
    }
    if let Some(bias) = ops.bias {
        let s = dims(m.ty(bias))?;
        let fits = |d: Option<u64>, full: Option<u64>| d == Some(1) || agree(d, full);
        if s.len() != 2 || !fits(s[0], am) || !fits(s[1], bn) {
            return Err(format!("the bias is [M or 1, N or 1], not {}", shape_text(&s)));
        }
    }
    verify_epilogue_operands(m, op, &out)
}

/// A matmul whose B is in column panels of width `w`: B is `[ceil(N / w), K, w]`, A is not
/// transposed, and only A and the output have batch dims (and may have run-time sizes).
fn verify_panels(
    m: &Module,
    op: OpId,
    ops: &EpilogueOperands,
    (a, b, out): (&Dims, &Dims, &Dims),
    w: usize,
    transposed: bool,
) -> Result<(), String> {
    let (ar, or) = (a.len() - 2, out.len() - 2);
    let (n, k) = (out[or + 1], a[ar + 1]);
    let shapes = || format!("{} x {} -> {}", shape_text(a), shape_text(b), shape_text(out));
    let (Some(n), Some(k)) = (n, k) else { return Err(format!("with b_panels, K and N are static: {}", shapes())) };
    let panels = n.div_ceil(w.max(1) as u64);
    if transposed || w == 0 || b != [Some(panels), Some(k), Some(w as u64)] || !agree(a[ar], out[or]) {
        return Err(format!("with b_panels = {w}, A [.., M, K] x B [ceil(N/{w}), K, {w}] -> [.., M, N]: {}", shapes()));
    }
    if let Some(bias) = ops.bias {
        let s = dims(m.ty(bias))?;
        let fits = |d: Option<u64>, full: Option<u64>| d == Some(1) || agree(d, full);
        if s.len() != 2 || !fits(s[0], a[ar]) || !fits(s[1], Some(n)) {
            return Err(format!("the bias is [M or 1, N or 1], not {}", shape_text(&s)));
        }
    }
    verify_epilogue_operands(m, op, out)
}

/// A convolution's batch and spatial dims may be known only at run time; its channels and
/// weights are static. A spatial dim is static in both input and output or in neither, and
/// the output's size is checked where it is static.
fn verify_conv(m: &Module, op: OpId) -> Result<(), String> {
    if let Some(tile) = m.attr(op, "winograd") {
        return verify_winograd(m, op, tile.as_int());
    }
    let ops = EpilogueOperands::of(m, op);
    let (xd, od) = (dims(m.ty(ops.a))?, dims(m.ty(ops.output))?);
    let w = static_dims(m.ty(ops.b), "the weight")?;
    let ns = xd.len().saturating_sub(2);
    if ns == 0 || w.len() != xd.len() || od.len() != xd.len() {
        return Err("input, weight and output are [N, C, spatial...] with the same rank".into());
    }
    if !agree(xd[0], od[0]) {
        return Err(format!("the input and output batches differ: {} and {}", shape_text(&xd), shape_text(&od)));
    }
    let x = static_channels(&xd, "the input")?;
    let out = static_channels(&od, "the output")?;
    let list = |k: &str| m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default();
    let (strides, pads, dilations) = (list("strides"), list("pads"), list("dilations"));
    let group = m.attr(op, "group").and_then(Attribute::as_int).unwrap_or(0);
    if strides.len() != ns || dilations.len() != ns || pads.len() != 2 * ns {
        return Err(format!("strides and dilations need {ns} entries and pads {}", 2 * ns));
    }
    if strides.iter().chain(&dilations).any(|&s| s < 1) || pads.iter().any(|&p| p < 0) || group < 1 {
        return Err("strides, dilations and the group are positive, pads not negative".into());
    }
    let g = group as u64;
    if x[1] != w[1] * g || w[0] % g != 0 || out[1] != w[0] {
        return Err(format!(
            "channels do not match: input {}, weight {w:?}, group {g}, output {}",
            shape_text(&xd),
            shape_text(&od)
        ));
    }
    for q in 0..ns {
        match (xd[2 + q], od[2 + q]) {
            (Some(_), Some(_)) => {}
            (None, None) => continue,
            _ => {
                return Err(format!(
                    "spatial dim {q} is known only at run time in one of input {} and output {}",
                    shape_text(&xd),
                    shape_text(&od)
                ))
            }
        }
        let eff = (w[2 + q] as i128 - 1) * dilations[q] + 1;
        let padded = x[2 + q] as i128 + pads[q] + pads[q + ns];
        let want = (padded - eff).div_euclid(strides[q]) + 1;
        if padded < eff || want != out[2 + q] as i128 {
            return Err(format!("spatial dim {q}: the output should have {want}, not {}", out[2 + q]));
        }
    }
    if let Some(bias) = ops.bias {
        if dims(m.ty(bias))? != [Some(w[0])] {
            return Err(format!("the bias has one value per output channel ({})", w[0]));
        }
    }
    verify_epilogue_operands(m, op, &od)
}

/// A convolution with `winograd = 2` is a 2-d 3x3 one with unit strides and dilations, one
/// group and static planes, its weights `[4, 4, K, C]`.
fn verify_winograd(m: &Module, op: OpId, tile: Option<i128>) -> Result<(), String> {
    let ops = EpilogueOperands::of(m, op);
    // The batch may be known only at run time; the rest is static.
    let past_batch = |v, what: &str| -> Result<Vec<u64>, String> {
        let d = dims(m.ty(v))?;
        let rest: Option<Vec<u64>> = d.iter().skip(1).copied().collect();
        rest.map(|r| [&[d[0].unwrap_or(0)], &r[..]].concat())
            .ok_or_else(|| format!("{what} must have static dims past the batch, not {}", shape_text(&d)))
    };
    let (x, o) = (past_batch(ops.a, "the input")?, past_batch(ops.output, "the output")?);
    let w = static_dims(m.ty(ops.b), "the weight")?;
    if tile != Some(2) {
        return Err("winograd takes the output tile 2, F(2x2, 3x3)".into());
    }
    let list = |k: &str| m.attr(op, k).and_then(Attribute::as_int_list).unwrap_or_default();
    let (strides, pads, dilations) = (list("strides"), list("pads"), list("dilations"));
    let group = m.attr(op, "group").and_then(Attribute::as_int);
    if x.len() != 4 || o.len() != 4 || strides != [1, 1] || dilations != [1, 1] || group != Some(1) {
        return Err("winograd needs a 2-d convolution with unit strides and dilations and one group".into());
    }
    if w != [4, 4, o[1], x[1]]
        || !agree(dims(m.ty(ops.a))?[0], dims(m.ty(ops.output))?[0])
        || pads.len() != 4
        || pads.iter().any(|&p| p < 0)
    {
        return Err(format!("winograd weights are [4, 4, K, C]: input {x:?}, weight {w:?}, output {o:?}"));
    }
    for q in 0..2 {
        let want = x[2 + q] as i128 + pads[q] + pads[q + 2] - 2;
        if want != o[2 + q] as i128 {
            return Err(format!("spatial dim {q}: the output should have {want}, not {}", o[2 + q]));
        }
    }
    if let Some(bias) = ops.bias {
        if dims(m.ty(bias))? != [Some(o[1])] {
            return Err(format!("the bias has one value per output channel ({})", o[1]));
        }
    }
    let od = dims(m.ty(ops.output))?;
    verify_epilogue_operands(m, op, &od)
}

/// The dims of a `[N, C, spatial...]` operand with the dynamic ones (batch, spatial) as 0, the
/// channels required static.
fn static_channels(shape: &[Option<u64>], what: &str) -> Result<Vec<u64>, String> {
    if shape[1].is_none() {
        return Err(format!("{what} {}: the channels (dim 1) must be static", shape_text(shape)));
    }
    Ok(shape.iter().map(|d| d.unwrap_or(0)).collect())
}

/// The positions a micro-kernel of `kernel.conv_planes` reads at once: an input plane holds
/// whole groups of them past every tap's last output.
pub const PLANE_PANEL: u64 = 16;

/// `kernel.conv_planes(X, W, out)`: with X `[N, CQ, L, 4]` (quads of channels, each of a
/// plane flattened to `L` positions), W `[M, T, 4 * C4]` and out `[N, M, Q]`, all bytes but out
/// (i32), `out[n, m, q] = sum over taps t and c < 4 * C4 of W[m, t, c] * X[n, tap_quads[t] +
/// c / 4, q + tap_offsets[t], c % 4]`, each byte widened signed or, where
/// `input_unsigned`/`weights_unsigned` say, unsigned. W may also be i16, the weights' values
/// widened (`kernel-pack-weights` does it for CPUs that multiply 16-bit pairs). A stride-1 2-d convolution of an input
/// padded to rows of `w` is this with tap `(i, j)` at offset `i * w + j` and `q = oh * w + ow`
/// (the columns `ow` past the output's are sums the caller drops); strides become phases of
/// the input, each tap reading its phase's quads. The planes are long enough that panels of
/// [`PLANE_PANEL`] positions read whole: `L >= PLANE_PANEL * ceil(Q / PLANE_PANEL) + max
/// offset`.
///
/// With `epilogue_map = @f`, out holds `f(sum, e1[..], e2[..], ...)` instead, in f's result type:
/// the operands after out are the map's other arguments, each one element for every sum or one
/// per output channel (`M` elements, read at `m`). This is how a requantization (scales, zero
/// points, a bias per channel) is computed in the registers the sums are stored from.
fn verify_conv_planes(m: &Module, op: OpId) -> Result<(), String> {
    let operands = &m.ops[op].operands;
    let x = static_dims(m.ty(operands[0]), "the input")?;
    let w = static_dims(m.ty(operands[1]), "the weights")?;
    let out = static_dims(m.ty(operands[2]), "the output")?;
    let elem = |v| memref(m.ty(v)).map(|t| (*t.elem).clone());
    let weights = elem(operands[1])?;
    let byte_weights = weights == Type::i8();
    let map = m.attr(op, "epilogue_map").and_then(Attribute::as_symbol);
    let sums_stored = map.is_some() || elem(operands[2])? == Type::i32();
    if elem(operands[0])? != Type::i8() || !(byte_weights || weights == Type::i16()) || !sums_stored {
        return Err("kernel.conv_planes multiplies an i8 input by i8 or i16 weights into i32".into());
    }
    if !byte_weights && m.attr(op, "weights_unsigned").is_some() {
        return Err("i16 weights are their values: weights_unsigned is for bytes".into());
    }
    let (&[n, cq, l, 4], &[mm, t, k], &[on, om, q]) = (x.as_slice(), w.as_slice(), out.as_slice()) else {
        return Err(format!(
            "the input is [N, CQ, L, 4], the weights [M, T, K], the output [N, M, Q]: {x:?}, {w:?}, {out:?}"
        ));
    };
    match map {
        Some(name) => verify_planes_epilogue(m, op, name, mm)?,
        None if operands.len() > 3 => return Err("operands after the output are epilogue_map's arguments".into()),
        None => {}
    }
    let list = |key: &str| m.attr(op, key).and_then(Attribute::as_int_list).unwrap_or_default();
    let (offsets, quads) = (list("tap_offsets"), list("tap_quads"));
    if on != n || om != mm || k % 4 != 0 || offsets.len() as u64 != t || quads.len() as u64 != t {
        return Err(format!(
            "{t} taps (offsets and quads), K a multiple of 4, N and M agreeing: {x:?}, {w:?}, {out:?}"
        ));
    }
    if quads.iter().any(|&b| b < 0 || b as u64 + k / 4 > cq) || offsets.iter().any(|&o| o < 0) {
        return Err(format!(
            "each tap reads {} quads from its first, within the input's {cq}, at an offset >= 0",
            k / 4
        ));
    }
    let reach = q.div_ceil(PLANE_PANEL) * PLANE_PANEL + offsets.iter().copied().max().unwrap_or(0) as u64;
    if l < reach {
        return Err(format!("planes of {l} positions, fewer than the {reach} the last panel of the last tap reads"));
    }
    Ok(())
}

/// `epilogue_map @name` of a `kernel.conv_planes` with `channels` output channels: a function
/// `(i32, elements of the operands after the output...) -> output element`, of arith and math,
/// each such operand static with one element or one per channel.
fn verify_planes_epilogue(m: &Module, op: OpId, name: &str, channels: u64) -> Result<(), String> {
    let operands = &m.ops[op].operands;
    let mut inputs = vec![Type::i32()];
    for &v in &operands[3..] {
        let t = memref(m.ty(v))?;
        let count = t.shape.iter().copied().product::<Option<u64>>();
        if count != Some(1) && count != Some(channels) {
            return Err(format!(
                "an epilogue operand holds 1 element or {channels} (one per channel), not {}",
                m.ty(v)
            ));
        }
        inputs.push((*t.elem).clone());
    }
    let out = (*memref(m.ty(operands[2]))?.elem).clone();
    let func = m.lookup_symbol(name).filter(|&f| m.ops[f].name == "func.func");
    let func = func.ok_or_else(|| format!("epilogue_map @{name} names no function"))?;
    let ft = m.function_type(func).ok_or_else(|| format!("@{name} has no function type"))?;
    if ft.inputs != inputs || ft.results.as_slice() != [out.clone()] {
        let args: Vec<String> = inputs.iter().map(Type::to_string).collect();
        return Err(format!("epilogue_map @{name} must be ({}) -> {out}", args.join(", ")));
    }
    verify_map_body(m, func, name)
}

fn verify_copy(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let (a, b) = (memref(ins[0])?, memref(ins[1])?);
    let n = |t: &MemRefType| t.shape.iter().copied().product::<Option<u64>>();
    let counts_differ = matches!((n(a), n(b)), (Some(x), Some(y)) if x != y);
    if a.elem != b.elem || counts_differ {
        return Err(format!("copies between buffers of one element type and size, not {} and {}", ins[0], ins[1]));
    }
    Ok(())
}

fn verify_workspace_size(m: &Module, op: OpId) -> Result<(), String> {
    let sym = m.attr(op, "function").and_then(Attribute::as_symbol).expect("checked by the table");
    if m.lookup_symbol(sym).is_none() {
        return Err(format!("refers to undefined function '@{sym}'"));
    }
    if !result_types(m, op)[0].is_index() {
        return Err("the result is an index".into());
    }
    Ok(())
}

/// `KEYWORD(%a, %b : T, U)` if the keyword comes next: a group of operands with their types.
fn parse_group(p: &mut Parser, keyword: &str, span: crate::Span) -> PResult<Option<Vec<crate::ValueId>>> {
    if !p.eat_ident(keyword)? {
        return Ok(None);
    }
    p.expect_punct("(")?;
    let refs = p.parse_operand_refs()?;
    let mut types = Vec::new();
    if !refs.is_empty() {
        p.expect_punct(":")?;
        types = p.parse_type_list_no_parens()?;
    }
    p.expect_punct(")")?;
    if refs.len() != types.len() {
        return Err(Diagnostic::new(span, format!("{keyword}: {} operand(s) but {} type(s)", refs.len(), types.len())));
    }
    Ok(Some(p.resolve_all(&refs, &types)?))
}

fn expect_group(p: &mut Parser, keyword: &str, span: crate::Span) -> PResult<Vec<crate::ValueId>> {
    match parse_group(p, keyword, span)? {
        Some(values) => Ok(values),
        None => Err(Diagnostic::new(p.peek_span(), format!("expected '{keyword}('"))),
    }
}

/// `KEYWORD(%a : T)`, after a space unless it opens the op's custom form.
fn print_group(p: &mut OpPrinter, keyword: &str, values: &[crate::ValueId], first: bool) {
    let m = p.module();
    p.word(&format!("{}{keyword}(", if first { "" } else { " " }));
    p.values(values);
    p.word(" : ");
    let types: Vec<Type> = values.iter().map(|&v| m.ty(v).clone()).collect();
    p.types(&types.iter().collect::<Vec<_>>());
    p.word(")");
}

/// The attributes a custom form shows: all but the operand segments, which its groups imply.
fn shown_attrs(m: &Module, op: OpId) -> Vec<(String, Attribute)> {
    m.ops[op].attrs.iter().filter(|(k, _)| k != "operandSegmentSizes").cloned().collect()
}

/// The shown attributes as a trailing dictionary (if any).
fn print_trailing_attrs(p: &mut OpPrinter, op: OpId) {
    let shown = shown_attrs(p.module(), op);
    if !shown.is_empty() {
        p.word(" ");
        p.attr(&Attribute::Dict(shown));
    }
}

/// `kernel.generic {indexing_maps = [...], iterator_types = [...]} ins(%a : T) outs(%b : U) {
/// ^bb0(%x: f32, %y: f32): ... kernel.yield %z : f32 }`
fn parse_generic(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let attrs = p.parse_attr_dict()?;
    let inputs = parse_group(p, "ins", spec.span)?.unwrap_or_default();
    let outputs = parse_group(p, "outs", spec.span)?.unwrap_or_default();
    let region = p.parse_region(&[], false)?;
    let mut spec = spec
        .operands(inputs.iter().chain(&outputs).copied())
        .attr("operandSegmentSizes", segment_sizes(&[inputs.len(), outputs.len()]))
        .region(region);
    spec.attrs.extend(attrs);
    Ok(spec)
}

fn print_generic(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let g = Generic::of(m, op)?;
    p.attr(&Attribute::Dict(shown_attrs(m, op)));
    for (keyword, values) in [("ins", &g.inputs), ("outs", &g.outputs)] {
        if !values.is_empty() {
            print_group(p, keyword, values, false);
        }
    }
    p.word(" ");
    p.region_with_entry_args(g.body);
    Some(())
}

/// The custom form of `kernel.matmul` and `kernel.conv`, operands by role:
/// `ins(%a, %b : A, B) bias(%c : C) residual(%r : R) outs(%out : O) {attributes}`, bias and
/// residual only when present.
const EPILOGUE_SYNTAX: Syntax = Syntax::custom(parse_epilogue_op, Some(print_epilogue_op));

fn parse_epilogue_op(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let span = spec.span;
    let ins = expect_group(p, "ins", span)?;
    if ins.len() != 2 {
        return Err(Diagnostic::new(span, format!("ins: 2 operands (A and B), not {}", ins.len())));
    }
    let bias = parse_group(p, "bias", span)?.unwrap_or_default();
    let residual = parse_group(p, "residual", span)?.unwrap_or_default();
    let outs = expect_group(p, "outs", span)?;
    if bias.len() > 1 || residual.len() > 1 || outs.len() != 1 {
        return Err(Diagnostic::new(span, "bias and residual take one operand at most, outs exactly one"));
    }
    let attrs = parse_opt_attr_dict(p)?;
    let sizes = segment_sizes(&[1, 1, bias.len(), residual.len(), 1]);
    let mut spec =
        spec.operands(ins.into_iter().chain(bias).chain(residual).chain(outs)).attr("operandSegmentSizes", sizes);
    spec.attrs.extend(attrs);
    Ok(spec)
}

fn print_epilogue_op(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let e = Epilogue::of(m, op);
    // Unverified IR (`--no-verify-each`) may not match its segments: the generic form shows it.
    if m.ops[op].operands.len() != 3 + e.has_bias as usize + e.has_residual as usize {
        return None;
    }
    let ops = EpilogueOperands::of(m, op);
    print_group(p, "ins", &[ops.a, ops.b], true);
    for (keyword, v) in [("bias", ops.bias), ("residual", ops.residual)] {
        if let Some(v) = v {
            print_group(p, keyword, &[v], false);
        }
    }
    print_group(p, "outs", &[ops.output], false);
    print_trailing_attrs(p, op);
    Some(())
}

/// `kernel.copy ins(%a : A) outs(%b : B)`
fn parse_copy(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let span = spec.span;
    let (ins, outs) = (expect_group(p, "ins", span)?, expect_group(p, "outs", span)?);
    if ins.len() != 1 || outs.len() != 1 {
        return Err(Diagnostic::new(span, "kernel.copy takes one operand in ins and one in outs"));
    }
    Ok(spec.operands(ins.into_iter().chain(outs)))
}

fn print_copy(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let operands = p.module().ops[op].operands.clone();
    print_group(p, "ins", &operands[..1], true);
    print_group(p, "outs", &operands[1..], false);
    Some(())
}

/// `kernel.index 0 : index`
fn print_index(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &["dim"]) {
        return None;
    }
    let d = p.module().attr(op, "dim")?.as_int()?;
    p.word(&format!("{d} : index"));
    Some(())
}

fn parse_index(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (d, _) = p.parse_int("a loop number")?;
    if let (Tok::Punct(":"), _) = p.peek()? {
        p.next()?;
        p.parse_type()?;
    }
    Ok(spec.results([Type::Index]).attr("dim", Attribute::i64(d as i64)))
}
