//! `vector.transfer_read`/`transfer_write` (see `xcc_ir::dialects::vector_transfers`), one row
//! (the vector's last dim) at a time: in bounds and unmasked, a plain vector load or store at
//! the row's first element; otherwise LLVM's masked load (the padding in the lanes off) or store,
//! the mask the lanes below the dimension's remaining length, the given mask's lanes, and none
//! for a row whose leading coordinates fall outside the memref. Rows are joined (reads) or taken
//! apart (writes) with shuffles of the flattened vector.

use super::memref_descriptor::MemRefDescriptor;
use super::memref_to_llvm::natural_align;
use super::vector_to_llvm::{lanes_below, shufflevector, splat};
use super::{ConversionSet, Rewriter};
use crate::builder::Builder;
use xcc_ir::dialects::vector_transfers::Transfer;
use xcc_ir::types::MemRefType;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "vector-transfers",
    one_to_one: &[],
    patterns: &[("vector.transfer_read", transfer), ("vector.transfer_write", transfer)],
};

/// What every row of one transfer shares.
struct Rows<'a> {
    t: Transfer,
    mt: MemRefType,
    elem: Type,
    desc: MemRefDescriptor,
    indices: Vec<ValueId>,
    /// The lanes of one row (the vector's last dim), and the vector's shape.
    row: u64,
    shape: Vec<u64>,
    row_type: Type,
    row_mask_type: Type,
    padding: Option<ValueId>,
    mask: Option<ValueId>,
    align: &'a [(String, Attribute)],
}

/// A vector of k dims moves row by row (its last dim): row r's indices are the transfer's with
/// r's coordinates added to the k - 1 dims before the last. Each row is a plain load or store
/// where every dim is in bounds and nothing is masked, else LLVM's masked load or store with
/// the lanes below the last dim's remaining length, the given mask's lanes, and none at all
/// where a leading coordinate falls past its dim.
fn transfer(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let t = Transfer::of(rw.old, op).expect("verified");
    let mt = rw.old.ty(t.memref).as_memref().expect("verified memref").clone();
    let rank = mt.rank();
    let span = rw.old.ops[op].span;
    let elem = rw.types.convert(&mt.elem, span)?;
    let vector_type = if t.read { rw.old.ty(rw.old.ops[op].results[0]) } else { rw.old.ty(t.vector.expect("a write")) };
    let Type::Vector { shape, .. } = vector_type.clone() else { unreachable!("a vector") };
    let vt = rw.types.convert(&vector_type.clone(), span)?;
    let row = *shape.last().expect("a dim at least");
    let ops = rw.operands(op)?;
    let at = if t.read { 0 } else { 1 };
    let rest = ops[at + 1 + rank..].to_vec();
    let align = vec![("alignment".into(), Attribute::int(natural_align(&elem) as i128, Type::i32()))];
    let rows = Rows {
        desc: MemRefDescriptor { value: ops[at], rank },
        indices: ops[at + 1..at + 1 + rank].to_vec(),
        row_type: Type::Vector { shape: vec![row], elem: Box::new(elem.clone()) },
        row_mask_type: Type::Vector { shape: vec![row], elem: Box::new(Type::i1()) },
        padding: t.read.then(|| rest[0]),
        mask: t.mask.map(|_| *rest.last().expect("a mask operand")),
        row,
        shape: shape.clone(),
        elem,
        mt,
        t,
        align: &align,
    };
    let count: u64 = shape[..shape.len() - 1].iter().product();
    let mut b = rw.builder(span);
    if rows.t.read {
        let parts: Vec<ValueId> = (0..count).map(|r| read_row(&mut b, &rows, r)).collect::<Result<_, _>>()?;
        return Ok(vec![concatenate(&mut b, &parts, rows.row, &rows.elem, &vt)]);
    }
    for r in 0..count {
        let value = if count == 1 { ops[0] } else { lanes(&mut b, ops[0], r * row, row, &rows.row_type) };
        write_row(&mut b, &rows, r, value)?;
    }
    Ok(vec![])
}

/// `count` lanes of `v` from `first` on, as a vector of type `t`.
fn lanes(b: &mut Builder, v: ValueId, first: u64, count: u64, t: &Type) -> ValueId {
    shufflevector(b, v, v, t.clone(), first..first + count)
}

