//! Fusion at the kernel level, so intermediate buffers are never written:
//!
//! - `kernel-fuse-epilogue`: a `kernel.matmul`/`kernel.conv` whose output buffer's one reader is
//!   an elementwise `kernel.generic` that adds a same-shaped buffer (a residual), adds a per-column
//!   vector (a matmul's bias), or clamps (ReLU, Clip with constant bounds) takes that step into
//!   its epilogue and writes the generic's output itself;
//! - `kernel-fuse-elementwise`: an elementwise `kernel.generic` whose output buffer's one reader
//!   is another elementwise one over the same iteration space, reading it at the identity map, is
//!   computed inside the reader's body;
//! - `kernel-fuse-activation`: an elementwise `kernel.generic` that reads only a matmul's or
//!   convolution's output buffer (once or more) and computes with arith and math alone (SiLU
//!   `x * sigmoid(x)`, GELU, Sigmoid, Tanh) becomes the producer's `epilogue_map`: its body a
//!   private function of one element, which the kernel lowering copies into its stores. It runs
//!   after `kernel-fuse-elementwise`, which makes a chain such as SiLU's Sigmoid and Mul one
//!   generic.
//!
//! All need the intermediate to be a buffer of the function (`memref.alloc`) written once and
//! read once; the buffers then live at other times, which is why `plan-workspace` runs after.

use super::ops_named;
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::dialects::kernel::{Epilogue, EpilogueOperands, Generic};
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, Span, Type, ValueId};

pub struct FuseEpilogue;
pub struct FuseElementwise;
pub struct FuseActivation;

impl Pass for FuseActivation {
    fn name(&self) -> &'static str {
        "kernel-fuse-activation"
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut made = 0;
        while let Some((producer, generic)) = find_activation(&m) {
            fuse_activation(&mut m, producer, generic, &mut made);
        }
        Ok(m)
    }
}

/// A matmul or convolution without a map whose f32 output's one reader is a generic that
/// [`is_map_of`] it.
fn find_activation(m: &Module) -> Option<(OpId, OpId)> {
    for p in ops_named(m, &["kernel.matmul", "kernel.conv"]) {
        let t = EpilogueOperands::of(m, p).output;
        let f32_output = m.ty(t).as_memref().is_some_and(|mt| *mt.elem == Type::f32());
        if Epilogue::of(m, p).map.is_some() || !f32_output || !is_alloc(m, t) {
            continue;
        }
        let users = readers_and_writers(m, t);
        let [a, b] = users[..] else { continue };
        let reader = if a == p { b } else { a };
        let Some(g) = Generic::of(m, reader) else { continue };
        if is_map_of(m, &g, t) && !touched_between(m, p, reader, &[g.outputs[0]]) {
            return Some((p, reader));
        }
    }
    None
}

/// Whether generic `g` computes its one output, of `t`'s type, from `t` alone (read at the
/// identity; other inputs may be constant scalars, as an ONNX initializer `0.5` is) with arith
/// and math operations, not reading its output or its indices.
fn is_map_of(m: &Module, g: &Generic, t: ValueId) -> bool {
    let Some((args, result, body)) = body_parts(m, g) else { return false };
    let output_at_identity = g.maps[g.inputs.len()..].iter().all(is_identity);
    let shapes = g.outputs.len() == 1 && m.ty(g.outputs[0]) == m.ty(t) && output_at_identity;
    // A constant scalar read at no loop index (one read at an index would shrink that loop).
    let constant = |v: ValueId, map: &AffineMap| {
        scalar_constant(m, v).is_some() && map.results.iter().all(|e| matches!(e, AffineExpr::Const(_)))
    };
    let reads = |(&v, map): (&ValueId, &AffineMap)| v == t && is_identity(map);
    let reads_t = g.inputs.iter().zip(&g.maps).any(reads)
        && g.inputs.iter().zip(&g.maps).all(|(&v, map)| reads((&v, map)) || constant(v, map));
    let pure = body.iter().all(|&o| xcc_ir::dialects::kernel::is_map_op(m, o));
    // Every value the body uses, and the one it yields, is an input's element or computed in
    // the body: not the output's element, not a value from outside the generic.
    let inputs = &args[..g.inputs.len()];
    let local = |v: &ValueId| inputs.contains(v) || m.defining_op(*v).is_some_and(|d| body.contains(&d));
    let self_contained = body.iter().all(|&o| m.ops[o].operands.iter().all(local)) && local(&result);
    is_elementwise(g) && shapes && reads_t && pure && self_contained
}

