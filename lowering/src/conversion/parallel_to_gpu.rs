//! `convert-parallel-to-gpu`: a model's compute function becomes host code that launches
//! kernels. The GPU half of the one seam that threads and GPU grids share: where
//! `convert-parallel-to-threads` hands a parallel loop to runtime-c's thread pool, this pass
//! hands it to a grid.
//!
//! Each top-level operation of the function that does work (a loop nest, a store, a copy) is
//! outlined into a kernel, `FUNC_kernelK`, marked `gpu.kernel`:
//! ```text
//! scf.parallel (%i, %j) = (0, 0) to (64, 3136) step (1, 1) { body(%i, %j, %buf) }
//! ```
//! becomes a kernel whose threads each take every `stride`-th element of the flattened
//! iteration space (a grid-stride loop, so that any size fits a grid of at most
//! [`MAX_BLOCKS`] blocks), the innermost dimension fastest so that neighbouring threads touch
//! neighbouring elements:
//! ```text
//! func.func @f_kernel0(%p0: !llvm.ptr, ...) attributes {gpu.kernel} {
//!   %buf = (the view of %p0, rebuilt from the host's static offsets, sizes and strides)
//!   scf.for %n = %first to 200704 step %stride { %i = %n / 3136; %j = %n % 3136; body }
//! }
//! ```
//! and the function launches it through runtime-c (`xcc_gpu_launch(ctx, 0, blocks, threads,
//! shared_bytes, pointers, count)`). A parallel loop over tiles marked [`BLOCKS_ATTR`], whose body
//! holds a parallel loop over a tile's threads marked [`THREADS_ATTR`], is a kernel of a block a
//! tile ([`block_stride_loop`]), its shared memory sized by the launch. Anything else with work
//! (a serial loop, a conditional) is a kernel of one thread. Kernel parameters are the base pointers of the buffers the kernel reads and writes
//! (the function's arguments: inputs, outputs, workspace; and the weights' device copies): every
//! view of them is defined again inside the kernel, so a kernel takes pointers only, the same on
//! the GPU and in the CPU emulation of the grid.
//!
//! The function gains a last argument, runtime-c's GPU context; the weights (`memref.global`s)
//! stay host data, uploaded once by `FUNC_gpu_setup(ctx)`, which this pass writes too, with the
//! kernels' module (`FUNC_ptx`, PTX text the driver fills in after compiling the kernels). The
//! run's status (set by kernels that find an index out of range) becomes a word of device
//! memory; a scalar one kernel computes and a later one reads goes through an 8-byte slot past
//! the workspace ([`spill_scalars`]); the function ends with `xcc_gpu_end(ctx)`, where runtime-c
//! sends the launches it held (as a CUDA graph when the run repeats the last one's). The CPU entry
//! points that called the function are removed: the model's header declares the GPU ones. Math
//! without GPU code is refused in one error ([`check_device_math`]); bounds known only at run
//! time are not supported on GPUs yet (an error names the op).

use super::memref_descriptor::MemRefDescriptor;
use super::parallel_to_threads::{move_body, outlined_function, static_trip_counts, Trips};
use crate::builder::{declare_function, Builder};
use crate::pass::{LoweringOptions, Pass};
use std::collections::{BTreeSet, HashMap, HashSet};
use xcc_ir::attributes::DenseValues;
use xcc_ir::dialects::gpu::WARP;
use xcc_ir::types::FunctionType;
use xcc_ir::{Attribute, BlockId, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};
use xcc_targets::GpuInfo;

pub struct ParallelToGpu;

/// Threads per block of a grid-mapped loop.
pub const BLOCK_THREADS: u64 = 256;

/// The most blocks a launch asks for; more iterations loop inside each thread.
pub const MAX_BLOCKS: u64 = 65_535;

/// The most buffers one kernel takes (runtime-c's emulation calls kernels of up to this many
/// pointer parameters).
pub const MAX_KERNEL_BUFFERS: usize = 16;

/// runtime-c's GPU entry points the host code calls.
pub const GPU_LOAD: &str = "xcc_gpu_load";
pub const GPU_KERNEL_FUNCTION: &str = "xcc_gpu_kernel_function";
pub const GPU_UPLOAD: &str = "xcc_gpu_upload";
pub const GPU_WORKSPACE: &str = "xcc_gpu_workspace";
pub const GPU_GLOBAL: &str = "xcc_gpu_global";
pub const GPU_LAUNCH: &str = "xcc_gpu_launch";
pub const GPU_STATUS: &str = "xcc_gpu_status";
pub const GPU_END: &str = "xcc_gpu_end";
pub const GPU_STATUS_WORD: &str = "xcc_gpu_status_word";

/// Marks the load of a scalar that one kernel computed and later ones read (see
/// [`spill_scalars`]).
const DEVICE_SCALAR: &str = "xcc.gpu_scalar";

/// The attribute marking the global that holds the kernels' PTX (filled in by the driver).
pub const PTX_GLOBAL_ATTR: &str = "xcc.gpu_ptx";

/// The attribute marking the global that holds the kernels' cubin where the driver made one
/// (`ptxas` at hand): its size as 8 little-endian bytes, then the cubin; 8 zero bytes where none.
pub const CUBIN_GLOBAL_ATTR: &str = "xcc.gpu_cubin";

const CAST: &str = "builtin.unrealized_conversion_cast";

impl Pass for ParallelToGpu {
    fn name(&self) -> &'static str {
        "convert-parallel-to-gpu"
    }

    fn run(&self, mut m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        if !options.gpu() {
            return Ok(m);
        }
        let functions: Vec<OpId> = m
            .top_ops()
            .iter()
            .copied()
            .filter(|&f| m.ops[f].name == "func.func" && m.attr(f, "xcc.workspace").is_some())
            .collect();
        for f in functions {
            convert_function(&mut m, f, options)?;
        }
        Ok(m)
    }
}

