//! `gpu`: the thread and block coordinates of a kernel (a function marked `gpu.kernel`), lowered
//! to NVVM's special registers on `nvptx64`; the block's barrier and its shared memory, which
//! tiled kernels stage their operands in.

use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{required, AttrKind, OpDef, Syntax, Traits};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{MemRefType, Type};

const DIMENSION: &[crate::op_def::AttrDef] = &[required("dimension", AttrKind::Any)];

const fn coordinate(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary)
        .results(1)
        .attrs(DIMENSION)
        .pure()
        .verify(verify_coordinate)
        .syntax(Syntax::custom(parse_coordinate, Some(print_coordinate)))
}

pub const OPS: &[OpDef] = &[
    coordinate("gpu.thread_id", "this thread's index in its block"),
    coordinate("gpu.block_id", "this block's index in the grid"),
    coordinate("gpu.block_dim", "the number of threads per block"),
    coordinate("gpu.grid_dim", "the number of blocks in the grid"),
    OpDef::new("gpu.barrier", "waits until every thread of the block reaches it; their shared-memory writes are seen")
        .traits(Traits::READS.union(Traits::WRITES))
        .syntax(Syntax::custom(parse_barrier, Some(print_barrier))),
    OpDef::new("gpu.dynamic_shared_memory", "the block's shared memory, as bytes the launch sized")
        .results(1)
        .pure()
        .verify(verify_shared_memory)
        .syntax(Syntax::custom(parse_shared_memory, Some(print_shared_memory))),
    OpDef::new("gpu.subgroup_mma_constant_matrix", "a fragment with every element the scalar operand")
        .operands(1)
        .results(1)
        .pure()
        .verify(verify_mma_constant)
        .syntax(Syntax::custom(parse_mma_constant, Some(print_mma_constant))),
    OpDef::new(
        "gpu.subgroup_mma_load_matrix",
        "the warp loads a fragment from a matrix whose rows are leadDimension apart (columns, with transpose)",
    )
    .operand_count(crate::op_def::Count::AtLeast(1))
    .results(1)
    .attrs(LOAD_ATTRS)
    .traits(Traits::READS)
    .verify(verify_mma_load)
    .syntax(Syntax::custom(parse_mma_load, Some(print_mma_load))),
    OpDef::new(
        "gpu.subgroup_mma_compute",
        "the warp's D = A B + C on tensor cores; a_transpose/b_transpose: how A and B were loaded",
    )
    .operands(3)
    .results(1)
    .attrs(COMPUTE_ATTRS)
    .pure()
    .verify(verify_mma_compute)
    .syntax(Syntax::custom(parse_mma_compute, Some(print_mma_compute))),
    OpDef::new(
        "gpu.subgroup_mma_store_matrix",
        "the warp stores a C fragment to a matrix whose rows are leadDimension apart",
    )
    .operand_count(crate::op_def::Count::AtLeast(2))
    .attrs(STORE_ATTRS)
    .traits(Traits::WRITES)
    .verify(verify_mma_store)
    .syntax(Syntax::custom(parse_mma_store, Some(print_mma_store))),
];

/// `x`, `y` or `z` from `#gpu<dim x>` (or the plain string `"x"` in hand-written generic form).
pub fn dimension(m: &Module, op: OpId) -> Option<String> {
    let d = match m.attr(op, "dimension")? {
        Attribute::Opaque(s) => s.trim_start_matches("#gpu<dim ").trim_end_matches('>').trim().to_string(),
        Attribute::String(s) => s.clone(),
        _ => return None,
    };
    ["x", "y", "z"].contains(&d.as_str()).then_some(d)
}

fn verify_coordinate(m: &Module, op: OpId) -> Result<(), String> {
    if dimension(m, op).is_none() {
        return Err("the dimension must be x, y or z".into());
    }
    if !m.ty(m.ops[op].results[0]).is_index() {
        return Err("the result must be an index".into());
    }
    Ok(())
}

/// `gpu.thread_id x`
fn parse_coordinate(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (dim, dspan) = p.expect_ident("a dimension (x, y or z)")?;
    if !["x", "y", "z"].contains(&dim.as_str()) {
        return Err(Diagnostic::new(dspan, format!("expected a dimension x, y or z, found '{dim}'")));
    }
    Ok(spec.results([Type::Index]).attr("dimension", Attribute::Opaque(format!("#gpu<dim {dim}>"))))
}

fn print_coordinate(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &["dimension"]) {
        return None;
    }
    let d = dimension(p.module(), op)?;
    p.word(&d);
    Some(())
}