/// The value of a constant global of one element (a scale, a zero point), as the attribute of
/// an `arith.constant`: what an epilogue map computes with instead of reading the buffer.
pub(super) fn constant_element(m: &Module, v: ValueId) -> Option<Attribute> {
    let elem = (*m.ty(v).as_memref()?.elem).clone();
    let (_, _, bytes) = super::pack::constant_global(m, v)?;
    let count: u64 = m.ty(v).as_memref()?.shape.iter().copied().product::<Option<u64>>()?;
    let width = match &elem {
        Type::Float(k) => k.width() as usize / 8,
        Type::Integer { width, .. } => *width as usize / 8,
        _ => return None,
    };
    if count != 1 || bytes.len() != width {
        return None;
    }
    let mut raw = [0u8; 8];
    raw[..width].copy_from_slice(&bytes);
    let bits = u64::from_le_bytes(raw);
    match elem {
        Type::Float(xcc_ir::types::FloatKind::F32) => {
            Some(Attribute::Float { value: f32::from_bits(bits as u32) as f64, ty: elem })
        }
        Type::Float(xcc_ir::types::FloatKind::F64) => Some(Attribute::Float { value: f64::from_bits(bits), ty: elem }),
        Type::Integer { .. } if (1..=8).contains(&width) => {
            // Sign-extended from its width, as MLIR prints an integer constant.
            let shift = 64 - 8 * width as u32;
            Some(Attribute::int((((bits << shift) as i64) >> shift) as i128, elem))
        }
        _ => None,
    }
}

/// The value of a constant f32 buffer of one element, as a constant's attribute.
fn scalar_constant(m: &Module, v: ValueId) -> Option<Attribute> {
    constant_element(m, v).filter(|a| matches!(a, Attribute::Float { ty, .. } if *ty == Type::f32()))
}

/// The generic's body becomes a function `(f32) -> f32` at the end of the module, named by the
/// producer's `epilogue_map`; the producer writes the generic's output.
fn fuse_activation(m: &mut Module, p: OpId, generic: OpId, made: &mut usize) {
    let g = Generic::of(m, generic).expect("a generic");
    let (args, result, body) = body_parts(m, &g).expect("checked");
    let span = m.ops[generic].span;
    let region = m.new_region();
    let block = m.append_block(region, span);
    let x = m.add_block_arg(block, Type::f32(), span);
    // The producer's output is the function's argument; a constant scalar input, a constant.
    let produced = EpilogueOperands::of(m, p).output;
    let mut values: HashMap<ValueId, ValueId> = HashMap::new();
    for (&arg, &input) in args.iter().zip(&g.inputs) {
        let value = match scalar_constant(m, input).filter(|_| input != produced) {
            Some(c) => {
                let spec = xcc_ir::OpSpec::new("arith.constant", span).results([Type::f32()]).attr("value", c);
                let op = m.build(block, spec);
                m.result(op, 0)
            }
            None => x,
        };
        values.insert(arg, value);
    }
    for op in body {
        let copy = m.clone_op(op, &mut values);
        m.append_op(block, copy);
    }
    let ret = xcc_ir::OpSpec::new("func.return", span).operands([*values.get(&result).unwrap_or(&result)]);
    m.build(block, ret);
    let f32_to_f32 = xcc_ir::types::FunctionType { inputs: vec![Type::f32()], results: vec![Type::f32()] };
    let name = add_private_function(m, ("xcc_epilogue_map", made), f32_to_f32, region, span);
    let z = g.outputs[0];
    let mut ops = EpilogueOperands::of(m, p);
    let t = ops.output;
    ops.output = z;
    hoist_before(m, z, p);
    let kind = m.ops[p].name.clone();
    let spec = ops.into_spec(&kind, m.ops[p].span);
    m.ops[p].operands = spec.operands;
    m.set_attr(p, "epilogue_map", Attribute::symbol(name));
    m.erase_op(generic);
    remove_buffer(m, t);
}

impl Pass for FuseEpilogue {
    fn name(&self) -> &'static str {
        "kernel-fuse-epilogue"
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        while let Some((producer, generic, step)) = find_epilogue(&m) {
            apply_epilogue(&mut m, producer, generic, step);
        }
        Ok(m)
    }
}

impl Pass for FuseElementwise {
    fn name(&self) -> &'static str {
        "kernel-fuse-elementwise"
    }

    /// Sweeps the generics in order, each consumer taking its producers one after another (a
    /// chain fuses in one sweep, since every producer comes before its consumer), until a sweep
    /// fuses nothing: a fusion can free an earlier pair by moving a use of its buffers away.
    /// Who uses each buffer, and where each operation stands in its block, are kept up to date
    /// rather than found again by walking the module or the block, so a chain of N generics
    /// costs N steps, not N walks.
    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut state = FusionState {
            users: BufferUsers::of(&m),
            output_unread: HashSet::new(),
            positions: HashMap::new(),
            with_erased: HashSet::new(),
        };
        loop {
            let mut fused_any = false;
            state.positions = block_positions(&m);
            for c in ops_named(&m, &["kernel.generic"]) {
                let mut consumer = c;
                while m.ops[consumer].parent.is_some() {
                    let Some((producer, input)) = find_producer(&m, consumer, &state) else { break };
                    consumer = fuse_generics(&mut m, producer, consumer, input, &mut state);
                    fused_any = true;
                }
            }
            state.remove_erased(&mut m);
            if !fused_any {
                return Ok(m);
            }
        }
    }
}