/// What the pass builds for one function.
struct Plan {
    name: String,
    /// The GPU's limits (the target's vendor and chip).
    gpu: &'static GpuInfo,
    ctx: ValueId,
    /// The weights' symbols, in upload order.
    globals: Vec<String>,
    kernels: usize,
}

fn convert_function(m: &mut Module, f: OpId, options: &LoweringOptions) -> Result<(), Diagnostic> {
    let span = m.ops[f].span;
    let name = m.sym_name(f).unwrap_or_default().to_string();
    check_device_math(m, f)?;
    let region = m.ops[f].regions[0];
    if m.regions[region].blocks.len() != 1 {
        return Err(Diagnostic::new(span, format!("GPU code for '{name}' needs a function of one block")));
    }
    remove_callers(m, &name);
    let entry = m.regions[region].blocks[0];
    let ctx = m.add_block_arg(entry, Type::ptr(), span);
    if let Some(Attribute::Type(Type::Function(ft))) = m.attr(f, "function_type").cloned() {
        let inputs = ft.inputs.iter().cloned().chain([Type::ptr()]).collect();
        m.set_attr(f, "function_type", Attribute::Type(Type::Function(FunctionType { inputs, results: ft.results })));
    }
    m.remove_attr(f, "sym_visibility");
    let gpu = options.target.gpu().expect("convert-parallel-to-gpu runs for GPU targets");
    let mut plan = Plan { name: name.clone(), gpu, ctx, globals: Vec::new(), kernels: 0 };
    device_globals(m, f, entry, &mut plan);
    device_status(m, entry, ctx);
    let workspace = m.attr(f, "xcc.workspace").and_then(Attribute::as_int).map(|i| m.blocks[entry].args[i as usize]);
    let work: Vec<OpId> = m.blocks[entry].ops.iter().copied().filter(|&op| does_work(m, op, workspace)).collect();
    let slots = values_slot(m, entry, span);
    let groups = spill_scalars(m, f, entry, &work)?;
    for group in groups {
        outline(m, f, &group, &mut plan, (slots, workspace))?;
    }
    erase_unused_views(m, entry, workspace);
    end_of_launches(m, entry, ctx);
    setup_function(m, f, &plan, options);
    Ok(())
}

/// Every math function the function computes must have GPU code
/// ([`super::math_to_llvm::gpu_supports`]): those that do not are listed in one error, with
/// counts, before anything is outlined (the emulated GPU refuses them too, being the same code).
fn check_device_math(m: &Module, f: OpId) -> Result<(), Diagnostic> {
    let mut missing: std::collections::BTreeMap<String, usize> = Default::default();
    m.walk_nested(f, &mut |op| {
        let d = &m.ops[op];
        if d.name.starts_with("math.") {
            let elem = d.results.first().map_or(Type::i1(), |&r| m.ty(r).element_or_self().clone());
            if !super::math_to_llvm::gpu_supports(&d.name, &elem) {
                *missing.entry(format!("{} on {elem}", d.name)).or_default() += 1;
            }
        }
    });
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing.iter().map(|(what, n)| format!("{what} ({n})")).collect();
    Err(Diagnostic::new(
        m.ops[f].span,
        format!("functions not supported on GPUs yet (no GPU code for them): {}", list.join(", ")),
    ))
}

/// The CPU entry points (functions calling `name`, and their callers): the header declares the
/// GPU ones instead.
fn remove_callers(m: &mut Module, name: &str) {
    let mut gone = vec![name.to_string()];
    while let Some(callee) = gone.pop() {
        let callers: Vec<OpId> = m
            .top_ops()
            .iter()
            .copied()
            .filter(|&top| {
                let mut calls = false;
                m.walk_nested(top, &mut |op| {
                    calls |= m.ops[op].name == "func.call"
                        && m.attr(op, "callee").and_then(Attribute::as_symbol).is_some_and(|c| c == callee)
                });
                calls
            })
            .collect();
        for c in callers {
            gone.extend(m.sym_name(c).map(str::to_string));
            m.erase_op(c);
        }
    }
}

/// Every `memref.get_global` in the function becomes the weight's device copy, asked of the
/// context once at the start (`xcc_gpu_global(ctx, k)`).
fn device_globals(m: &mut Module, f: OpId, entry: BlockId, plan: &mut Plan) {
    let mut gets = Vec::new();
    m.walk_nested(f, &mut |op| {
        if m.ops[op].name == "memref.get_global" {
            gets.push(op);
        }
    });
    if gets.is_empty() {
        return;
    }
    declare_function(m, GPU_GLOBAL, vec![Type::ptr(), Type::i32()], vec![Type::ptr()]);
    let first = m.blocks[entry].ops[0];
    let mut device: HashMap<String, ValueId> = HashMap::new();
    for op in gets {
        let sym = m.attr(op, "name").and_then(Attribute::as_symbol).unwrap_or_default().to_string();
        let result = m.ops[op].results[0];
        let mt = m.ty(result).as_memref().expect("verified memref").clone();
        let span = m.ops[op].span;
        let index = match plan.globals.iter().position(|g| *g == sym) {
            Some(i) => i,
            None => {
                plan.globals.push(sym.clone());
                plan.globals.len() - 1
            }
        };
        let pointer = *device.entry(sym).or_insert_with(|| {
            let mut b = Builder::before(m, first);
            let k = b.llvm_const(index as i64, Type::i32());
            let spec = b
                .spec("llvm.call")
                .operands([plan.ctx, k])
                .results([Type::ptr()])
                .attr("callee", Attribute::symbol(GPU_GLOBAL));
            let call = b.insert(spec);
            b.m.ops[call].results[0]
        });
        let mut b = Builder::before(m, op);
        b.span = span;
        let d = MemRefDescriptor::from_pointers(&mut b, pointer, pointer, &mt, &[]);
        let view = b.value(CAST, &[d.value], Type::MemRef(mt));
        m.replace_all_uses(result, view);
        m.erase_op(op);
    }
}