/// The rows one after another: each appended to what came before, widened to its lane count
/// first (a shuffle takes two vectors of one type).
fn concatenate(b: &mut Builder, parts: &[ValueId], row: u64, elem: &Type, full: &Type) -> ValueId {
    let mut acc = parts[0];
    for (k, &part) in parts.iter().enumerate().skip(1) {
        let have = row * k as u64;
        let wide_t = Type::Vector { shape: vec![have], elem: Box::new(elem.clone()) };
        // Copies of the row's first lane fill the widened part's lanes past the row; never picked.
        let widened = if have == row {
            part
        } else {
            shufflevector(b, part, part, wide_t, (0..have).map(|i| if i < row { i } else { 0 }))
        };
        let t = if k + 1 == parts.len() {
            full.clone()
        } else {
            Type::Vector { shape: vec![have + row], elem: Box::new(elem.clone()) }
        };
        acc = shufflevector(b, acc, widened, t, 0..have + row);
    }
    acc
}

/// Row r's indices: the transfer's, with r's coordinates added to the dims before the last.
fn row_indices(b: &mut Builder, rows: &Rows, r: u64) -> Vec<ValueId> {
    let (rank, k) = (rows.indices.len(), rows.shape.len());
    let mut indices = rows.indices.clone();
    let mut rest = r;
    for j in (0..k - 1).rev() {
        let c = rest % rows.shape[j];
        rest /= rows.shape[j];
        if c != 0 {
            let offset = b.llvm_const(c as i64, Type::i64());
            indices[rank - k + j] = b.value("llvm.add", &[indices[rank - k + j], offset], Type::i64());
        }
    }
    indices
}

/// The lanes of row r that move: below the last dim's remaining length, on in the given mask,
/// and none where a leading coordinate is past its dim. `None`: all of them, surely.
fn row_mask(b: &mut Builder, rows: &Rows, r: u64, indices: &[ValueId]) -> Option<ValueId> {
    let (rank, k) = (indices.len(), rows.shape.len());
    let mt = &rows.row_mask_type;
    let mut mask = rows.mask.map(|m| if rows.shape.len() == 1 { m } else { lanes(b, m, r * rows.row, rows.row, mt) });
    let mut and = |b: &mut Builder, m: ValueId| {
        mask = Some(match mask {
            Some(old) => b.value("llvm.and", &[old, m], mt.clone()),
            None => m,
        });
    };
    if !rows.t.in_bounds[k - 1] {
        let size = rows.desc.size(b, rank - 1);
        let left = b.value("llvm.sub", &[size, indices[rank - 1]], Type::i64());
        let inside = lanes_below(b, left, mt.clone());
        and(b, inside);
    }
    for j in 0..k - 1 {
        if rows.t.in_bounds[j] {
            continue;
        }
        let size = rows.desc.size(b, rank - k + j);
        // Unsigned: a negative index is past the dim too.
        let pred = vec![("predicate".into(), Attribute::i64(6))];
        let inside = b.value_with("llvm.icmp", &[indices[rank - k + j], size], Type::i1(), pred);
        let lanes = splat(b, inside, mt);
        and(b, lanes);
    }
    mask
}

fn read_row(b: &mut Builder, rows: &Rows, r: u64) -> Result<ValueId, Diagnostic> {
    let indices = row_indices(b, rows, r);
    let mask = row_mask(b, rows, r, &indices);
    let addr = rows.desc.address(b, &rows.mt, &rows.elem, &indices, mask.is_none())?;
    let Some(mask) = mask else {
        return Ok(b.value_with("llvm.load", &[addr], rows.row_type.clone(), natural(rows)));
    };
    let padding = splat(b, rows.padding.expect("a read"), &rows.row_type);
    Ok(b.value_with("llvm.intr.masked.load", &[addr, mask, padding], rows.row_type.clone(), rows.align.to_vec()))
}

fn write_row(b: &mut Builder, rows: &Rows, r: u64, value: ValueId) -> Result<(), Diagnostic> {
    let indices = row_indices(b, rows, r);
    let mask = row_mask(b, rows, r, &indices);
    let addr = rows.desc.address(b, &rows.mt, &rows.elem, &indices, mask.is_none())?;
    let mut spec = match mask {
        None => b.spec("llvm.store").operands([value, addr]).attr("alignment", natural(rows)[0].1.clone()),
        Some(mask) => b.spec("llvm.intr.masked.store").operands([value, addr, mask]),
    };
    if spec.name == "llvm.intr.masked.store" {
        spec.attrs = rows.align.to_vec();
    }
    b.insert(spec);
    Ok(())
}

/// A plain access's alignment: the element's.
fn natural(rows: &Rows) -> Vec<(String, Attribute)> {
    vec![("alignment".into(), Attribute::i64(natural_align(&rows.elem)))]
}