/// What kernel-fuse-elementwise keeps between fusions.
struct FusionState {
    users: BufferUsers,
    /// Fused generics known not to read their outputs' elements (so not scanned again).
    output_unread: HashSet<OpId>,
    /// Each operation's index in its block during a sweep. Erased operations keep their places
    /// until the sweep ends (detached, with no operands) and a fused generic takes its
    /// consumer's, so no index moves: removing each from the middle of a block of N operations
    /// would make a chain quadratic.
    positions: HashMap<OpId, usize>,
    /// The blocks holding erased operations, cleared at the end of the sweep.
    with_erased: HashSet<BlockId>,
}

impl FusionState {
    /// Detaches `op`, leaving its place in the block until [`FusionState::remove_erased`], and
    /// frees what it held: a chain of N nodes makes N - 1 fused generics that are replaced in turn.
    fn erase(&mut self, m: &mut Module, op: OpId) {
        if let Some(b) = m.ops[op].parent {
            self.with_erased.insert(b);
        }
        m.ops[op] = xcc_ir::module::OpData::detached();
    }

    /// Drops the erased operations' places from their blocks.
    fn remove_erased(&mut self, m: &mut Module) {
        for b in self.with_erased.drain() {
            let ops = std::mem::take(&mut m.blocks[b].ops);
            m.blocks[b].ops = ops.into_iter().filter(|&o| m.ops[o].parent == Some(b)).collect();
        }
    }

    /// Whether `a` comes before `b` in the same block.
    fn before(&self, m: &Module, a: OpId, b: OpId) -> bool {
        let same_block = m.ops[a].parent.is_some() && m.ops[a].parent == m.ops[b].parent;
        same_block && self.positions.get(&a).zip(self.positions.get(&b)).is_some_and(|(ia, ib)| ia < ib)
    }

    /// Whether an operation strictly between `a` and `b` (same block, `a` first) uses one of
    /// `values`.
    fn touched_between(&self, m: &Module, a: OpId, b: OpId, values: &[ValueId]) -> bool {
        let (Some(block), Some(&ia), Some(&ib)) = (m.ops[a].parent, self.positions.get(&a), self.positions.get(&b))
        else {
            return true;
        };
        let between = &m.blocks[block].ops[ia + 1..ib];
        between.iter().any(|&o| m.ops[o].parent == Some(block) && uses_any(m, o, values))
    }
}

/// Each operation's index in its block, for every block of the module.
fn block_positions(m: &Module) -> HashMap<OpId, usize> {
    let mut blocks = vec![m.body_block()];
    let regions_of = |op: OpId, blocks: &mut Vec<BlockId>| {
        blocks.extend(m.ops[op].regions.iter().flat_map(|&r| m.regions[r].blocks.iter().copied()))
    };
    for &top in m.top_ops() {
        regions_of(top, &mut blocks);
        m.walk_nested(top, &mut |op| regions_of(op, &mut blocks));
    }
    let mut positions = HashMap::new();
    for b in blocks {
        positions.extend(m.blocks[b].ops.iter().enumerate().map(|(i, &o)| (o, i)));
    }
    positions
}

/// The operations that use each buffer (memref value), nested ones included, as
/// [`Module::users`] would list them.
struct BufferUsers(HashMap<ValueId, Vec<OpId>>);

impl BufferUsers {
    fn of(m: &Module) -> Self {
        let mut users: HashMap<ValueId, Vec<OpId>> = HashMap::new();
        for &top in m.top_ops() {
            let mut record = |op: OpId| {
                for &v in m.ops[op].operands.iter().filter(|&&v| m.ty(v).as_memref().is_some()) {
                    let list = users.entry(v).or_default();
                    if list.last() != Some(&op) {
                        list.push(op);
                    }
                }
            };
            record(top);
            m.walk_nested(top, &mut record);
        }
        BufferUsers(users)
    }

    /// The users of `v` other than its deallocations.
    fn readers_and_writers(&self, m: &Module, v: ValueId) -> Vec<OpId> {
        let list = self.0.get(&v).map_or(&[][..], |l| &l[..]);
        list.iter().copied().filter(|&u| m.ops[u].name != "memref.dealloc").collect()
    }

