//! A warp's matrix multiply-accumulate on tensor cores (`gpu.subgroup_mma_*`, TF32 m16n16k8):
//! on `nvptx64` NVVM's `wmma` intrinsics, A's and B's elements rounded to TF32 as they are loaded
//! (`cvt.rna.tf32.f32`, to nearest, ties away from zero); emulated, calls of runtime-c's
//! emulator, which spreads a fragment over the warp's threads in an order of its own and
//! multiplies once every thread of the block has handed its parts over.

use super::super::memref_descriptor::{position, MemRefDescriptor};
use super::super::type_converter::LlvmTypeConverter;
use super::super::Rewriter;
use super::{outside_gpu_code, runtime_call, EMULATED_BARRIER, SHARED_SPACE};
use xcc_ir::dialects::gpu::{in_workgroup, lead_dimension, MmaMatrix, MmaOperand};
use xcc_ir::{Diagnostic, OpId, Span, Type, ValueId};

/// runtime-c's emulator: `float xcc_gpu_emulated_mma_load(const float *p, int64_t ld,
/// int32_t code, int32_t i)`, element `i` of this thread's part of a fragment (`code`: the
/// operand, 0 to 2 for A to C, plus 4 if the matrix is read transposed), A's and B's rounded
/// to TF32.
pub const EMULATED_LOAD: &str = "xcc_gpu_emulated_mma_load";

/// `void xcc_gpu_emulated_mma_store(float *p, int64_t ld, int32_t i, float v)`: element `i` of
/// this thread's part of a C fragment.
pub const EMULATED_STORE: &str = "xcc_gpu_emulated_mma_store";

/// `void xcc_gpu_emulated_mma_put(int32_t slot, float v)`: this thread's part of a product's
/// operands (slots 0-3 A's, 4-7 B's, 8-15 C's) into its warp's.
pub const EMULATED_PUT: &str = "xcc_gpu_emulated_mma_put";

/// `float xcc_gpu_emulated_mma_result(int32_t i)`: element `i` of this thread's part of the
/// product of the operands its warp put.
pub const EMULATED_RESULT: &str = "xcc_gpu_emulated_mma_result";

fn fragment_of(t: &Type) -> MmaMatrix {
    MmaMatrix::from_type(t).expect("a verified fragment")
}

/// `gpu.subgroup_mma_constant_matrix`: every element of the thread's part the scalar.
pub(super) fn constant(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let v = rw.operands(op)?[0];
    let fragment = fragment_of(rw.old.ty(rw.old.ops[op].results[0]));
    let span = rw.old.ops[op].span;
    let parts = vec![v; fragment.per_thread() as usize];
    Ok(vec![pack(rw, span, fragment, &parts)])
}

/// `gpu.subgroup_mma_load_matrix`
pub(super) fn load(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let span = rw.old.ops[op].span;
    let fragment = fragment_of(rw.old.ty(rw.old.ops[op].results[0]));
    let transpose = rw.old.attr(op, "transpose").is_some();
    let ld = lead_dimension(rw.old, op).expect("a verified leadDimension");
    let pointer = matrix_address(rw, op, 0)?;
    if rw.options.gpu_emulation {
        return Ok(vec![emulated_load(rw, span, fragment, transpose, (pointer, ld))]);
    }
    let (operand, elem) = match fragment.operand {
        MmaOperand::A => ("a", "tf32"),
        MmaOperand::B => ("b", "tf32"),
        MmaOperand::C => ("c", "f32"),
    };
    let layout = if transpose { "col" } else { "row" };
    let t = LlvmTypeConverter::fragment_struct(fragment);
    let mut b = rw.builder(span);
    let ld = b.llvm_const(ld, Type::i32());
    let name = format!("llvm.intr.nvvm.wmma.m16n16k8.load.{operand}.{layout}.stride.{elem}");
    let loaded = b.value(&name, &[pointer, ld], t);
    if fragment.operand == MmaOperand::C {
        return Ok(vec![loaded]);
    }
    // wmma.mma reads a TF32 operand's top 19 bits: rounded here, not cut off there.
    let rounded: Vec<ValueId> = unpack(rw, span, fragment, loaded)
        .into_iter()
        .map(|bits| {
            let mut b = rw.builder(span);
            let f = b.value("llvm.bitcast", &[bits], Type::f32());
            b.value("llvm.intr.nvvm.f2tf32.rna", &[f], Type::i32())
        })
        .collect();
    Ok(vec![pack(rw, span, fragment, &rounded)])
}

fn emulated_load(
    rw: &mut Rewriter,
    span: Span,
    fragment: MmaMatrix,
    transpose: bool,
    (pointer, ld): (ValueId, i64),
) -> ValueId {
    let code = fragment.operand as i64 + if transpose { 4 } else { 0 };
    let parts: Vec<ValueId> = (0..fragment.per_thread() as i64)
        .map(|i| {
            let mut b = rw.builder(span);
            let args =
                [pointer, b.llvm_const(ld, Type::i64()), b.llvm_const(code, Type::i32()), b.llvm_const(i, Type::i32())];
            let v = runtime_call(rw, span, EMULATED_LOAD, &args, Some(Type::f32())).expect("a result");
            as_part(rw, span, fragment, v)
        })
        .collect();
    pack(rw, span, fragment, &parts)
}

/// An f32 as a part of `fragment`: A's and B's parts are the bits of TF32s.
fn as_part(rw: &mut Rewriter, span: Span, fragment: MmaMatrix, v: ValueId) -> ValueId {
    if fragment.operand == MmaOperand::C {
        return v;
    }
    rw.builder(span).value("llvm.bitcast", &[v], Type::i32())
}