/// `gpu.barrier`
fn parse_barrier(_: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    Ok(spec)
}

fn print_barrier(p: &mut OpPrinter, op: OpId) -> Option<()> {
    (!p.has_other_attrs(op, &[])).then_some(())
}

/// The memory space of a block's shared memory, as upstream spells it.
pub const WORKGROUP_SPACE: &str = "#gpu.address_space<workgroup>";

/// `#gpu.address_space<workgroup>`, for a memref type's memory space.
pub fn workgroup_space() -> Attribute {
    Attribute::Opaque(WORKGROUP_SPACE.into())
}

/// Whether a memref is in a block's shared memory. Its descriptor's pointers stay generic (the
/// NVPTX backend infers shared loads and stores from them); what it cannot infer, `wmma`'s
/// operands, takes a shared pointer where the type says so.
pub fn in_workgroup(t: &MemRefType) -> bool {
    super::memref::memory_space_text(t.memory_space.as_deref()).is_some_and(|s| s == WORKGROUP_SPACE)
}

/// A 1-D byte buffer in the workgroup memory space: its static size, where it has one, is the
/// bytes the kernel uses (upstream has only `?`: its launch gives the size).
fn verify_shared_memory(m: &Module, op: OpId) -> Result<(), String> {
    match m.ty(m.ops[op].results[0]).as_memref() {
        Some(t) if t.rank() == 1 && *t.elem == Type::i8() && in_workgroup(t) => Ok(()),
        _ => Err(format!("the result must be a 1-D memref of i8 in {WORKGROUP_SPACE}")),
    }
}

/// `gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>`
fn parse_shared_memory(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    Ok(spec.results([t]))
}

fn print_shared_memory(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let m = p.module();
    p.word(": ");
    p.ty(m.ty(m.ops[op].results[0]));
    Some(())
}

// ---- a warp's matrix multiply-accumulate on tensor cores -----------------------------------

/// The operand of a warp's matrix multiply-accumulate (`D = A B + C`) a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaOperand {
    A = 0,
    B = 1,
    C = 2,
}

impl MmaOperand {
    fn name(self) -> &'static str {
        match self {
            MmaOperand::A => "AOp",
            MmaOperand::B => "BOp",
            MmaOperand::C => "COp",
        }
    }
}

/// `!gpu.mma_matrix<RxCxf32, "AOp">`: a matrix spread over the 32 threads of a warp, each
/// holding [`MmaMatrix::per_thread`] of its elements in an order only the `subgroup_mma` ops
/// know. xcc has the shape NVIDIA's tensor cores multiply in TF32: A 16 x 8, B 8 x 16 and C
/// 16 x 16, of f32 (A's and B's elements rounded to TF32, 10 bits of mantissa, as they are
/// loaded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaMatrix {
    pub operand: MmaOperand,
}

/// Threads in a warp, over which a fragment's elements are spread.
pub const WARP: u64 = 32;

impl MmaMatrix {
    pub const M: u64 = 16;
    pub const N: u64 = 16;
    pub const K: u64 = 8;

    pub fn new(operand: MmaOperand) -> MmaMatrix {
        MmaMatrix { operand }
    }

    /// Rows and columns.
    pub fn shape(self) -> (u64, u64) {
        match self.operand {
            MmaOperand::A => (Self::M, Self::K),
            MmaOperand::B => (Self::K, Self::N),
            MmaOperand::C => (Self::M, Self::N),
        }
    }

    /// The elements each thread of the warp holds.
    pub fn per_thread(self) -> u64 {
        let (r, c) = self.shape();
        r * c / WARP
    }

    pub fn to_type(self) -> Type {
        let (r, c) = self.shape();
        Type::Opaque { dialect: "gpu".into(), body: format!(".mma_matrix<{r}x{c}xf32, \"{}\">", self.operand.name()) }
    }

    pub fn from_type(t: &Type) -> Option<MmaMatrix> {
        let Type::Opaque { dialect, body } = t else { return None };
        if dialect != "gpu" {
            return None;
        }
        Self::from_body(body).ok()
    }