    /// `fused` took the place of `replaced` as a user of its operands.
    fn replace(&mut self, m: &Module, replaced: &[OpId], fused: OpId) {
        for &v in &m.ops[fused].operands {
            if let Some(list) = self.0.get_mut(&v) {
                list.retain(|u| !replaced.contains(u));
                if !list.contains(&fused) {
                    list.push(fused);
                }
            }
        }
    }
}

/// A private function with body `region`, at the end of the module, named `prefix` and the next
/// count of `made` that names nothing yet; its name.
pub(super) fn add_private_function(
    m: &mut Module,
    (prefix, made): (&str, &mut usize),
    ty: xcc_ir::types::FunctionType,
    region: xcc_ir::RegionId,
    span: Span,
) -> String {
    let name = loop {
        *made += 1;
        let name = format!("{prefix}{made}");
        if m.lookup_symbol(&name).is_none() {
            break name;
        }
    };
    let func = xcc_ir::OpSpec::new("func.func", span)
        .attr("sym_name", Attribute::String(name.clone()))
        .attr("function_type", Attribute::Type(Type::Function(ty)))
        .attr("sym_visibility", Attribute::String("private".into()))
        .region(region);
    let top = m.body_block();
    m.build(top, func);
    name
}

/// The users of a buffer other than its deallocation.
pub(super) fn readers_and_writers(m: &Module, v: ValueId) -> Vec<OpId> {
    m.users(v).into_iter().filter(|&u| m.ops[u].name != "memref.dealloc").collect()
}

pub(super) fn is_alloc(m: &Module, v: ValueId) -> bool {
    m.defining_op(v).is_some_and(|d| m.ops[d].name == "memref.alloc")
}

/// Whether every generic loop is parallel and every operand is read at the identity or a
/// broadcast of it.
pub(super) fn is_elementwise(g: &Generic) -> bool {
    g.parallel.iter().all(|&p| p)
}

fn is_identity(map: &AffineMap) -> bool {
    map.num_symbols == 0
        && map.results.len() == map.num_dims as usize
        && map.results.iter().enumerate().all(|(i, e)| *e == AffineExpr::Dim(i as u32))
}

/// Whether any top-level operation strictly between `a` and `b` (same block) uses one of `values`.
pub(super) fn touched_between(m: &Module, a: OpId, b: OpId, values: &[ValueId]) -> bool {
    let (Some((block, ia)), Some((block_b, ib))) = (m.op_index(a), m.op_index(b)) else { return true };
    if block != block_b || ia >= ib {
        return true;
    }
    m.blocks[block].ops[ia + 1..ib].iter().any(|&o| uses_any(m, o, values))
}

/// Whether `op` or an operation nested in it uses one of `values`.
fn uses_any(m: &Module, op: OpId, values: &[ValueId]) -> bool {
    let mut hit = m.ops[op].operands.iter().any(|v| values.contains(v));
    m.walk_nested(op, &mut |inner| hit |= m.ops[inner].operands.iter().any(|v| values.contains(v)));
    hit
}

/// The single yielded value of a one-output generic body and the body's block arguments.
pub(super) fn body_parts(m: &Module, g: &Generic) -> Option<(Vec<ValueId>, ValueId, Vec<OpId>)> {
    let entry = *m.regions[g.body].blocks.first()?;
    let ops = m.blocks[entry].ops.clone();
    let (&last, body) = ops.split_last()?;
    if m.ops[last].operands.len() != 1 {
        return None;
    }
    Some((m.blocks[entry].args.clone(), m.ops[last].operands[0], body.to_vec()))
}

fn float_constant(m: &Module, v: ValueId) -> Option<f64> {
    let d = m.defining_op(v)?;
    if m.ops[d].name != "arith.constant" {
        return None;
    }
    match m.attr(d, "value")? {
        Attribute::Float { value, .. } => Some(*value),
        _ => None,
    }
}

/// What a generic does to the producer's output, if it can join an epilogue.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Clamp to these bounds.
    Clamp(Option<f64>, Option<f64>),
    /// Add a buffer of the output's shape.
    Residual(ValueId),
    /// Add a vector along the last dimension (a matmul's per-column bias).
    ColumnBias(ValueId),
}