/// The run's status (a `memref<1xi32>` on the stack that kernels set when an index input is out
/// of range, loaded for the return) becomes a word of device memory, which runtime-c zeroes
/// before each run and the header's run functions read after it; the function itself returns 0.
fn device_status(m: &mut Module, entry: BlockId, ctx: ValueId) {
    let slots: Vec<OpId> = m.blocks[entry]
        .ops
        .iter()
        .copied()
        .filter(|&op| m.ops[op].name == "memref.alloca" && is_status_type(m.ty(m.ops[op].results[0])))
        .collect();
    if slots.is_empty() {
        return;
    }
    declare_function(m, GPU_STATUS_WORD, vec![Type::ptr()], vec![Type::ptr()]);
    for slot in slots {
        let result = m.ops[slot].results[0];
        let mt = m.ty(result).as_memref().expect("a memref").clone();
        for &op in &m.blocks[entry].ops.clone() {
            let d = &m.ops[op];
            if d.name == "memref.store" && d.operands[1] == result {
                m.erase_op(op);
            } else if d.name == "memref.load" && d.operands[0] == result {
                let loaded = d.results[0];
                let mut b = Builder::before(m, op);
                let zero = b.arith_const(0, Type::i32());
                m.replace_all_uses(loaded, zero);
                m.erase_op(op);
            }
        }
        let mut b = Builder::before(m, slot);
        let spec = b
            .spec("llvm.call")
            .operands([ctx])
            .results([Type::ptr()])
            .attr("callee", Attribute::symbol(GPU_STATUS_WORD));
        let call = b.insert(spec);
        let word = b.m.ops[call].results[0];
        let d = MemRefDescriptor::from_pointers(&mut b, word, word, &mt, &[]);
        let view = b.value(CAST, &[d.value], Type::MemRef(mt));
        m.replace_all_uses(result, view);
        m.erase_op(slot);
    }
}

/// `xcc_gpu_end(ctx)` before the function returns: runtime-c sends the launches it held (as a
/// CUDA graph when the run repeats the last one's).
fn end_of_launches(m: &mut Module, entry: BlockId, ctx: ValueId) {
    declare_function(m, GPU_END, vec![Type::ptr()], vec![Type::i32()]);
    let ret = *m.blocks[entry].ops.last().expect("a terminated function");
    let mut b = Builder::before(m, ret);
    let spec = b.spec("llvm.call").operands([ctx]).results([Type::i32()]).attr("callee", Attribute::symbol(GPU_END));
    b.insert(spec);
}

/// The views, constants and element reads that only the kernels used (each has its own copy):
/// the host must not read device memory.
fn erase_unused_views(m: &mut Module, entry: BlockId, workspace: Option<ValueId>) {
    let Some(region) = m.blocks[entry].parent else { return };
    m.erase_unused(region, |m, op| m.ops[op].parent == Some(entry) && rematerializable(m, op, workspace));
}

/// `memref<1xi32>`: the frontend's status slot.
fn is_status_type(t: &Type) -> bool {
    t.as_memref()
        .is_some_and(|t| t.shape == [Some(1)] && *t.elem == Type::i32() && t.layout == xcc_ir::types::Layout::Identity)
}

/// Whether a top-level operation of the function is work for a kernel, rather than host code:
/// views, constants and reads of single elements are defined again where used; buffers on the
/// stack (which a kernel cannot read: [`kernel_inputs`] refuses that), the runtime calls that
/// the pass adds and the return stay on the host.
fn does_work(m: &Module, op: OpId, workspace: Option<ValueId>) -> bool {
    let d = &m.ops[op];
    !(rematerializable(m, op, workspace)
        || matches!(d.name.as_str(), "func.return" | "llvm.call" | "llvm.alloca" | "llvm.store" | "memref.alloca"))
}

/// Views, constants, and reads of an element of a buffer no kernel writes (weights, inputs: not
/// the workspace), which each kernel that uses them does again.
fn rematerializable(m: &Module, op: OpId, workspace: Option<ValueId>) -> bool {
    if is_view_or_constant(m, op) || m.attr(op, DEVICE_SCALAR).is_some() {
        return true;
    }
    m.ops[op].name == "memref.load" && root_pointer(m, m.ops[op].operands[0]).is_some_and(|p| Some(p) != workspace)
}

/// The pointer a view is built on (following views and casts to the function's argument or the
/// runtime call that gave it).
fn root_pointer(m: &Module, mut v: ValueId) -> Option<ValueId> {
    loop {
        match m.defining_op(v) {
            None => return Some(v),
            Some(def) if m.ops[def].name == "llvm.call" => return Some(v),
            Some(def) if is_view_or_constant(m, def) && !m.ops[def].operands.is_empty() => {
                // A descriptor's first field is its allocated pointer.
                let d = &m.ops[def];
                v = if d.name == "llvm.insertvalue" && d.operands.len() == 2 && is_first_field(m, def) {
                    d.operands[1]
                } else {
                    d.operands[0]
                };
            }
            Some(_) => return None,
        }
    }
}

/// Whether an `llvm.insertvalue` sets field 0 (a descriptor's allocated pointer).
fn is_first_field(m: &Module, op: OpId) -> bool {
    matches!(m.attr(op, "position"), Some(Attribute::DenseArray { values, .. }) if values.as_slice() == [0])
}

