//! `outline-wide-signatures`: a function of more than [`WIDE_ABOVE_PARAMS`] parameters keeps its
//! name and signature as a thin wrapper that stores its arguments into a stack array and calls
//! `NAME.body`, the function's code, with the array's address; the body loads each argument in
//! each block that uses it, just before its first use there.
//!
//! Why: LLVM's function-attribute inference adds the attributes it finds for each parameter one
//! at a time, and each addition rebuilds the function's attribute list, which LLVM keeps uniqued
//! for the whole compile: time and memory grow with the square of the parameters. An MLIR
//! function of 4,000 `memref<?xf32>` (20,000 scalars) took 2.2 GB, almost all of it in lists.
//! The wrapper is `optnone` (no inference, instruction selection without the optimizer) and the
//! body has one parameter. Loading where the argument is used, not all at the entry, keeps each
//! loaded value's live range as short as a parameter passed on the stack would have.
//!
//! ```text
//! llvm.func @f(%a0: T0, ..., %aN: TN)         llvm.func @f(%a0: T0, ..., %aN: TN) attributes
//!   ... uses of %ai ...                   ->      {passthrough = ["noinline", "optnone"]} {
//!                                                 %s = llvm.alloca N+1 x i64; store each %ai to %s[i]
//!                                                 llvm.call @f.body(%s)
//!                                               llvm.func internal @f.body(%s: !llvm.ptr {llvm.noalias,
//!                                                   llvm.readonly, llvm.dereferenceable = 8(N+1)})
//!                                                 %ai = llvm.load (gep %s[i]) {invariant}, in each block
//! ```
//! An internal function of as many parameters (a model's computation, or a part
//! `split-large-functions` made) needs no wrapper: it takes the array itself, and the module's
//! calls to it pass one.
//!
//! The body is marked `xcc.dispatch_entry`: `cpu-dispatch` copies it per CPU and makes it choose
//! a copy at run time, as it does for exported functions, while the wrapper (which has no code
//! worth a CPU's own version) is neither copied nor dispatched.

use super::cpu_dispatch::{is_definition, is_internal};
use crate::pass::{LoweringOptions, Pass};
use std::collections::{HashMap, HashSet};
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct OutlineWideSignatures;

/// Functions with more parameters than this are outlined. A model's run function has a pointer
/// per input and output and a few more; LLVM's cost shows from about a thousand.
pub const WIDE_ABOVE_PARAMS: usize = 256;

/// Marks a function that `cpu-dispatch` treats as an entry point although it is internal.
pub const DISPATCH_ENTRY: &str = "xcc.dispatch_entry";

/// The attributes that describe a function's signature and linkage, which the body has its own of.
const SIGNATURE_ATTRS: &[&str] =
    &["sym_name", "function_type", "arg_attrs", "res_attrs", "linkage", "sym_visibility", "llvm.emit_c_interface"];

impl Pass for OutlineWideSignatures {
    fn name(&self) -> &'static str {
        "outline-wide-signatures"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if options.gpu() {
            return Ok(m);
        }
        let addressed = addressed_symbols(&m);
        let wide: Vec<OpId> = m.top_ops().iter().copied().filter(|&f| is_wide(&m, f)).collect();
        let internal: Vec<OpId> =
            m.top_ops().iter().copied().filter(|&f| is_wide_internal(&m, f, &addressed)).collect();
        let mut bodies = HashMap::new();
        for &f in &wide {
            let name = m.sym_name(f).unwrap_or("fn").to_string();
            let body = fresh_name(&m, &format!("{name}.body"), &bodies);
            let params = m.function_type(f).map_or(0, |ft| ft.inputs.len());
            bodies.insert(name, (body, params));
        }
        for &f in &internal {
            let name = m.sym_name(f).unwrap_or("fn").to_string();
            let params = m.function_type(f).map_or(0, |ft| ft.inputs.len());
            bodies.insert(name.clone(), (name, params));
        }
        let others: Vec<OpId> = m
            .top_ops()
            .iter()
            .copied()
            .filter(|&f| is_definition(&m, f) && !wide.contains(&f) && !internal.contains(&f))
            .collect();
        for f in wide {
            outline(&mut m, f, &bodies);
        }
        for f in internal {
            let ft = m.function_type(f).expect("checked by is_wide_internal").clone();
            let region = m.ops[f].regions[0];
            take_arguments_from_slots(&mut m, region, &bodies);
            set_slots_signature(&mut m, f, &ft);
        }
        for f in others {
            let region = m.ops[f].regions[0];
            call_bodies(&mut m, region, None, &bodies);
        }
        Ok(m)
    }
}