/// `max(min(x, hi), lo)` chains over the input argument, operations defined in the body only.
fn match_clamp(m: &Module, arg: ValueId, result: ValueId, body: &[OpId]) -> Option<Step> {
    let (mut lo, mut hi) = (None, None);
    let mut v = result;
    while v != arg {
        let d = m.defining_op(v).filter(|d| body.contains(d))?;
        let ops = &m.ops[d].operands;
        let (x, c) = match ops.as_slice() {
            [x, c] if float_constant(m, *c).is_some() => (*x, float_constant(m, *c)?),
            [c, x] if float_constant(m, *c).is_some() => (*x, float_constant(m, *c)?),
            _ => return None,
        };
        match m.ops[d].name.as_str() {
            "arith.maximumf" if lo.is_none() => lo = Some(c),
            "arith.minimumf" if hi.is_none() => hi = Some(c),
            _ => return None,
        }
        v = x;
    }
    // Each op of the body must be part of the chain or a constant it uses.
    let chain_ops = body.iter().filter(|&&o| m.ops[o].name != "arith.constant").count();
    (chain_ops == lo.is_some() as usize + hi.is_some() as usize && chain_ops > 0).then_some(Step::Clamp(lo, hi))
}

fn match_step(m: &Module, g: &Generic, t: ValueId) -> Option<Step> {
    let (args, result, body) = body_parts(m, g)?;
    let ti = g.inputs.iter().position(|&v| v == t)?;
    if g.inputs.iter().filter(|&&v| v == t).count() != 1 {
        return None;
    }
    if !is_identity(&g.maps[ti]) || !is_identity(g.maps.last()?) || g.outputs.len() != 1 {
        return None;
    }
    let elem = &*m.ty(t).as_memref()?.elem;
    if !elem.is_float() || m.ty(g.outputs[0]) != m.ty(t) {
        return None;
    }
    match g.inputs.len() {
        1 => match_clamp(m, args[0], result, &body),
        2 => {
            let other = 1 - ti;
            let add = m.defining_op(result)?;
            let operands = &m.ops[add].operands;
            let adds_both = m.ops[add].name == "arith.addf"
                && body.len() == 1
                && (operands[..] == [args[ti], args[other]] || operands[..] == [args[other], args[ti]]);
            if !adds_both {
                return None;
            }
            let r = g.inputs[other];
            let rank = g.maps[other].num_dims;
            if r == t {
                return None;
            }
            if is_identity(&g.maps[other]) && m.ty(r) == m.ty(t) {
                Some(Step::Residual(r))
            } else if g.maps[other].results == [AffineExpr::Dim(rank - 1)] && m.ty(r).as_memref()?.shape[0].is_some() {
                Some(Step::ColumnBias(r))
            } else {
                None
            }
        }
        _ => None,
    }
}

fn find_epilogue(m: &Module) -> Option<(OpId, OpId, Step)> {
    for p in ops_named(m, &["kernel.matmul", "kernel.conv"]) {
        let ops = EpilogueOperands::of(m, p);
        let ep = Epilogue::of(m, p);
        let t = ops.output;
        if !is_alloc(m, t) {
            continue;
        }
        let users = readers_and_writers(m, t);
        let [a, b] = users[..] else { continue };
        let reader = if a == p { b } else { a };
        if m.ops[reader].name != "kernel.generic" {
            continue;
        }
        let Some(g) = Generic::of(m, reader) else { continue };
        if !is_elementwise(&g) {
            continue;
        }
        let Some(step) = match_step(m, &g, t) else { continue };
        // A map applies last: nothing may join the epilogue after it.
        let activated = ep.act_min.is_some() || ep.act_max.is_some() || ep.map.is_some();
        let fits = match step {
            Step::Clamp(..) => !activated,
            Step::Residual(r) => !activated && !ep.has_residual && !touched_between(m, p, reader, &[r]),
            Step::ColumnBias(r) => {
                m.ops[p].name == "kernel.matmul"
                    && !activated
                    && !ep.has_bias
                    && !ep.has_residual
                    && ep.alpha == 1.0
                    && !touched_between(m, p, reader, &[r])
            }
        };
        let z = g.outputs[0];
        if fits && !touched_between(m, p, reader, &[z]) {
            return Some((p, reader, step));
        }
    }
    None
}

fn apply_epilogue(m: &mut Module, p: OpId, generic: OpId, step: Step) {
    let z = Generic::of(m, generic).expect("a generic").outputs[0];
    let mut ops = EpilogueOperands::of(m, p);
    let t = ops.output;
    ops.output = z;
    let mut extra = Vec::new();
    match step {
        Step::Clamp(lo, hi) => extra = Epilogue::activation_attrs(lo, hi),
        Step::Residual(r) => {
            hoist_before(m, r, p);
            ops.residual = Some(r);
        }
        Step::ColumnBias(r) => {
            hoist_before(m, r, p);
            // The vector seen as the [1, N] bias matrix.
            let n = m.ty(r).as_memref().expect("memref").shape[0].expect("static") as usize;
            let mut c = super::Cursor::new(m, Span::UNKNOWN);
            let as_row = crate::builder::LoopBuilder::reshaped(&mut c, r, &[1, n]);
            c.finish(p);
            ops.bias = Some(as_row);
        }
    }
    hoist_before(m, z, p);
    let name = m.ops[p].name.clone();
    let spec = ops.into_spec(&name, m.ops[p].span);
    let d = &mut m.ops[p];
    d.operands = spec.operands;
    for (k, v) in spec.attrs.into_iter().chain(extra) {
        m.set_attr(p, k, v);
    }
    // The producer now writes where the generic did (nothing in between touches that buffer),
    // and the generic's step is its epilogue.
    m.erase_op(generic);
    remove_buffer(m, t);
}