/// `gpu.subgroup_mma_compute`
pub(super) fn compute(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let span = rw.old.ops[op].span;
    let operands = rw.operands(op)?;
    let kinds = [MmaOperand::A, MmaOperand::B, MmaOperand::C].map(MmaMatrix::new);
    let mut parts = Vec::new();
    for (&v, &fragment) in operands.iter().zip(&kinds) {
        parts.extend(unpack(rw, span, fragment, v));
    }
    let c = kinds[2];
    if rw.options.gpu_emulation {
        return Ok(vec![emulated_compute(rw, span, &parts)]);
    }
    let layout = |attr: &str| if rw.old.attr(op, attr).is_some() { "col" } else { "row" };
    let name = format!("llvm.intr.nvvm.wmma.m16n16k8.mma.{}.{}.tf32", layout("a_transpose"), layout("b_transpose"));
    let t = LlvmTypeConverter::fragment_struct(c);
    Ok(vec![rw.builder(span).value(&name, &parts, t)])
}

/// The warp's threads put their parts of A, B and C; once the whole block has (a barrier), each
/// takes its part of the product; a second barrier keeps the warp's operands until all have.
fn emulated_compute(rw: &mut Rewriter, span: Span, parts: &[ValueId]) -> ValueId {
    let a_and_b = (MmaMatrix::new(MmaOperand::A).per_thread() + MmaMatrix::new(MmaOperand::B).per_thread()) as usize;
    for (slot, &v) in parts.iter().enumerate() {
        let mut b = rw.builder(span);
        let v = if slot < a_and_b { b.value("llvm.bitcast", &[v], Type::f32()) } else { v };
        let slot = b.llvm_const(slot as i64, Type::i32());
        runtime_call(rw, span, EMULATED_PUT, &[slot, v], None);
    }
    runtime_call(rw, span, EMULATED_BARRIER, &[], None);
    let c = MmaMatrix::new(MmaOperand::C);
    let results: Vec<ValueId> = (0..c.per_thread() as i64)
        .map(|i| {
            let i = rw.builder(span).llvm_const(i, Type::i32());
            runtime_call(rw, span, EMULATED_RESULT, &[i], Some(Type::f32())).expect("a result")
        })
        .collect();
    runtime_call(rw, span, EMULATED_BARRIER, &[], None);
    pack(rw, span, c, &results)
}

/// `gpu.subgroup_mma_store_matrix`
pub(super) fn store(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    outside_gpu_code(rw, op)?;
    let span = rw.old.ops[op].span;
    let value = rw.operands(op)?[0];
    let ld = lead_dimension(rw.old, op).expect("a verified leadDimension");
    let pointer = matrix_address(rw, op, 1)?;
    let parts = unpack(rw, span, MmaMatrix::new(MmaOperand::C), value);
    if rw.options.gpu_emulation {
        for (i, &v) in parts.iter().enumerate() {
            let mut b = rw.builder(span);
            let args = [pointer, b.llvm_const(ld, Type::i64()), b.llvm_const(i as i64, Type::i32()), v];
            runtime_call(rw, span, EMULATED_STORE, &args, None);
        }
        return Ok(vec![]);
    }
    let mut b = rw.builder(span);
    let ld = b.llvm_const(ld, Type::i32());
    let mut args = vec![pointer];
    args.extend(parts);
    args.push(ld);
    let spec = b.spec("llvm.intr.nvvm.wmma.m16n16k8.store.d.row.stride.f32").operands(args);
    b.insert(spec);
    Ok(vec![])
}

/// The address of the fragment's first element: the memref operand `at` indexed by the
/// operands after it. A matrix in shared memory gets a shared pointer (address space 3), so
/// that the intrinsic's `.p3` form is called: `wmma.load.a.sync.aligned.col.m16n16k8.shared`.
/// NVPTX infers the space of plain loads and stores from the descriptor's generic pointer, but
/// not of these intrinsics', whose generic form costs an address conversion per access.
fn matrix_address(rw: &mut Rewriter, op: OpId, at: usize) -> Result<ValueId, Diagnostic> {
    let operands = rw.operands(op)?;
    let mt = rw.old.ty(rw.old.ops[op].operands[at]).as_memref().expect("a verified memref").clone();
    let descriptor = MemRefDescriptor { value: operands[at], rank: mt.rank() };
    let span = rw.old.ops[op].span;
    let emulated = rw.options.gpu_emulation;
    let mut b = rw.builder(span);
    let address = descriptor.element_address(&mut b, &mt, &Type::f32(), &operands[at + 1..])?;
    if emulated || !in_workgroup(&mt) {
        return Ok(address);
    }
    Ok(b.value("llvm.addrspacecast", &[address], Type::LlvmPtr { address_space: SHARED_SPACE }))
}

/// The thread's part of a fragment as a struct.
fn pack(rw: &mut Rewriter, span: Span, fragment: MmaMatrix, parts: &[ValueId]) -> ValueId {
    let t = LlvmTypeConverter::fragment_struct(fragment);
    let mut b = rw.builder(span);
    let mut s = b.value("llvm.mlir.undef", &[], t.clone());
    for (i, &v) in parts.iter().enumerate() {
        s = b.value_with("llvm.insertvalue", &[s, v], t.clone(), position(&[i as i64]));
    }
    s
}

/// The thread's part of a fragment, element by element.
fn unpack(rw: &mut Rewriter, span: Span, fragment: MmaMatrix, s: ValueId) -> Vec<ValueId> {
    let elem = if fragment.operand == MmaOperand::C { Type::f32() } else { Type::i32() };
    let mut b = rw.builder(span);
    (0..fragment.per_thread() as i64)
        .map(|i| b.value_with("llvm.extractvalue", &[s], elem.clone(), position(&[i])))
        .collect()
}