/// An exported `llvm.func` of more than [`WIDE_ABOVE_PARAMS`] parameters, each a scalar that fits
/// an 8-byte slot, not already `optnone` (LLVM leaves those alone).
fn is_wide(m: &Module, f: OpId) -> bool {
    !is_internal(m, f) && has_wide_signature(m, f)
}

/// An internal function of such a signature, only ever called (its address is not taken): it
/// takes the array itself, without a wrapper, since the module makes all of its calls. A model's
/// computation and the parts `split-large-functions` made of it have a parameter per buffer they
/// use; LLVM's interprocedural passes over such calls (called-value propagation, function
/// attributes) grow with the square of the parameters: 4,000 inputs each to an output took 6 s
/// there.
fn is_wide_internal(m: &Module, f: OpId, addressed: &HashSet<String>) -> bool {
    is_internal(m, f) && has_wide_signature(m, f) && m.sym_name(f).is_some_and(|n| !addressed.contains(n))
}

fn has_wide_signature(m: &Module, f: OpId) -> bool {
    if !is_definition(m, f) || has_passthrough(m, f, "optnone") {
        return false;
    }
    m.function_type(f).is_some_and(|ft| ft.inputs.len() > WIDE_ABOVE_PARAMS && ft.inputs.iter().all(slot_fits))
}

/// The functions whose addresses the module takes (`llvm.mlir.addressof`): they may be called
/// through a pointer, with their own signature.
pub(super) fn addressed_symbols(m: &Module) -> HashSet<String> {
    let mut names = HashSet::new();
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if m.ops[op].name == "llvm.mlir.addressof" {
                names.extend(m.attr(op, "global_name").and_then(Attribute::as_symbol).map(str::to_string));
            }
        });
    }
    names
}

fn slot_fits(t: &Type) -> bool {
    match t {
        Type::LlvmPtr { .. } => true,
        Type::Integer { width, .. } => *width <= 64,
        Type::Float(_) => true,
        _ => false,
    }
}

pub(crate) fn has_passthrough(m: &Module, f: OpId, name: &str) -> bool {
    matches!(m.attr(f, "passthrough"), Some(Attribute::Array(items)) if items.iter().any(|a| a.as_str() == Some(name)))
}

/// Wrapped functions by name: their bodies' names and parameter counts.
type Bodies = HashMap<String, (String, usize)>;

fn outline(m: &mut Module, f: OpId, bodies: &Bodies) {
    let span = m.ops[f].span;
    let ft = m.function_type(f).expect("checked by is_wide").clone();
    let name = bodies[m.sym_name(f).expect("wide functions are named")].0.clone();
    let body = new_body(m, f, &name, &ft, span);
    let region = m.ops[body].regions[0];
    take_arguments_from_slots(m, region, bodies);
    let wrapper = wrapper_region(m, &name, &ft, span);
    m.ops[f].regions = vec![wrapper];
    m.regions[wrapper].parent = Some(f);
    let passthrough = ["noinline", "optnone"].map(|a| Attribute::String(a.into()));
    m.set_attr(f, "passthrough", Attribute::Array(passthrough.to_vec()));
}

/// The function of body `region` takes its arguments in an array of 8-byte slots: its entry
/// block's one argument is the array's address, and its former arguments are loaded where used.
fn take_arguments_from_slots(m: &mut Module, region: xcc_ir::RegionId, bodies: &Bodies) {
    forward_inserted_fields(m, region);
    let entry = m.regions[region].blocks[0];
    let span = m.blocks[entry].span;
    let params = m.blocks[entry].args.clone();
    let slots = m.add_block_arg(entry, Type::ptr(), span);
    m.set_block_args(entry, vec![slots]);
    call_bodies(m, region, Some((&params, slots)), bodies);
    load_arguments_where_used(m, region, &params, slots);
}