/// Makes `v` available before `anchor`: if the operation defining it comes later in the same
/// block (a buffer allocated or a view made just before the fused generic), it moves in front of
/// `anchor`, after what it needs. Such operations (allocations, globals, views) have no effect
/// that moving them earlier changes.
pub(super) fn hoist_before(m: &mut Module, v: ValueId, anchor: OpId) {
    let Some(d) = m.defining_op(v) else { return };
    let (Some((b, i)), Some((ba, ia))) = (m.op_index(d), m.op_index(anchor)) else { return };
    if b != ba || i < ia {
        return;
    }
    for operand in m.ops[d].operands.clone() {
        hoist_before(m, operand, anchor);
    }
    let (_, i) = m.op_index(d).expect("in a block");
    m.blocks[b].ops.remove(i);
    let (_, ia) = m.op_index(anchor).expect("in a block");
    m.blocks[b].ops.insert(ia, d);
}

/// Erases an allocation nobody uses any more, with its deallocations.
pub(super) fn remove_buffer(m: &mut Module, v: ValueId) {
    if !readers_and_writers(m, v).is_empty() {
        return;
    }
    for u in m.users(v) {
        m.erase_op(u);
    }
    if let Some(d) = m.defining_op(v) {
        m.erase_op(d);
    }
}

/// Whether some output of `g` has a dim larger than its loop's size.
fn writes_in_part(m: &Module, g: &Generic) -> bool {
    let Ok(sizes) = g.loop_sizes(m) else { return true };
    g.outputs.iter().any(|&o| {
        let shape = m.ty(o).as_memref().map(|t| t.shape.clone()).unwrap_or_default();
        shape.iter().zip(&sizes).any(|(d, s)| match (d, s) {
            (Some(d), xcc_ir::dialects::kernel::LoopSize::Static(n)) => d != n,
            _ => false,
        })
    })
}

/// A producer generic that consumer `c` can compute inside its body, and the buffer between them.
fn find_producer(m: &Module, c: OpId, state: &FusionState) -> Option<(OpId, ValueId)> {
    let gc = Generic::of(m, c)?;
    // The consumer's outputs, at the identity, keep giving every loop its size. A consumer
    // that writes part of a larger output (a Pad's interior) takes no producer: a convolution's
    // requantization then stays free to join the convolution's stores.
    if !is_elementwise(&gc) || !gc.maps[gc.inputs.len()..].iter().all(is_identity) || writes_in_part(m, &gc) {
        return None;
    }
    for (k, &t) in gc.inputs.iter().enumerate() {
        let once = gc.inputs.iter().filter(|&&v| v == t).count() == 1;
        if !once || !is_identity(&gc.maps[k]) || !is_alloc(m, t) {
            continue;
        }
        let users = state.users.readers_and_writers(m, t);
        let [a, b] = users[..] else { continue };
        let p = if a == c { b } else { a };
        if p == c || m.ops[p].name != "kernel.generic" {
            continue;
        }
        let Some(gp) = Generic::of(m, p) else { continue };
        if !state.output_unread.contains(&p) && reads_output(m, &gp) {
            continue;
        }
        if !within_fusion_limits(m, &gp, &gc) {
            continue;
        }
        let same_space = same_sizes(m, &gp, &gc) && same_sizes(m, &fused_operands(&gp, &gc, k), &gc);
        let single = gp.outputs == [t] && is_identity(&gp.maps[gp.inputs.len()]);
        let before = state.before(m, p, c);
        if is_elementwise(&gp) && same_space && single && before && !state.touched_between(m, p, c, &gp.inputs) {
            return Some((p, t));
        }
    }
    None
}

/// The most inputs a fused generic may read, and the most operations its body may hold: past
/// them, LLVM's cost for the one loop body grows faster than the body (a chain of 10,000
/// elementwise nodes fused into one took 12 times as long as one of 2,500). Real models' fused
/// bodies hold a few dozen operations over a few inputs.
const MAX_FUSED_INPUTS: usize = 64;
const MAX_FUSED_BODY_OPS: usize = 512;