    /// The fragment a `!gpu.mma_matrix` type's text after `!gpu` names (spaces aside), or why
    /// xcc has none such.
    pub fn from_body(body: &str) -> Result<MmaMatrix, String> {
        let text: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let inner = text.strip_prefix(".mma_matrix<").and_then(|s| s.strip_suffix('>'));
        let Some((shape, operand)) = inner.and_then(|s| s.split_once(',')) else {
            return Err("expected !gpu.mma_matrix<RxCxT, \"AOp\" | \"BOp\" | \"COp\">".into());
        };
        let operand = match operand {
            "\"AOp\"" => MmaOperand::A,
            "\"BOp\"" => MmaOperand::B,
            "\"COp\"" => MmaOperand::C,
            _ => return Err(format!("unknown mma operand {operand} (expected \"AOp\", \"BOp\" or \"COp\")")),
        };
        let m = MmaMatrix::new(operand);
        let (r, c) = m.shape();
        if shape != format!("{r}x{c}xf32") {
            return Err(format!(
                "xcc's tensor-core fragments are TF32 m16n16k8: {}'s type is {r}x{c}xf32, not {shape}",
                operand.name()
            ));
        }
        Ok(m)
    }
}

/// The `!gpu.mma_matrix` of value `v`'s type, or an error naming `what`.
fn fragment(m: &Module, v: crate::entity::ValueId, what: &str) -> Result<MmaMatrix, String> {
    MmaMatrix::from_type(m.ty(v)).ok_or_else(|| format!("{what} must be a !gpu.mma_matrix, not {}", m.ty(v)))
}

const LOAD_ATTRS: &[crate::op_def::AttrDef] =
    &[required("leadDimension", AttrKind::Integer), crate::op_def::optional("transpose", AttrKind::Unit)];
const STORE_ATTRS: &[crate::op_def::AttrDef] = &[required("leadDimension", AttrKind::Integer)];
const COMPUTE_ATTRS: &[crate::op_def::AttrDef] =
    &[crate::op_def::optional("a_transpose", AttrKind::Unit), crate::op_def::optional("b_transpose", AttrKind::Unit)];

/// A load's or store's `leadDimension`: positive, a multiple of 4 elements (16 bytes, as
/// `wmma.load`/`wmma.store` need), and an i32 (as they take it).
pub fn lead_dimension(m: &Module, op: OpId) -> Result<i64, String> {
    let ld = m.attr(op, "leadDimension").and_then(Attribute::as_int).unwrap_or(0);
    if ld <= 0 || ld % 4 != 0 || ld > i32::MAX as i128 {
        return Err(format!("leadDimension must be a positive multiple of 4 elements (16 bytes) and an i32, not {ld}"));
    }
    Ok(ld as i64)
}

/// The matrix operand of a load or store: a memref of f32 indexed by the other operands.
fn verify_matrix_operand(m: &Module, op: OpId, at: usize) -> Result<(), String> {
    let d = &m.ops[op];
    let Some(mt) = m.ty(d.operands[at]).as_memref() else {
        return Err("the matrix must be a memref".into());
    };
    if *mt.elem != Type::f32() {
        return Err(format!("the matrix's elements must be f32, not {}", mt.elem));
    }
    if d.operands.len() != at + 1 + mt.rank() || d.operands[at + 1..].iter().any(|&v| !m.ty(v).is_index()) {
        return Err(format!("the matrix needs {} index operand(s)", mt.rank()));
    }
    // A fragment's row is read as neighbouring elements.
    let unit_stride = mt.strides_and_offset().is_some_and(|(strides, _)| strides.last() == Some(&Some(1)));
    if !unit_stride {
        return Err("the matrix's last dimension must have a stride of 1".into());
    }
    Ok(())
}

fn verify_mma_constant(m: &Module, op: OpId) -> Result<(), String> {
    if fragment(m, m.ops[op].results[0], "the result")?.operand != MmaOperand::C {
        return Err("only a \"COp\" fragment is a constant".into());
    }
    if *m.ty(m.ops[op].operands[0]) != Type::f32() {
        return Err("the operand must be an f32".into());
    }
    Ok(())
}

fn verify_mma_load(m: &Module, op: OpId) -> Result<(), String> {
    fragment(m, m.ops[op].results[0], "the result")?;
    lead_dimension(m, op)?;
    verify_matrix_operand(m, op, 0)
}

fn verify_mma_store(m: &Module, op: OpId) -> Result<(), String> {
    if m.attr(op, "transpose").is_some() {
        return Err("a C fragment is stored row by row (no transpose)".into());
    }
    if fragment(m, m.ops[op].operands[0], "the stored value")?.operand != MmaOperand::C {
        return Err("only a \"COp\" fragment is stored".into());
    }
    lead_dimension(m, op)?;
    verify_matrix_operand(m, op, 1)
}