/// Reads of a field of an aggregate built by `llvm.insertvalue` read the inserted value instead,
/// and the aggregates nothing reads any more are erased. Why: the llvm dialect builds a memref
/// descriptor from a function's parameters at its entry and takes the fields out where it uses
/// them (to pass them to a part of the function, say); left so, every parameter would be loaded
/// from its slot at the entry, and live across all the calls that follow (4,000 memrefs: 12,000
/// values, and a minute of LLVM's instruction selection and scheduling).
fn forward_inserted_fields(m: &mut Module, region: xcc_ir::RegionId) {
    let ops = region_ops(m, region);
    // Without calls the loads at the entry cost nothing more, and scheduling them among the
    // code that uses them costs LLVM's scheduler more.
    if !ops.iter().any(|&op| m.ops[op].name == "llvm.call") {
        return;
    }
    let mut forwarded = HashMap::new();
    for &op in &ops {
        if m.ops[op].name == "llvm.extractvalue" {
            if let Some(v) = inserted_field(m, m.ops[op].operands[0], &field_position(m, op)) {
                forwarded.insert(m.ops[op].results[0], v);
            }
        }
    }
    if forwarded.is_empty() {
        return;
    }
    let Some(f) = m.regions[region].parent else { return };
    m.replace_uses_by_map_in(f, &forwarded);
    m.erase_unused(region, |m, op| matches!(m.ops[op].name.as_str(), "llvm.insertvalue" | "llvm.extractvalue"));
}

/// The operations of `region`, nested ones included, in order.
pub(super) fn region_ops(m: &Module, region: xcc_ir::RegionId) -> Vec<OpId> {
    let mut ops = Vec::new();
    for &b in &m.regions[region].blocks {
        for &op in &m.blocks[b].ops {
            ops.push(op);
            m.walk_nested(op, &mut |o| ops.push(o));
        }
    }
    ops
}

pub(super) fn field_position(m: &Module, op: OpId) -> Vec<i128> {
    m.attr(op, "position").and_then(Attribute::as_int_list).unwrap_or_default()
}

/// The value an `llvm.insertvalue` chain ending in `aggregate` put at `position`, looking back
/// at most [`FORWARD_STEPS`] insertions (a descriptor of rank r has 3 + 2r fields).
fn inserted_field(m: &Module, mut aggregate: ValueId, position: &[i128]) -> Option<ValueId> {
    for _ in 0..FORWARD_STEPS {
        let d = m.defining_op(aggregate)?;
        if m.ops[d].name != "llvm.insertvalue" || m.ops[d].operands.len() != 2 {
            return None;
        }
        let at = field_position(m, d);
        if at == position {
            return Some(m.ops[d].operands[1]);
        }
        if at.starts_with(position) || position.starts_with(&at) {
            return None;
        }
        aggregate = m.ops[d].operands[0];
    }
    None
}

const FORWARD_STEPS: usize = 64;

/// Calls in `region` to a wrapped function call its body instead, with the arguments stored to a
/// stack array of the caller's. Where the caller takes its own arguments in slots (`own`: its
/// former parameters and its slots) and passes a run of them in order, as a model's `run_alloc`
/// and `run_with` pass theirs to `run` and a function passes its buffers to its parts, the run's
/// slots are copied at once.
fn call_bodies(m: &mut Module, region: xcc_ir::RegionId, own: Option<(&[ValueId], ValueId)>, bodies: &Bodies) {
    let mut calls = Vec::new();
    for &b in &m.regions[region].blocks {
        for &op in &m.blocks[b].ops {
            m.walk_nested(op, &mut |o| calls.push(o));
            calls.push(op);
        }
    }
    calls.retain(|&c| {
        m.ops[c].name == "llvm.call"
            && m.attr(c, "callee").and_then(Attribute::as_symbol).is_some_and(|n| bodies.contains_key(n))
    });
    if calls.is_empty() {
        return;
    }
    let own = own.map(|(params, slots)| OwnSlots {
        params,
        slot_of: params.iter().enumerate().map(|(i, &v)| (v, i)).collect(),
        slots,
    });
    let entry = m.regions[region].blocks[0];
    let mut before: HashMap<OpId, Vec<OpId>> = HashMap::new();
    let mut arrays = Vec::new();
    for call in calls {
        let (array, stores) = pass_in_array(m, call, own.as_ref(), bodies);
        arrays.extend(array);
        before.insert(call, stores);
    }
    for &b in &m.regions[region].blocks.clone() {
        insert_before(m, b, &mut before);
    }
    let old = std::mem::take(&mut m.blocks[entry].ops);
    for &op in &arrays {
        m.ops[op].parent = Some(entry);
    }
    m.blocks[entry].ops = arrays.into_iter().chain(old).collect();
}