/// Operations without effects or regions that a kernel can define again from its parameters.
fn is_view_or_constant(m: &Module, op: OpId) -> bool {
    let d = &m.ops[op];
    if !d.regions.is_empty() {
        return false;
    }
    let name = d.name.as_str();
    name.starts_with("arith.")
        || name.starts_with("math.")
        || name.starts_with("index.")
        || matches!(
            name,
            "llvm.mlir.constant"
                | "llvm.mlir.undef"
                | "llvm.mlir.zero"
                | "llvm.insertvalue"
                | "llvm.extractvalue"
                | "llvm.mul"
                | "llvm.add"
                | "llvm.getelementptr"
                | CAST
                | "memref.view"
                | "memref.reinterpret_cast"
                | "memref.subview"
                | "memref.cast"
                | "memref.collapse_shape"
                | "memref.expand_shape"
        )
}

/// One array of pointers in the function's entry (at most [`MAX_KERNEL_BUFFERS`]), where each
/// launch puts its kernel's parameters.
fn values_slot(m: &mut Module, entry: BlockId, span: Span) -> ValueId {
    let first = m.blocks[entry].ops[0];
    let mut b = Builder::before(m, first);
    b.span = span;
    let n = b.arith_const(MAX_KERNEL_BUFFERS as i64, Type::i64());
    let attrs = vec![("elem_type".into(), Attribute::Type(Type::ptr())), ("alignment".into(), Attribute::i64(8))];
    b.value_with("llvm.alloca", &[n], Type::ptr(), attrs)
}