/// The operands are A, B and C fragments, the result a C; an operand loaded here was loaded as
/// the op says (`transpose` as `a_transpose`/`b_transpose`), since a fragment's layout in the
/// threads' registers follows its load.
fn verify_mma_compute(m: &Module, op: OpId) -> Result<(), String> {
    let d = &m.ops[op];
    let want = [MmaOperand::A, MmaOperand::B, MmaOperand::C];
    for (i, (&v, w)) in d.operands.iter().zip(want).enumerate() {
        if fragment(m, v, &format!("operand {i}"))?.operand != w {
            return Err(format!("operand {i} must be a \"{}\" fragment", w.name()));
        }
    }
    if fragment(m, d.results[0], "the result")?.operand != MmaOperand::C {
        return Err("the result must be a \"COp\" fragment".into());
    }
    for (i, attr) in [(0, "a_transpose"), (1, "b_transpose")] {
        let Some(load) = m.defining_op(d.operands[i]) else { continue };
        if m.ops[load].name == "gpu.subgroup_mma_load_matrix"
            && m.attr(load, "transpose").is_some() != m.attr(op, attr).is_some()
        {
            return Err(format!("{attr} must match how operand {i} was loaded (its load's transpose)"));
        }
    }
    Ok(())
}

/// `gpu.subgroup_mma_constant_matrix %f : !gpu.mma_matrix<16x16xf32, "COp">`
fn parse_mma_constant(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    let v = p.resolve(&v, &Type::f32())?;
    Ok(spec.operands([v]).results([t]))
}

fn print_mma_constant(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let m = p.module();
    p.value(m.ops[op].operands[0]);
    p.word(" : ");
    p.ty(m.ty(m.ops[op].results[0]));
    Some(())
}

/// `gpu.subgroup_mma_load_matrix %m[%i, %j] {leadDimension = 68 : index} : memref<..> -> !gpu.mma_matrix<..>`
fn parse_mma_load(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let src = p.parse_operand_ref()?;
    let idx = crate::parser::forms::parse_index_list(p)?;
    let attrs = crate::parser::forms::parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let mt = p.parse_type()?;
    p.expect_punct("->")?;
    let t = p.parse_type()?;
    let src = p.resolve(&src, &mt)?;
    let idx = p.resolve_same(&idx, &Type::Index)?;
    Ok(crate::parser::forms::with_attrs(spec.operands([src]).operands(idx).results([t]), attrs))
}

fn print_mma_load(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.value(d.operands[0]);
    p.word("[");
    p.values(&d.operands[1..]);
    p.word("]");
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(" -> ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

/// `gpu.subgroup_mma_compute %a, %b, %c {a_transpose} : !gpu.mma_matrix<..>, !gpu.mma_matrix<..> -> !gpu.mma_matrix<..>`
fn parse_mma_compute(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let refs = p.parse_operand_refs()?;
    crate::parser::forms::expect_count(&refs, 3, &spec.name, spec.span)?;
    let attrs = crate::parser::forms::parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let a = p.parse_type()?;
    p.expect_punct(",")?;
    let b = p.parse_type()?;
    p.expect_punct("->")?;
    let c = p.parse_type()?;
    let operands = p.resolve_all(&refs, &[a, b, c.clone()])?;
    Ok(crate::parser::forms::with_attrs(spec.operands(operands).results([c]), attrs))
}

fn print_mma_compute(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.values(&d.operands);
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(", ");
    p.ty(m.ty(d.operands[1]));
    p.word(" -> ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

/// `gpu.subgroup_mma_store_matrix %d, %m[%i, %j] {leadDimension = 68 : index} : !gpu.mma_matrix<..>, memref<..>`
fn parse_mma_store(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let dst = p.parse_operand_ref()?;
    let idx = crate::parser::forms::parse_index_list(p)?;
    let attrs = crate::parser::forms::parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    p.expect_punct(",")?;
    let mt = p.parse_type()?;
    let operands = [p.resolve(&v, &vt)?, p.resolve(&dst, &mt)?];
    let idx = p.resolve_same(&idx, &Type::Index)?;
    Ok(crate::parser::forms::with_attrs(spec.operands(operands).operands(idx), attrs))
}

fn print_mma_store(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    p.value(d.operands[0]);
    p.word(", ");
    p.value(d.operands[1]);
    p.word("[");
    p.values(&d.operands[2..]);
    p.word("]");
    p.attr_dict_except(op, &[]);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(", ");
    p.ty(m.ty(d.operands[1]));
    Some(())
}