fn within_fusion_limits(m: &Module, gp: &Generic, gc: &Generic) -> bool {
    let body_ops = |g: &Generic| m.regions[g.body].blocks.iter().map(|&b| m.blocks[b].ops.len()).sum::<usize>();
    gp.inputs.len() + gc.inputs.len() <= MAX_FUSED_INPUTS + 1 && body_ops(gp) + body_ops(gc) <= MAX_FUSED_BODY_OPS
}

/// Whether two generics' loops make as many iterations whatever the run-time dims.
fn same_sizes(m: &Module, a: &Generic, b: &Generic) -> bool {
    match (a.loop_sizes(m), b.loop_sizes(m)) {
        (Ok(a), Ok(b)) => a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.same_as(*y, m)),
        _ => false,
    }
}

/// The operands a fusion would leave (the consumer's inputs but its `k`th, the producer's
/// inputs, the consumer's outputs), to check that they still size every loop as the consumer's
/// did: a consumer writing part of its output (a piece of a Concat) takes a loop's size from the
/// input it reads whole, and a producer reading part of its input (a Slice) would not give it.
fn fused_operands(gp: &Generic, gc: &Generic, k: usize) -> Generic {
    let consumer = gc.inputs.iter().zip(&gc.maps).enumerate().filter(|&(i, _)| i != k).map(|(_, x)| x);
    let (inputs, mut maps): (Vec<ValueId>, Vec<AffineMap>) =
        consumer.chain(gp.inputs.iter().zip(&gp.maps)).map(|(&v, map)| (v, map.clone())).unzip();
    maps.extend(gc.maps[gc.inputs.len()..].iter().cloned());
    Generic { inputs, outputs: gc.outputs.clone(), maps, parallel: gc.parallel.clone(), body: gc.body }
}

/// One generic computing both, returned: the producer's body, extended by the consumer's with
/// the produced element for its argument `t`. The producer's block is reused (its arguments
/// renumbered) and only the consumer's operations move, so a chain of fusions costs the length
/// of the chain, not the sum of the growing bodies.
fn fuse_generics(m: &mut Module, p: OpId, c: OpId, t: ValueId, state: &mut FusionState) -> OpId {
    let (gp, gc) = (Generic::of(m, p).expect("generic"), Generic::of(m, c).expect("generic"));
    let ti = gc.inputs.iter().position(|&v| v == t).expect("an input");
    // The fused operands: the consumer's other inputs, the producer's inputs not already among
    // them (same buffer, same map), then the consumer's outputs.
    let mut inputs: Vec<(ValueId, AffineMap)> = Vec::new();
    let slot_of = |v: ValueId, map: &AffineMap, inputs: &mut Vec<(ValueId, AffineMap)>| -> usize {
        match inputs.iter().position(|(w, mp)| *w == v && mp == map) {
            Some(i) => i,
            None => {
                inputs.push((v, map.clone()));
                inputs.len() - 1
            }
        }
    };
    let consumer_slots: Vec<Option<usize>> = gc
        .inputs
        .iter()
        .zip(&gc.maps)
        .enumerate()
        .map(|(k, (&v, map))| (k != ti).then(|| slot_of(v, map, &mut inputs)))
        .collect();
    let producer_slots: Vec<usize> =
        gp.inputs.iter().zip(&gp.maps).map(|(&v, map)| slot_of(v, map, &mut inputs)).collect();
    let span = m.ops[c].span;
    let block = m.regions[gp.body].blocks[0];
    let p_args = m.blocks[block].args.clone();
    // A slot's argument is the producer's for that input where it has one (the first, if it
    // reads the buffer twice; uses of the second are renamed), else a new one.
    let mut slot_args: Vec<Option<ValueId>> = vec![None; inputs.len()];
    let mut renamed: HashMap<ValueId, ValueId> = HashMap::new();
    for (k, &slot) in producer_slots.iter().enumerate() {
        match slot_args[slot] {
            None => slot_args[slot] = Some(p_args[k]),
            Some(first) => _ = renamed.insert(p_args[k], first),
        }
    }
    let elem = |m: &Module, v: ValueId| (*m.ty(v).as_memref().expect("memref").elem).clone();
    let mut args = Vec::new();
    for (slot, arg) in slot_args.into_iter().enumerate() {
        args.push(arg.unwrap_or_else(|| m.add_block_arg(block, elem(m, inputs[slot].0), span)));
    }
    for &out in &gc.outputs {
        args.push(m.add_block_arg(block, elem(m, out), span));
    }
    let n = inputs.len();
    m.set_block_args(block, args.clone());
    if !renamed.is_empty() {
        rename_in_block(m, block, &renamed);
    }
    // The producer's yield gives the element; the consumer's body follows it.
    let p_yield = m.blocks[block].ops.pop().expect("a terminated body");
    m.ops[p_yield].parent = None;
    let produced = m.ops[p_yield].operands[0];
    let produced = *renamed.get(&produced).unwrap_or(&produced);
    let c_entry = m.regions[gc.body].blocks[0];
    let c_args = m.blocks[c_entry].args.clone();
    let mut map: HashMap<ValueId, ValueId> = HashMap::new();
    for (k, &a) in c_args[..gc.inputs.len()].iter().enumerate() {
        map.insert(a, if k == ti { produced } else { args[consumer_slots[k].expect("a slot")] });
    }
    for (j, &a) in c_args[gc.inputs.len()..].iter().enumerate() {
        map.insert(a, args[n + j]);
    }
    let yielded = inline(m, gc.body, block, &mut map);
    m.build(block, xcc_ir::OpSpec::new("kernel.yield", span).operands(yielded));
    let fused = Generic {
        inputs: inputs.iter().map(|(v, _)| *v).collect(),
        outputs: gc.outputs.clone(),
        maps: inputs.iter().map(|(_, mp)| mp.clone()).chain(gc.maps[gc.inputs.len()..].iter().cloned()).collect(),
        parallel: gc.parallel.clone(),
        body: gp.body,
    };
    m.ops[p].regions.clear();
    let fused = replace_in_place(m, c, fused.spec(span), state);
    if state.output_unread.contains(&c) || !reads_output(m, &gc) {
        state.output_unread.insert(fused);
    }
    state.users.replace(m, &[p, c], fused);
    m.ops[c] = xcc_ir::module::OpData::detached();
    state.erase(m, p);
    let dead: Vec<OpId> = state.users.0.remove(&t).unwrap_or_default();
    // Only deallocations are left on `t` (its one writer and one reader were `p` and `c`).
    for u in dead.into_iter().filter(|&u| u != p && u != c) {
        state.erase(m, u);
    }
    if let Some(d) = m.defining_op(t) {
        state.erase(m, d);
    }
    fused
}