/// A caller's own arguments, in slots: its former parameters, each one's slot, the slots' address.
struct OwnSlots<'a> {
    params: &'a [ValueId],
    slot_of: HashMap<ValueId, usize>,
    slots: ValueId,
}

/// Runs of the caller's own arguments shorter than this are stored one by one.
const MIN_COPIED_SLOTS: usize = 4;

/// Makes `call` (to a wrapped function) call its body with its arguments in a stack array:
/// returns the array's allocation (for the entry block) and the operations that fill it (to go
/// before the call): a copy for each run of the caller's own slots, a store for each other
/// argument. Copies rather than loads and stores: LLVM's SLP vectorizer's cost over thousands
/// of consecutive loads and stores grows faster than their number.
fn pass_in_array(m: &mut Module, call: OpId, own: Option<&OwnSlots>, bodies: &Bodies) -> ([OpId; 2], Vec<OpId>) {
    let span = m.ops[call].span;
    let callee = m.attr(call, "callee").and_then(Attribute::as_symbol).expect("a call to a wrapped function");
    let (body, count) = bodies[callee].clone();
    let size = m.create_op(i64_constant(count as i64, span));
    let size_value = m.result(size, 0);
    let allocation = m.create_op(slot_array(span).operands([size_value]));
    let array = m.result(allocation, 0);
    let operands = m.ops[call].operands.clone();
    let mut fill = Vec::new();
    let mut i = 0;
    while i < operands.len() {
        let run = own.map_or(0, |o| own_run(o, &operands[i..]));
        if let (Some(o), true) = (own, run >= MIN_COPIED_SLOTS) {
            let from = o.slot_of[&operands[i]];
            copy_slots(m, (o.slots, from), (array, i), run, &mut fill);
            i += run;
            continue;
        }
        let at = slot_at(m, array, i, &mut fill);
        let store = OpSpec::new("llvm.store", span).operands([operands[i], at]).attr("alignment", Attribute::i64(8));
        fill.push(m.create_op(store));
        i += 1;
    }
    m.ops[call].operands = vec![array];
    m.set_attr(call, "callee", Attribute::symbol(&body));
    ([size, allocation], fill)
}

/// How many of `args`, from the first, are the caller's own parameters in order.
fn own_run(own: &OwnSlots, args: &[ValueId]) -> usize {
    let Some(&first) = args.first().and_then(|a| own.slot_of.get(a)) else { return 0 };
    args.iter().zip(&own.params[first..]).take_while(|(a, p)| a == p).count()
}

/// The address of slot `i` of `array` (new operations go to `fill`).
fn slot_at(m: &mut Module, array: ValueId, i: usize, fill: &mut Vec<OpId>) -> ValueId {
    if i == 0 {
        return array;
    }
    let span = m.values[array].span;
    let address = m.create_op(slot_address(array, i, span));
    fill.push(address);
    m.result(address, 0)
}

/// `llvm.intr.memcpy` of `len` slots from slot `from.1` of `from.0` to slot `to.1` of `to.0`.
fn copy_slots(m: &mut Module, from: (ValueId, usize), to: (ValueId, usize), len: usize, fill: &mut Vec<OpId>) {
    let span = m.values[to.0].span;
    let source = slot_at(m, from.0, from.1, fill);
    let target = slot_at(m, to.0, to.1, fill);
    let bytes = m.create_op(i64_constant(8 * len as i64, span));
    let volatile = OpSpec::new("llvm.mlir.constant", span).results([Type::i1()]);
    let volatile = m.create_op(volatile.attr("value", Attribute::int(0, Type::i1())));
    let (bytes_value, no) = (m.result(bytes, 0), m.result(volatile, 0));
    let copy = m.create_op(OpSpec::new("llvm.intr.memcpy", span).operands([target, source, bytes_value, no]));
    fill.extend([bytes, volatile, copy]);
}

