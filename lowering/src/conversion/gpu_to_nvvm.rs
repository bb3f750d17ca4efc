//! `convert-gpu-to-nvvm`: a kernel's thread and block coordinates to NVVM's special registers
//! (`%tid`, `%ctaid`, `%ntid`, `%nctaid`), its barrier to `bar.sync 0` and its shared memory to
//! the module's one `extern .shared` array (sized by the launch), on `nvptx64`; where the grid
//! is emulated on the CPU (`--emulate-gpu`), to calls of runtime-c's emulator, which runs the
//! same kernels with the coordinates it sets, switches threads at barriers and keeps a block's
//! shared memory. A warp's matrix multiply-accumulate on tensor cores is in `mma`.

mod mma;

use super::memref_descriptor::MemRefDescriptor;
use super::{unsupported, ConversionSet, Rewriter};
use xcc_ir::{Attribute, Diagnostic, OpId, OpSpec, Span, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "gpu",
    one_to_one: &[],
    patterns: &[
        ("gpu.thread_id", coordinate),
        ("gpu.block_id", coordinate),
        ("gpu.block_dim", coordinate),
        ("gpu.grid_dim", coordinate),
        ("gpu.barrier", barrier),
        ("gpu.dynamic_shared_memory", shared_memory),
        ("gpu.subgroup_mma_constant_matrix", mma::constant),
        ("gpu.subgroup_mma_load_matrix", mma::load),
        ("gpu.subgroup_mma_compute", mma::compute),
        ("gpu.subgroup_mma_store_matrix", mma::store),
    ],
};

/// runtime-c's emulator: `uint32_t xcc_gpu_emulated_coordinate(int32_t code)`, `code` being
/// 3 x (thread id, block id, block size, grid size) + (x, y, z).
pub const EMULATED_COORDINATE: &str = "xcc_gpu_emulated_coordinate";

/// runtime-c's emulator: `void xcc_gpu_emulated_barrier(void)` runs the block's other threads up
/// to the barrier before this one goes on.
pub const EMULATED_BARRIER: &str = "xcc_gpu_emulated_barrier";

/// runtime-c's emulator: `void *xcc_gpu_emulated_shared(void)`, the running block's shared memory.
pub const EMULATED_SHARED: &str = "xcc_gpu_emulated_shared";

/// The kernels' shared memory on the GPU: `extern .shared` bytes whose size each launch gives.
pub const SHARED_SYMBOL: &str = "xcc_shared_memory";

/// The alignment of the kernels' shared memory, in bytes.
pub const SHARED_ALIGNMENT: i64 = 128;

/// NVPTX's address space of shared memory.
const SHARED_SPACE: u32 = 3;

fn coordinate(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let name = rw.old.ops[op].name.clone();
    let span = rw.old.ops[op].span;
    let dim = xcc_ir::dialects::gpu::dimension(rw.old, op).expect("verified dimension");
    let register = match name.as_str() {
        "gpu.thread_id" => "tid",
        "gpu.block_id" => "ctaid",
        "gpu.block_dim" => "ntid",
        _ => "nctaid",
    };
    let index = rw.types.index.clone();
    if rw.options.gpu_emulation {
        let registers = ["tid", "ctaid", "ntid", "nctaid"];
        let code = registers.iter().position(|r| *r == register).expect("a register") * 3
            + ["x", "y", "z"].iter().position(|d| *d == dim).expect("a verified dimension");
        let k = rw.builder(span).llvm_const(code as i64, Type::i32());
        let v = runtime_call(rw, span, EMULATED_COORDINATE, &[k], Some(Type::i32())).expect("a result");
        return Ok(vec![rw.builder(span).value("llvm.zext", &[v], index)]);
    }
    let mut b = rw.builder(span);
    let v = b.value(&format!("llvm.intr.nvvm.read.ptx.sreg.{register}.{dim}"), &[], Type::i32());
    Ok(vec![b.value("llvm.zext", &[v], index)])
}

/// Calls runtime-c's `name` (declared once), its result if it has one.
fn runtime_call(rw: &mut Rewriter, span: Span, name: &str, args: &[ValueId], result: Option<Type>) -> Option<ValueId> {
    let inputs: Vec<Type> = args.iter().map(|&v| rw.new.ty(v).clone()).collect();
    rw.declare(name, inputs, result.iter().cloned().collect());
    let mut b = rw.builder(span);
    let spec = b
        .spec("llvm.call")
        .operands(args.iter().copied())
        .results(result.iter().cloned())
        .attr("callee", Attribute::symbol(name));
    let call = b.insert(spec);
    b.m.ops[call].results.first().copied()
}

fn outside_gpu_code(rw: &Rewriter, op: OpId) -> Result<(), Diagnostic> {
    let name = &rw.old.ops[op].name;
    if rw.options.gpu() {
        return Ok(());
    }
    Err(unsupported(rw.old.ops[op].span, format!("'{name}' outside GPU code (compile with --target=nvptx64)")))
}

fn barrier(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let span = rw.old.ops[op].span;
    if rw.options.gpu_emulation {
        runtime_call(rw, span, EMULATED_BARRIER, &[], None);
    } else {
        let mut b = rw.builder(span);
        let all = b.llvm_const(0, Type::i32());
        let spec = b.spec("llvm.intr.nvvm.barrier.cta.sync.aligned.all").operands([all]);
        b.insert(spec);
    }
    Ok(vec![])
}

/// The descriptor of the shared bytes: a static size is what the kernel uses (a dynamic one
/// reads as 0).
fn shared_memory(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let span = rw.old.ops[op].span;
    let mt = rw.old.ty(rw.old.ops[op].results[0]).as_memref().expect("verified").clone();
    let pointer = if rw.options.gpu_emulation {
        runtime_call(rw, span, EMULATED_SHARED, &[], Some(Type::ptr())).expect("a result")
    } else {
        declare_shared_symbol(rw);
        let mut b = rw.builder(span);
        let space = Type::LlvmPtr { address_space: SHARED_SPACE };
        let attrs = vec![("global_name".into(), Attribute::symbol(SHARED_SYMBOL))];
        let shared = b.value_with("llvm.mlir.addressof", &[], space, attrs);
        b.value("llvm.addrspacecast", &[shared], Type::ptr())
    };
    let mut b = rw.builder(span);
    let sizes: Vec<ValueId> = mt.shape.iter().filter(|d| d.is_none()).map(|_| b.llvm_const(0, Type::i64())).collect();
    Ok(vec![MemRefDescriptor::from_pointers(&mut b, pointer, pointer, &mt, &sizes).value])
}

/// `llvm.mlir.global external @xcc_shared_memory() {addr_space = 3, alignment = 128} : !llvm.array<0 x i8>`,
/// once per module (`wmma` needs fragments 32-byte aligned; 128 is a line of shared memory).
fn declare_shared_symbol(rw: &mut Rewriter) {
    if rw.new.lookup_symbol(SHARED_SYMBOL).is_some() {
        return;
    }
    let spec = OpSpec::new("llvm.mlir.global", xcc_ir::Span::UNKNOWN)
        .attr("sym_name", Attribute::String(SHARED_SYMBOL.into()))
        .attr("global_type", Attribute::Type(Type::LlvmArray { len: 0, elem: Box::new(Type::i8()) }))
        .attr("linkage", Attribute::String("external".into()))
        .attr("addr_space", Attribute::int(SHARED_SPACE as i128, Type::i32()))
        .attr("alignment", Attribute::i64(SHARED_ALIGNMENT));
    rw.add_top_level(spec);
}
