//! `vector.contract` with `kind = add`: `acc + sum over the reduction dims of a * b`, each
//! operand indexed by an affine map of the iteration dims (a matmul, a dot product, a batched
//! form), as upstream spells it. Each map's results are plain dims; the
//! accumulator may be a scalar when every dim is reduced.

use super::constraints::{operand_types, result_types};
use crate::affine::{AffineExpr, AffineMap};
use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrKind, OpDef, Syntax};
use crate::parser::forms::{parse_opt_attr_dict, with_attrs};
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::Type;

pub const OPS: &[OpDef] = &[OpDef::new("vector.contract", "acc + the sum over the reduction dims of a * b")
    .operands(3)
    .results(1)
    .attrs(&[
        required("indexing_maps", AttrKind::Any),
        required("iterator_types", AttrKind::Any),
        optional("kind", AttrKind::Any),
    ])
    .pure()
    .verify(verify_contract)
    .syntax(Syntax::custom(parse_contract, Some(print_contract)))];

/// A contraction's iteration space: per operand (a, b, acc) the dims its positions are, the size
/// of every dim, and which dims are reduced.
pub struct Contraction {
    pub operand_dims: [Vec<usize>; 3],
    pub sizes: Vec<u64>,
    pub reduced: Vec<bool>,
}

fn shape(t: &Type) -> Option<Vec<u64>> {
    match t {
        Type::Vector { shape, .. } => Some(shape.clone()),
        t if t.is_integer() || t.is_float() => Some(Vec::new()),
        _ => None,
    }
}

impl Contraction {
    pub fn of(m: &Module, op: OpId) -> Result<Contraction, String> {
        let Some(Attribute::Array(maps)) = m.attr(op, "indexing_maps") else {
            return Err("needs three indexing maps".into());
        };
        let maps: Vec<&AffineMap> = maps
            .iter()
            .filter_map(|a| match a {
                Attribute::AffineMap(map) => Some(map),
                _ => None,
            })
            .collect();
        let Some(Attribute::Array(kinds)) = m.attr(op, "iterator_types") else {
            return Err("needs the iterator types".into());
        };
        let reduced: Vec<bool> = kinds.iter().map(|k| k.to_string().contains("reduction")).collect();
        let n = reduced.len();
        if maps.len() != 3 || maps.iter().any(|map| map.num_dims as usize != n || map.num_symbols != 0) {
            return Err(format!("needs three indexing maps of the {n} iteration dims"));
        }
        let mut sizes: Vec<Option<u64>> = vec![None; n];
        let mut operand_dims: [Vec<usize>; 3] = Default::default();
        for (k, (map, t)) in maps.iter().zip(operand_types(m, op)).enumerate() {
            let s = shape(t).ok_or("takes vectors (the accumulator may be a scalar)")?;
            let dims: Vec<usize> = map
                .results
                .iter()
                .map(|e| match e {
                    AffineExpr::Dim(d) => Ok(*d as usize),
                    _ => Err("each map's results must be plain dims"),
                })
                .collect::<Result<_, _>>()?;
            if dims.len() != s.len() {
                return Err(format!("operand {k}'s map must give one dim per dim of {t}"));
            }
            for (&d, &size) in dims.iter().zip(&s) {
                match sizes[d] {
                    Some(known) if known != size => {
                        return Err(format!("dim d{d} is {known} in one operand and {size} in another"))
                    }
                    _ => sizes[d] = Some(size),
                }
            }
            operand_dims[k] = dims;
        }
        let sizes: Vec<u64> =
            sizes.into_iter().collect::<Option<_>>().ok_or("every iteration dim must index an operand")?;
        if operand_dims[2].iter().any(|&d| reduced[d]) || (0..n).any(|d| !reduced[d] && !operand_dims[2].contains(&d)) {
            return Err("the accumulator must be indexed by exactly the parallel dims".into());
        }
        // As upstream: something is contracted, and a reduced dim indexes both a and b.
        let contracted = |d: usize| operand_dims[0].contains(&d) && operand_dims[1].contains(&d);
        if !reduced.iter().any(|&r| r) || (0..n).any(|d| reduced[d] && !contracted(d)) {
            return Err("needs at least one reduction dim, each indexing both a and b".into());
        }
        Ok(Contraction { operand_dims, sizes, reduced })
    }
}

fn verify_contract(m: &Module, op: OpId) -> Result<(), String> {
    Contraction::of(m, op)?;
    let ins = operand_types(m, op);
    let elem = |t: &Type| t.element_or_self().clone();
    if elem(ins[0]) != elem(ins[1]) || elem(ins[1]) != elem(ins[2]) || result_types(m, op)[0] != ins[2] {
        return Err("the operands share one element type and the result is the accumulator's type".into());
    }
    match m.attr(op, "kind") {
        Some(k) if !k.to_string().contains("<add>") => Err(format!("only kind add is supported, not {k}")),
        _ => Ok(()),
    }
}

/// `{attrs} %a, %b, %acc : A, B into C`
fn parse_contract(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let attrs = parse_opt_attr_dict(p)?;
    let refs = p.parse_operand_refs()?;
    if refs.len() != 3 {
        return p.err_here("vector.contract takes three operands: a, b and the accumulator");
    }
    p.expect_punct(":")?;
    let a = p.parse_type()?;
    p.expect_punct(",")?;
    let b = p.parse_type()?;
    p.expect_ident_word("into")?;
    let c = p.parse_type()?;
    let ops = [p.resolve(&refs[0], &a)?, p.resolve(&refs[1], &b)?, p.resolve(&refs[2], &c)?];
    Ok(with_attrs(spec.operands(ops).results([c]), attrs))
}

fn print_contract(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let ops = m.ops[op].operands.clone();
    p.attr_dict_except(op, &[]);
    p.word(" ");
    p.values(&ops);
    p.word(" : ");
    p.ty(m.ty(ops[0]));
    p.word(", ");
    p.ty(m.ty(ops[1]));
    p.word(" into ");
    p.ty(m.ty(ops[2]));
    Some(())
}