/// Puts `before[op]` before each `op` of `b` (nested operations included), rebuilding each block
/// once.
pub(super) fn insert_before(m: &mut Module, b: BlockId, before: &mut HashMap<OpId, Vec<OpId>>) {
    let ops = m.blocks[b].ops.clone();
    let mut rebuilt = Vec::with_capacity(ops.len());
    for op in ops {
        for r in m.ops[op].regions.clone() {
            for nested in m.regions[r].blocks.clone() {
                insert_before(m, nested, before);
            }
        }
        rebuilt.extend(before.remove(&op).unwrap_or_default());
        rebuilt.push(op);
    }
    for &op in &rebuilt {
        m.ops[op].parent = Some(b);
    }
    m.blocks[b].ops = rebuilt;
}

pub(super) fn i64_constant(v: i64, span: Span) -> OpSpec {
    OpSpec::new("llvm.mlir.constant", span).results([Type::i64()]).attr("value", Attribute::int(v as i128, Type::i64()))
}

/// `llvm.alloca` of 8-byte slots (its count operand set by the caller).
fn slot_array(span: Span) -> OpSpec {
    OpSpec::new("llvm.alloca", span)
        .results([Type::ptr()])
        .attr("elem_type", Attribute::Type(Type::i64()))
        .attr("alignment", Attribute::i64(8))
}

/// The signature of a function taking `ft`'s arguments in an array of slots, and the attributes
/// of its one parameter.
fn slots_signature(ft: &FunctionType) -> (FunctionType, Attribute) {
    let bytes = 8 * ft.inputs.len() as i64;
    let slots_attrs = Attribute::Dict(vec![
        ("llvm.align".into(), Attribute::i64(8)),
        ("llvm.dereferenceable".into(), Attribute::i64(bytes)),
        ("llvm.noalias".into(), Attribute::Unit),
        ("llvm.nonnull".into(), Attribute::Unit),
        ("llvm.noundef".into(), Attribute::Unit),
        ("llvm.readonly".into(), Attribute::Unit),
    ]);
    (FunctionType { inputs: vec![Type::ptr()], results: ft.results.clone() }, Attribute::Array(vec![slots_attrs]))
}

/// An internal function of signature `ft` now takes its arguments in an array of slots.
fn set_slots_signature(m: &mut Module, f: OpId, ft: &FunctionType) {
    let (signature, arg_attrs) = slots_signature(ft);
    m.set_attr(f, "function_type", Attribute::Type(Type::Function(signature)));
    m.set_attr(f, "arg_attrs", arg_attrs);
}

/// `@name(%slots: !llvm.ptr)`, internal, placed after `f`, holding `f`'s region and its
/// attributes other than the signature's.
fn new_body(m: &mut Module, f: OpId, name: &str, ft: &FunctionType, span: Span) -> OpId {
    let (signature, arg_attrs) = slots_signature(ft);
    let mut spec = OpSpec::new("llvm.func", span)
        .attr("sym_name", Attribute::String(name.into()))
        .attr("function_type", Attribute::Type(Type::Function(signature)))
        .attr("linkage", Attribute::String("internal".into()))
        .attr("arg_attrs", arg_attrs)
        .attr(DISPATCH_ENTRY, Attribute::Unit);
    for (key, value) in &m.ops[f].attrs {
        if !SIGNATURE_ATTRS.contains(&key.as_str()) {
            spec = spec.attr(key.clone(), value.clone());
        }
    }
    let body = m.create_op(spec);
    let region = m.ops[f].regions[0];
    m.ops[body].regions = vec![region];
    m.regions[region].parent = Some(body);
    let top = m.body_block();
    m.append_op(top, body);
    body
}

/// The body's former parameters `params` are read from `slots`: in each block, each parameter
/// the block uses is loaded from its slot before its first use there.
fn load_arguments_where_used(m: &mut Module, region: xcc_ir::RegionId, params: &[ValueId], slots: ValueId) {
    let slot_of: HashMap<ValueId, usize> = params.iter().enumerate().map(|(i, &v)| (v, i)).collect();
    for b in m.regions[region].blocks.clone() {
        load_in_block(m, b, slots, &slot_of);
    }
}