/// The values the ops of `group` (and what is nested in them) use from outside it, in first-use
/// order.
fn used_from_outside(m: &Module, group: &[OpId]) -> Vec<ValueId> {
    let mut all = Vec::new();
    for &op in group {
        all.push(op);
        m.walk_nested(op, &mut |o| all.push(o));
    }
    let mut defined: HashSet<ValueId> = HashSet::new();
    for &o in &all {
        defined.extend(m.ops[o].results.iter().copied());
        for &r in &m.ops[o].regions {
            for &b in &m.regions[r].blocks {
                defined.extend(m.blocks[b].args.iter().copied());
            }
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &o in &all {
        for &v in &m.ops[o].operands {
            if !defined.contains(&v) && seen.insert(v) {
                out.push(v);
            }
        }
    }
    out
}

/// The kernel's inputs: the host operations to define again inside it (in program order) and
/// the pointers to pass (the function's arguments and the weights' device pointers).
fn kernel_inputs(
    m: &Module,
    f: OpId,
    group: &[OpId],
    workspace: Option<ValueId>,
) -> Result<(Vec<OpId>, Vec<ValueId>), Diagnostic> {
    let op = group[0];
    let mut ops: BTreeSet<(usize, OpId)> = BTreeSet::new();
    let mut pointers = Vec::new();
    let mut todo = used_from_outside(m, group);
    let mut seen: HashSet<ValueId> = todo.iter().copied().collect();
    let entry = m.regions[m.ops[f].regions[0]].blocks[0];
    while let Some(v) = todo.pop() {
        if m.defining_op(v).is_some_and(|d| m.top_level_ancestor(d) != f) {
            return Err(Diagnostic::new(
                m.ops[op].span,
                format!("internal error: '{}' reads a value another GPU kernel computed", m.ops[op].name),
            ));
        }
        match m.defining_op(v) {
            Some(def) if rematerializable(m, def, workspace) => {
                let at = m.blocks[entry].ops.iter().position(|&o| o == def).unwrap_or(usize::MAX);
                ops.insert((at, def));
                for &u in &m.ops[def].operands {
                    if seen.insert(u) {
                        todo.push(u);
                    }
                }
            }
            Some(def) if m.ops[def].name == "llvm.call" && *m.ty(v) == Type::ptr() => pointers.push(v),
            None if *m.ty(v) == Type::ptr() => pointers.push(v),
            other => {
                let what = other.map_or("a block argument".to_string(), |d| format!("'{}'", m.ops[d].name));
                return Err(Diagnostic::new(
                    m.ops[op].span,
                    format!(
                        "'{}' reads a value computed on the host ({what}), which GPU code cannot yet",
                        m.ops[op].name
                    ),
                ));
            }
        }
    }
    // Parameters in a fixed order: the function's arguments first, then the weights.
    pointers.sort_by_key(|&v| v.index());
    if pointers.len() > MAX_KERNEL_BUFFERS {
        return Err(Diagnostic::new(
            m.ops[op].span,
            format!("a GPU kernel of more than {MAX_KERNEL_BUFFERS} buffers ({}) is not supported", pointers.len()),
        ));
    }
    Ok((ops.into_iter().map(|(_, o)| o).collect(), pointers))
}

/// The work ops in groups, one kernel each. A scalar that a one-thread kernel computes and a
/// later kernel reads (an index read from the workspace, a flag a loop computed) goes through
/// device memory: an 8-byte slot past the planned workspace, stored by its kernel (the group's
/// ops after the work op) and loaded where the host had it (a load each reading kernel does
/// again).
fn spill_scalars(m: &mut Module, f: OpId, entry: BlockId, work: &[OpId]) -> Result<Vec<Vec<OpId>>, Diagnostic> {
    let workspace = m.attr(f, "xcc.workspace").and_then(Attribute::as_int).map(|i| m.blocks[entry].args[i as usize]);
    let bytes = m.attr(f, "xcc.workspace_bytes").and_then(Attribute::as_int).unwrap_or(0) as u64;
    let offset = bytes.div_ceil(64) * 64;
    let work_set: HashSet<OpId> = work.iter().copied().collect();
    let mut slot = 0u64;
    let mut base: Option<ValueId> = None;
    let mut groups = Vec::new();
    for &op in work {
        let mut group = vec![op];
        for r in m.ops[op].results.clone() {
            let users: Vec<OpId> = m.blocks[entry].ops.iter().copied().filter(|&o| o != op && uses(m, o, r)).collect();
            if users.is_empty() {
                continue;
            }
            let Some(ws) = workspace else {
                return Err(Diagnostic::new(
                    m.ops[op].span,
                    "GPU code needs a workspace to pass scalars between kernels",
                ));
            };
            let base = *base.get_or_insert_with(|| {
                let first = m.blocks[entry].ops[0];
                let mut b = Builder::before(m, first);
                gep_bytes(&mut b, ws, offset)
            });
            let ty = m.ty(r).clone();
            if !(ty.is_index() || ty.is_integer() || ty.is_float()) {
                let what =
                    format!("'{}' gives a {ty} that later GPU code reads, which GPU code cannot yet", m.ops[op].name);
                return Err(Diagnostic::new(m.ops[op].span, what));
            }
            let stored = if ty.is_index() { Type::i64() } else { ty.clone() };
            let (b_at, at) = m.op_index(op).expect("a top-level op");
            let next = m.blocks[b_at].ops[at + 1];
            let mut b = Builder::before(m, next);
            let value = if ty.is_index() { b.value("arith.index_cast", &[r], Type::i64()) } else { r };
            let pointer = gep_slot(&mut b, base, slot);
            let spec = b.spec("llvm.store").operands([value, pointer]);
            let store = b.insert(spec);
            let pointer_again = gep_slot(&mut b, base, slot);
            let attrs = vec![(DEVICE_SCALAR.to_string(), Attribute::Unit)];
            let loaded = b.value_with("llvm.load", &[pointer_again], stored, attrs);
            let reloaded = if ty.is_index() { b.value("arith.index_cast", &[loaded], Type::Index) } else { loaded };
            for &u in &users {
                replace_in(m, u, r, reloaded);
            }
            let ops = &m.blocks[b_at].ops;
            let store_at = ops.iter().position(|&o| o == store).expect("the store");
            group.extend(ops[at + 1..=store_at].iter().copied().filter(|o| !work_set.contains(o)));
            slot += 1;
        }
        groups.push(group);
    }
    if slot > 0 {
        m.set_attr(f, "xcc.workspace_bytes", Attribute::i64((offset + 8 * slot) as i64));
    }
    Ok(groups)
}

/// Whether `op` or an op nested in it reads `v`.
fn uses(m: &Module, op: OpId, v: ValueId) -> bool {
    let mut found = m.ops[op].operands.contains(&v);
    m.walk_nested(op, &mut |o| found |= m.ops[o].operands.contains(&v));
    found
}

/// Every read of `from` in `op` and the ops nested in it becomes a read of `to`.
fn replace_in(m: &mut Module, op: OpId, from: ValueId, to: ValueId) {
    for x in m.ops[op].operands.iter_mut() {
        if *x == from {
            *x = to;
        }
    }
    m.replace_uses_in(op, from, to);
}

/// `base + offset` bytes.
fn gep_bytes(b: &mut Builder, base: ValueId, offset: u64) -> ValueId {
    let indices = Attribute::DenseArray { elem: Type::i32(), values: vec![offset as i128] };
    let attrs = vec![("rawConstantIndices".into(), indices), ("elem_type".into(), Attribute::Type(Type::i8()))];
    b.value_with("llvm.getelementptr", &[base], Type::ptr(), attrs)
}

/// The address of 8-byte slot `slot` from `base`.
fn gep_slot(b: &mut Builder, base: ValueId, slot: u64) -> ValueId {
    gep_bytes(b, base, 8 * slot)
}

/// The grid a launch asks for: (blocks, threads per block).
fn grid_for(total: u64) -> (u64, u64) {
    let threads = BLOCK_THREADS.min(total.div_ceil(32) * 32).max(1);
    (total.div_ceil(threads).clamp(1, MAX_BLOCKS), threads)
}

fn outline(
    m: &mut Module,
    f: OpId,
    group: &[OpId],
    plan: &mut Plan,
    (slots, workspace): (ValueId, Option<ValueId>),
) -> Result<(), Diagnostic> {
    let op = group[0];
    let span = m.ops[op].span;
    let blocked = if group.len() == 1 { block_mapping(m, op, plan.gpu)? } else { None };
    if blocked.is_none() && group.iter().any(|&o| uses_block(m, o)) {
        return Err(Diagnostic::new(
            span,
            format!("'{}' uses shared memory or barriers outside a loop mapped to a block", m.ops[op].name),
        ));
    }
    let (defs, pointers) = kernel_inputs(m, f, group, workspace)?;
    let trips = if group.len() == 1 { grid_trips(m, op) } else { None };
    if trips.as_ref().is_some_and(|t| t.iter().product::<u64>() == 0) {
        m.erase_op(op);
        return Ok(());
    }

    let index = plan.kernels;
    plan.kernels += 1;
    let kernel = kernel_function(m, f, &format!("{}_kernel{index}", plan.name), pointers.len(), span);
    let entry = m.regions[m.ops[kernel].regions[0]].blocks[0];
    let mut map: HashMap<ValueId, ValueId> = pointers.iter().copied().zip(m.blocks[entry].args.clone()).collect();
    for def in defs {
        let copy = m.clone_op(def, &mut map);
        m.append_op(entry, copy);
    }
    match (blocked, trips) {
        (Some(blocked), _) => {
            // At least a byte: the emulator runs a block's threads as coroutines (which meet at
            // barriers) for kernels with shared memory.
            let shared = blocked.shared_bytes.max(1);
            let grid = (blocked.tiles.iter().product::<u64>().min(MAX_BLOCKS), blocked.threads.iter().product());
            launch(m, op, plan, slots, index, &pointers, (grid.0, grid.1, shared));
            block_stride_loop(m, op, entry, &blocked);
        }
        (None, Some(trips)) => {
            let grid = grid_for(trips.iter().product::<u64>());
            launch(m, op, plan, slots, index, &pointers, (grid.0, grid.1, 0));
            grid_stride_loop(m, op, entry, &trips);
        }
        // A kernel that is not a grid-mapped loop runs as one thread.
        (None, None) => {
            launch(m, op, plan, slots, index, &pointers, (1, 1, 0));
            for &o in group {
                let (b, i) = m.op_index(o).expect("a top-level op");
                m.blocks[b].ops.remove(i);
                m.append_op(entry, o);
            }
        }
    }
    m.build(entry, OpSpec::new("func.return", span));
    for (from, to) in map {
        m.replace_uses_in(kernel, from, to);
    }
    Ok(())
}

/// A parallel loop over tiles (marked [`BLOCKS_ATTR`]) whose body holds one parallel loop over a
/// tile's threads (marked [`THREADS_ATTR`]): one block a tile, the inner loop's iterations its
/// threads, which share the memory the body stages tiles in and meet at its barriers.
pub struct BlockMapping {
    pub tiles: Vec<u64>,
    pub threads: Vec<u64>,
    pub inner: OpId,
    pub shared_bytes: u64,
}

/// Marks a parallel loop whose iterations are the blocks of a grid.
pub const BLOCKS_ATTR: &str = "xcc.gpu_blocks";

/// Marks the parallel loop in a block-mapped loop's body whose iterations are a block's threads.
pub const THREADS_ATTR: &str = "xcc.gpu_threads";

/// Whether `op` or an op nested in it is a barrier, the block's shared memory or a warp's
/// matrix multiply (which its threads compute together).
fn uses_block(m: &Module, op: OpId) -> bool {
    let is = |o: OpId| {
        let name = m.ops[o].name.as_str();
        matches!(name, "gpu.barrier" | "gpu.dynamic_shared_memory") || is_warp_collective(name)
    };
    let mut found = is(op);
    m.walk_nested(op, &mut |o| found |= is(o));
    found
}

fn is_warp_collective(name: &str) -> bool {
    name.starts_with("gpu.subgroup_mma_")
}

/// Whether `op` holds an op that the 32 threads of a warp run together.
fn uses_warps(m: &Module, op: OpId) -> bool {
    let mut found = false;
    m.walk_nested(op, &mut |o| found |= is_warp_collective(&m.ops[o].name));
    found
}

/// The block mapping of `op`, if it is marked [`BLOCKS_ATTR`]: static bounds, no results, one
/// loop over its threads (marked [`THREADS_ATTR`]) beside views and constants (each thread
/// computes them; barriers are then only in the threads' loop), and shared memory of a static
/// size.
fn block_mapping(m: &Module, op: OpId, gpu: &GpuInfo) -> Result<Option<BlockMapping>, Diagnostic> {
    if m.ops[op].name != "scf.parallel" || m.attr(op, BLOCKS_ATTR).is_none() {
        return Ok(None);
    }
    let span = m.ops[op].span;
    let refuse = |what: &str| Err(Diagnostic::new(span, format!("a loop mapped to blocks {what}")));
    let body = m.regions[m.ops[op].regions[0]].blocks[0];
    let inner: Vec<OpId> = m.blocks[body].ops.iter().copied().filter(|&o| m.attr(o, THREADS_ATTR).is_some()).collect();
    let (Some(tiles), [inner], true) = (static_trip_counts(m, op), inner.as_slice(), m.ops[op].results.is_empty())
    else {
        return refuse("needs static bounds, no results and one loop over its threads");
    };
    let mut beside = m.blocks[body].ops.iter().filter(|&&o| o != *inner && m.ops[o].name != "scf.reduce");
    if beside.any(|&o| !is_view_or_constant(m, o) && m.ops[o].name != "gpu.dynamic_shared_memory") {
        return refuse("may hold only views and constants beside its threads' loop");
    }
    let threads = static_trip_counts(m, *inner).unwrap_or_default();
    let count: u64 = threads.iter().product();
    let most = u64::from(gpu.max_block_threads);
    if threads.is_empty() || count == 0 || count > most {
        return Err(Diagnostic::new(span, format!("a block's threads must be 1 to {most}, static")));
    }
    if !count.is_multiple_of(WARP) && uses_warps(m, op) {
        return refuse(&format!("whose threads multiply matrices as warps needs whole warps ({WARP} threads each)"));
    }
    let mut sizes = Vec::new();
    m.walk_nested(op, &mut |o| {
        if m.ops[o].name == "gpu.dynamic_shared_memory" {
            sizes.push(m.ty(m.ops[o].results[0]).as_memref().and_then(|t| t.shape[0]));
        }
    });
    let Some(shared_bytes) = sizes.into_iter().try_fold(0, |most, size| size.map(|s| s.max(most))) else {
        return refuse("needs its shared memory's size at compile time");
    };
    let most = u64::from(gpu.shared_memory_bytes);
    if shared_bytes > most {
        return Err(Diagnostic::new(span, format!("a kernel's shared memory is at most {most} bytes")));
    }
    Ok(Some(BlockMapping { tiles, threads, inner: *inner, shared_bytes }))
}

/// The block-mapped loop's body under a loop over tiles from the block's index by the grid's
/// size (every thread of a block takes the same tiles, so its barriers are met by all), its
/// thread loop's body run once by each thread.
fn block_stride_loop(m: &mut Module, op: OpId, entry: BlockId, blocked: &BlockMapping) {
    let span = m.ops[op].span;
    let mut b = Builder::at_end(m, entry, span);
    let first = coordinate(&mut b, "gpu.block_id");
    let stride = coordinate(&mut b, "gpu.grid_dim");
    strided_loop(m, op, entry, (first, stride), &blocked.tiles);
    let inner = blocked.inner;
    let mut b = Builder::before(m, inner);
    let tid = coordinate(&mut b, "gpu.thread_id");
    let trips: Vec<Trips> = blocked.threads.iter().map(|&t| Trips::Static(t)).collect();
    let scratch = m.new_region();
    let scratch = m.append_block(scratch, span);
    move_body(m, inner, (scratch, tid), &trips, trips.len());
    let yield_op = *m.blocks[scratch].ops.last().expect("move_body's yield");
    m.erase_op(yield_op);
    m.splice_before(scratch, inner);
    m.erase_op(inner);
}

/// `gpu.thread_id x` and the like.
fn coordinate(b: &mut Builder, name: &str) -> ValueId {
    let attrs = vec![("dimension".into(), Attribute::Opaque("#gpu<dim x>".into()))];
    b.value_with(name, &[], Type::Index, attrs)
}

/// The trip counts of a parallel loop that maps to the grid (static bounds, no results).
fn grid_trips(m: &Module, op: OpId) -> Option<Vec<u64>> {
    (m.ops[op].name == "scf.parallel" && m.ops[op].results.is_empty()).then(|| static_trip_counts(m, op)).flatten()
}

/// `func.func @name(%p0: !llvm.ptr, ...) attributes {gpu.kernel}`, right after `f` and the
/// kernels already outlined from it.
fn kernel_function(m: &mut Module, f: OpId, name: &str, params: usize, span: Span) -> OpId {
    let inputs = vec![Type::ptr(); params];
    outlined_function(m, f, (name, "_kernel"), inputs, ("gpu.kernel", Attribute::Unit), span)
}

/// Before `op` in the host function: the kernel's pointers stored in the slot array, and the
/// launch.
/// `grid`: blocks, threads per block, and the bytes of shared memory each block uses.
fn launch(
    m: &mut Module,
    op: OpId,
    plan: &Plan,
    slots: ValueId,
    index: usize,
    pointers: &[ValueId],
    grid: (u64, u64, u64),
) {
    let mut b = Builder::before(m, op);
    for (i, &p) in pointers.iter().enumerate() {
        let indices = Attribute::DenseArray { elem: Type::i32(), values: vec![i as i128] };
        let attrs = vec![("rawConstantIndices".into(), indices), ("elem_type".into(), Attribute::Type(Type::ptr()))];
        let slot = b.value_with("llvm.getelementptr", &[slots], Type::ptr(), attrs);
        let spec = b.spec("llvm.store").operands([p, slot]);
        b.insert(spec);
    }
    let k = b.llvm_const(index as i64, Type::i32());
    let blocks = b.llvm_const(grid.0 as i64, Type::i64());
    let threads = b.llvm_const(grid.1 as i64, Type::i32());
    let shared = b.llvm_const(grid.2 as i64, Type::i32());
    let count = b.llvm_const(pointers.len() as i64, Type::i32());
    let spec = b
        .spec("llvm.call")
        .operands([plan.ctx, k, blocks, threads, shared, slots, count])
        .results([Type::i32()])
        .attr("callee", Attribute::symbol(GPU_LAUNCH));
    b.insert(spec);
    declare_function(
        m,
        GPU_LAUNCH,
        vec![Type::ptr(), Type::i32(), Type::i64(), Type::i32(), Type::i32(), Type::ptr(), Type::i32()],
        vec![Type::i32()],
    );
}

/// The parallel loop's body under a grid-stride loop over its flattened iterations, at the end
/// of the kernel's entry block; the loop op itself goes.
fn grid_stride_loop(m: &mut Module, op: OpId, entry: BlockId, trips: &[u64]) {
    let span = m.ops[op].span;
    let mut b = Builder::at_end(m, entry, span);
    let tid = coordinate(&mut b, "gpu.thread_id");
    let bid = coordinate(&mut b, "gpu.block_id");
    let bdim = coordinate(&mut b, "gpu.block_dim");
    let gdim = coordinate(&mut b, "gpu.grid_dim");
    let first = b.value("arith.muli", &[bid, bdim], Type::Index);
    let first = b.value("arith.addi", &[first, tid], Type::Index);
    let stride = b.value("arith.muli", &[gdim, bdim], Type::Index);
    strided_loop(m, op, entry, (first, stride), trips);
}

/// `scf.for %n = first to (the iterations) step stride` at the end of `entry`, the parallel loop
/// `op`'s body under it (its indices from `%n`, the innermost fastest); `op` goes.
fn strided_loop(m: &mut Module, op: OpId, entry: BlockId, (first, stride): (ValueId, ValueId), trips: &[u64]) {
    let span = m.ops[op].span;
    let end = Builder::at_end(m, entry, span).index_const(trips.iter().product::<u64>() as i64);
    let region = m.new_region();
    let body = m.append_block(region, span);
    let iv = m.add_block_arg(body, Type::Index, span);
    m.build(entry, OpSpec::new("scf.for", span).operands([first, end, stride]).region(region));
    let trips: Vec<Trips> = trips.iter().map(|&t| Trips::Static(t)).collect();
    move_body(m, op, (body, iv), &trips, trips.len());
    m.erase_op(op);
}

/// `FUNC_gpu_setup(ctx) -> i32`: loads the kernels' module, uploads the weights, sizes the
/// workspace; returns the context's status. With `gpu_emulation`, it also gives runtime-c each
/// kernel's host function.
fn setup_function(m: &mut Module, f: OpId, plan: &Plan, options: &LoweringOptions) {
    let span = m.ops[f].span;
    let ptx = string_global(m, &format!("{}_ptx", plan.name), "");
    m.set_attr(ptx, PTX_GLOBAL_ATTR, Attribute::Unit);
    let cubin = byte_global(m, &format!("{}_cubin", plan.name), vec![0; 8]);
    m.set_attr(cubin, CUBIN_GLOBAL_ATTR, Attribute::Unit);
    string_global(m, &format!("{}_kernel_prefix", plan.name), &format!("{}_kernel", plan.name));
    let (p, i32t, i64t) = (Type::ptr(), Type::i32(), Type::i64());
    declare_function(
        m,
        GPU_LOAD,
        vec![p.clone(), p.clone(), p.clone(), p.clone(), i32t.clone(), i32t.clone()],
        vec![i32t.clone()],
    );
    declare_function(m, GPU_UPLOAD, vec![p.clone(), i32t.clone(), p.clone(), i64t.clone()], vec![i32t.clone()]);
    declare_function(m, GPU_WORKSPACE, vec![p.clone(), i64t.clone()], vec![i32t.clone()]);
    declare_function(m, GPU_STATUS, vec![p.clone()], vec![i32t.clone()]);
    if options.gpu_emulation {
        declare_function(m, GPU_KERNEL_FUNCTION, vec![p.clone(), i32t.clone(), p.clone()], vec![i32t.clone()]);
    }
    let region = m.new_region();
    let entry = m.append_block(region, span);
    let ctx = m.add_block_arg(entry, p.clone(), span);
    let setup = m.create_op(
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{}_gpu_setup", plan.name)))
            .attr(
                "function_type",
                Attribute::Type(Type::Function(FunctionType { inputs: vec![p.clone()], results: vec![i32t.clone()] })),
            )
            .region(region),
    );
    let top = m.body_block();
    m.append_op(top, setup);
    let mut b = Builder::at_end(m, entry, span);
    let call = |b: &mut Builder, callee: &str, operands: Vec<ValueId>| {
        let spec =
            b.spec("llvm.call").operands(operands).results([Type::i32()]).attr("callee", Attribute::symbol(callee));
        b.insert(spec);
    };
    let address = |b: &mut Builder, sym: &str| {
        b.value_with("llvm.mlir.addressof", &[], Type::ptr(), vec![("global_name".into(), Attribute::symbol(sym))])
    };
    let (text, prefix) =
        (address(&mut b, &format!("{}_ptx", plan.name)), address(&mut b, &format!("{}_kernel_prefix", plan.name)));
    let cubin = address(&mut b, &format!("{}_cubin", plan.name));
    let (kernels, globals) =
        (b.llvm_const(plan.kernels as i64, Type::i32()), b.llvm_const(plan.globals.len() as i64, Type::i32()));
    call(&mut b, GPU_LOAD, vec![ctx, text, cubin, prefix, kernels, globals]);
    if options.gpu_emulation {
        for k in 0..plan.kernels {
            let fp = address(&mut b, &format!("{}_kernel{k}", plan.name));
            let kv = b.llvm_const(k as i64, Type::i32());
            call(&mut b, GPU_KERNEL_FUNCTION, vec![ctx, kv, fp]);
        }
    }
    for (k, sym) in plan.globals.iter().enumerate() {
        let g = b.m.lookup_symbol(sym).expect("a weight's memref.global");
        let mt = b.m.attr(g, "type").and_then(Attribute::as_type).and_then(Type::as_memref).expect("verified").clone();
        let bytes = match b.m.attr(g, "initial_value") {
            Some(Attribute::Dense { values: DenseValues::Hex(data), .. }) => data.len() as i64,
            _ => 0,
        };
        let attrs = vec![("name".into(), Attribute::symbol(sym))];
        let buf = b.value_with("memref.get_global", &[], Type::MemRef(mt), attrs);
        let at = b.value("memref.extract_aligned_pointer_as_index", &[buf], Type::Index);
        let at = b.value("arith.index_cast", &[at], Type::i64());
        let host = b.value("llvm.inttoptr", &[at], Type::ptr());
        let (kv, n) = (b.llvm_const(k as i64, Type::i32()), b.llvm_const(bytes, Type::i64()));
        call(&mut b, GPU_UPLOAD, vec![ctx, kv, host, n]);
    }
    let workspace = b.m.attr(f, "xcc.workspace_bytes").and_then(Attribute::as_int).unwrap_or(0) as i64;
    let n = b.llvm_const(workspace, Type::i64());
    call(&mut b, GPU_WORKSPACE, vec![ctx, n]);
    let spec = b.spec("llvm.call").operands([ctx]).results([Type::i32()]).attr("callee", Attribute::symbol(GPU_STATUS));
    let status = b.insert(spec);
    let status = b.m.ops[status].results[0];
    let spec = b.spec("func.return").operands([status]);
    b.insert(spec);
}

/// `llvm.mlir.global internal constant @name(dense<bytes>)`, 16-byte aligned.
fn byte_global(m: &mut Module, name: &str, bytes: Vec<u8>) -> OpId {
    let len = bytes.len() as u64;
    let spec = OpSpec::new("llvm.mlir.global", Span::UNKNOWN)
        .attr("sym_name", Attribute::String(name.to_string()))
        .attr("global_type", Attribute::Type(Type::LlvmArray { len, elem: Box::new(Type::i8()) }))
        .attr(
            "value",
            Attribute::Dense {
                values: DenseValues::Hex(bytes),
                ty: Type::Tensor { shape: Some(vec![Some(len)]), elem: Box::new(Type::i8()) },
            },
        )
        .attr("linkage", Attribute::String("internal".into()))
        .attr("alignment", Attribute::i64(16))
        .attr("constant", Attribute::Unit);
    let top = m.body_block();
    m.build(top, spec)
}

/// `llvm.mlir.global private constant @name("text\00")`.
fn string_global(m: &mut Module, name: &str, text: &str) -> OpId {
    let bytes = text.len() as u64 + 1;
    let spec = OpSpec::new("llvm.mlir.global", Span::UNKNOWN)
        .attr("sym_name", Attribute::String(name.to_string()))
        .attr("global_type", Attribute::Type(Type::LlvmArray { len: bytes, elem: Box::new(Type::i8()) }))
        .attr("value", Attribute::String(format!("{text}\0")))
        .attr("linkage", Attribute::String("private".into()))
        .attr("constant", Attribute::Unit);
    let top = m.body_block();
    m.build(top, spec)
}
