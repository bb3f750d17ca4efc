//! `vector.transfer_read`/`transfer_write` (see `xcc_ir::dialects::vector_transfers`): in
//! bounds and unmasked, a plain vector load or store at the element's address; otherwise LLVM's
//! masked load (the padding in the lanes off) or store, the mask the lanes below the
//! dimension's remaining length, and the given mask's lanes too.

use super::memref_descriptor::MemRefDescriptor;
use super::memref_to_llvm::natural_align;
use super::vector_to_llvm::{lanes_below, splat};
use super::{ConversionSet, Rewriter};
use xcc_ir::dialects::vector_transfers::Transfer;
use xcc_ir::{Attribute, Diagnostic, OpId, Type, ValueId};

pub const CONVERSION: ConversionSet = ConversionSet {
    name: "vector-transfers",
    one_to_one: &[],
    patterns: &[("vector.transfer_read", transfer), ("vector.transfer_write", transfer)],
};

fn transfer(rw: &mut Rewriter, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
    let t = Transfer::of(rw.old, op).expect("verified");
    let mt = rw.old.ty(t.memref).as_memref().expect("verified memref").clone();
    let rank = mt.rank();
    let span = rw.old.ops[op].span;
    let elem = rw.types.convert(&mt.elem, span)?;
    let vector_type = if t.read { rw.old.ty(rw.old.ops[op].results[0]) } else { rw.old.ty(t.vector.expect("a write")) };
    let vt = rw.types.convert(&vector_type.clone(), span)?;
    let mask_t = match &vt {
        Type::Vector { shape, .. } => Type::Vector { shape: shape.clone(), elem: Box::new(Type::i1()) },
        _ => unreachable!("a vector"),
    };
    let ops = rw.operands(op)?;
    let at = if t.read { 0 } else { 1 };
    let (memref, indices) = (ops[at], ops[at + 1..at + 1 + rank].to_vec());
    let rest = &ops[at + 1 + rank..];
    let mut b = rw.builder(span);
    let d = MemRefDescriptor { value: memref, rank };
    let plain = t.in_bounds && t.mask.is_none();
    let addr = d.address(&mut b, &mt, &elem, &indices, plain)?;
    if plain {
        let align = vec![("alignment".into(), Attribute::i64(natural_align(&elem)))];
        if t.read {
            return Ok(vec![b.value_with("llvm.load", &[addr], vt, align)]);
        }
        let mut spec = b.spec("llvm.store").operands([ops[0], addr]);
        spec.attrs = align;
        b.insert(spec);
        return Ok(vec![]);
    }
    let given = t.mask.map(|_| *rest.last().expect("a mask operand"));
    let mask = if t.in_bounds {
        given.expect("masked when not plain")
    } else {
        let size = d.size(&mut b, rank - 1);
        let left = b.value("llvm.sub", &[size, indices[rank - 1]], Type::i64());
        let inside = lanes_below(&mut b, left, mask_t.clone());
        match given {
            Some(k) => b.value("llvm.and", &[inside, k], mask_t),
            None => inside,
        }
    };
    let align = vec![("alignment".into(), Attribute::int(natural_align(&elem) as i128, Type::i32()))];
    if t.read {
        let padding = splat(&mut b, rest[0], &vt);
        return Ok(vec![b.value_with("llvm.intr.masked.load", &[addr, mask, padding], vt, align)]);
    }
    let mut spec = b.spec("llvm.intr.masked.store").operands([ops[0], addr, mask]);
    spec.attrs = align;
    b.insert(spec);
    Ok(vec![])
}