fn load_in_block(m: &mut Module, b: BlockId, slots: ValueId, slot_of: &HashMap<ValueId, usize>) {
    let ops = m.blocks[b].ops.clone();
    let mut loaded: HashMap<ValueId, ValueId> = HashMap::new();
    let mut rebuilt = Vec::with_capacity(ops.len());
    for op in ops {
        let mut users = vec![op];
        m.walk_nested(op, &mut |o| users.push(o));
        for &user in &users {
            let d = &m.ops[user];
            let used = d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter()));
            let fresh: Vec<ValueId> =
                used.filter(|v| slot_of.contains_key(v) && !loaded.contains_key(v)).copied().collect();
            for v in fresh {
                if loaded.contains_key(&v) {
                    continue;
                }
                let (address, load) = load_slot(m, slots, slot_of[&v], m.ty(v).clone(), m.values[v].span);
                rebuilt.extend(address);
                rebuilt.push(load);
                loaded.insert(v, m.result(load, 0));
            }
        }
        for user in users {
            let d = &mut m.ops[user];
            let operands = d.operands.iter_mut().chain(d.successors.iter_mut().flat_map(|s| s.args.iter_mut()));
            for x in operands {
                if let Some(&l) = loaded.get(x) {
                    *x = l;
                }
            }
        }
        rebuilt.push(op);
    }
    for &op in &rebuilt {
        m.ops[op].parent = Some(b);
    }
    m.blocks[b].ops = rebuilt;
}

/// The (detached) address of slot `i` (none for slot 0) and an invariant load of a `ty` from it.
fn load_slot(m: &mut Module, slots: ValueId, i: usize, ty: Type, span: Span) -> (Option<OpId>, OpId) {
    let address = (i > 0).then(|| m.create_op(slot_address(slots, i, span)));
    let at = address.map_or(slots, |a| m.result(a, 0));
    let load = m.create_op(
        OpSpec::new("llvm.load", span)
            .operands([at])
            .results([ty])
            .attr("alignment", Attribute::i64(8))
            .attr("invariant", Attribute::Unit),
    );
    (address, load)
}

fn slot_address(slots: ValueId, i: usize, span: Span) -> OpSpec {
    OpSpec::new("llvm.getelementptr", span)
        .operands([slots])
        .results([Type::ptr()])
        .attr("rawConstantIndices", Attribute::DenseArray { elem: Type::i32(), values: vec![i as i128] })
        .attr("elem_type", Attribute::Type(Type::i64()))
        .attr("inbounds", Attribute::Unit)
}

/// The wrapper's body: the arguments stored to a stack array whose address the body is called
/// with, its result returned.
fn wrapper_region(m: &mut Module, body: &str, ft: &FunctionType, span: Span) -> xcc_ir::RegionId {
    let region = m.new_region();
    let entry = m.append_block(region, span);
    let args: Vec<ValueId> = ft.inputs.iter().map(|t| m.add_block_arg(entry, t.clone(), span)).collect();
    let count = m.build(entry, i64_constant(args.len() as i64, span));
    let count = m.result(count, 0);
    let slots = m.build(entry, slot_array(span).operands([count]));
    let slots = m.result(slots, 0);
    for (i, &a) in args.iter().enumerate() {
        let at = if i == 0 {
            slots
        } else {
            let address = m.build(entry, slot_address(slots, i, span));
            m.result(address, 0)
        };
        m.build(entry, OpSpec::new("llvm.store", span).operands([a, at]).attr("alignment", Attribute::i64(8)));
    }
    let call = m.build(
        entry,
        OpSpec::new("llvm.call", span)
            .operands([slots])
            .results(ft.results.clone())
            .attr("callee", Attribute::symbol(body)),
    );
    let results: Vec<ValueId> = (0..ft.results.len()).map(|i| m.result(call, i)).collect();
    m.build(entry, OpSpec::new("llvm.return", span).operands(results));
    region
}

/// `base`, else `base1`, `base2`, ... : a symbol neither the module nor another body has.
fn fresh_name(m: &Module, base: &str, bodies: &Bodies) -> String {
    let taken = |n: &str| m.lookup_symbol(n).is_some() || bodies.values().any(|(b, _)| b == n);
    std::iter::once(base.to_string())
        .chain((1..).map(|k| format!("{base}{k}")))
        .find(|n| !taken(n))
        .expect("some suffix is free")
}