/// A new operation from `spec` in `old`'s place (same block, same index), `old` detached.
fn replace_in_place(m: &mut Module, old: OpId, spec: xcc_ir::OpSpec, state: &mut FusionState) -> OpId {
    let block = m.ops[old].parent.take().expect("in a block");
    let index = state.positions[&old];
    let new = m.create_op(spec);
    m.ops[new].parent = Some(block);
    m.blocks[block].ops[index] = new;
    state.positions.insert(new, index);
    new
}

/// Renames operands in a block's operations (and theirs, nested).
fn rename_in_block(m: &mut Module, block: xcc_ir::BlockId, renamed: &HashMap<ValueId, ValueId>) {
    let mut ops = Vec::new();
    for &op in &m.blocks[block].ops {
        ops.push(op);
        m.walk_nested(op, &mut |o| ops.push(o));
    }
    for o in ops {
        for v in m.ops[o].operands.iter_mut() {
            if let Some(&to) = renamed.get(v) {
                *v = to;
            }
        }
    }
}

/// Whether a generic's body uses the elements of its outputs (an accumulation), which a fusion
/// into a consumer cannot give it.
fn reads_output(m: &Module, g: &Generic) -> bool {
    let entry = m.regions[g.body].blocks[0];
    let outs = &m.blocks[entry].args[g.inputs.len()..];
    let mut hit = false;
    for &op in &m.blocks[entry].ops {
        hit |= m.ops[op].operands.iter().any(|v| outs.contains(v));
        m.walk_nested(op, &mut |o| hit |= m.ops[o].operands.iter().any(|v| outs.contains(v)));
    }
    hit
}

/// Moves a generic body's operations (not its yield) to the end of `block`, their operands
/// renamed by `map`; returns the yielded values. The body's generic is erased afterwards.
fn inline(
    m: &mut Module,
    body: xcc_ir::RegionId,
    block: xcc_ir::BlockId,
    map: &mut HashMap<ValueId, ValueId>,
) -> Vec<ValueId> {
    let entry = m.regions[body].blocks[0];
    let ops = std::mem::take(&mut m.blocks[entry].ops);
    let (last, rest) = ops.split_last().expect("a terminated body");
    for &op in rest {
        let mut nested = vec![op];
        m.walk_nested(op, &mut |o| nested.push(o));
        for o in nested {
            for v in m.ops[o].operands.iter_mut() {
                if let Some(&to) = map.get(v) {
                    *v = to;
                }
            }
        }
        m.append_op(block, op);
    }
    m.ops[*last].operands.iter().map(|v| *map.get(v).unwrap_or(v)).collect()
}
