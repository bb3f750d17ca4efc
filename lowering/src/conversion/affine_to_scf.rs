//! `lower-affine`: `affine.apply`, `affine.min` and `affine.max` become arith on `index`,
//! `affine.for` becomes `scf.for` with
//! its bounds computed (`max` of lower-bound results, `min` of upper-bound results), and
//! `affine.if` becomes `scf.if` on the conjunction of its constraints.

use super::find_first;
use crate::builder::Builder;
use crate::pass::{LoweringOptions, Pass};
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::{Attribute, Diagnostic, Module, Type, ValueId};

pub struct LowerAffine;

const LOWERED: &[&str] = &[
    "affine.apply",
    "affine.min",
    "affine.max",
    "affine.for",
    "affine.if",
    "affine.yield",
    "affine.load",
    "affine.store",
];

impl Pass for LowerAffine {
    fn name(&self) -> &'static str {
        "lower-affine"
    }

    fn lowers(&self, op: &str) -> bool {
        LOWERED.contains(&op)
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        while let Some(op) = find_first(&m, |n| LOWERED.contains(&n)) {
            let name = m.ops[op].name.clone();
            let operands = m.ops[op].operands.clone();
            match name.as_str() {
                "affine.apply" => {
                    let map = m.attr(op, "map").and_then(Attribute::as_affine_map).cloned().expect("verified map");
                    let mut b = Builder::before(&mut m, op);
                    let v = expand_expr(&mut b, &map.results[0], &operands, map.num_dims as usize);
                    let old = m.result(op, 0);
                    let root = m.top_level_ancestor(op);
                    m.replace_uses_in(root, old, v);
                    m.erase_op(op);
                }
                "affine.min" | "affine.max" => {
                    let map = m.attr(op, "map").and_then(Attribute::as_affine_map).cloned().expect("verified map");
                    let pick = if name == "affine.min" { "arith.minsi" } else { "arith.maxsi" };
                    let mut b = Builder::before(&mut m, op);
                    let v = expand_bound(&mut b, &map, &operands, pick);
                    let old = m.result(op, 0);
                    let root = m.top_level_ancestor(op);
                    m.replace_uses_in(root, old, v);
                    m.erase_op(op);
                }
                "affine.for" => {
                    let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).expect("segments");
                    let (nlb, nub) = (seg[0] as usize, seg[1] as usize);
                    let lb_map = m.attr(op, "lowerBoundMap").and_then(Attribute::as_affine_map).cloned().expect("lb");
                    let ub_map = m.attr(op, "upperBoundMap").and_then(Attribute::as_affine_map).cloned().expect("ub");
                    let step = m.attr(op, "step").and_then(Attribute::as_int).expect("step") as i64;
                    let mut b = Builder::before(&mut m, op);
                    let lb = expand_bound(&mut b, &lb_map, &operands[..nlb], "arith.maxsi");
                    let ub = expand_bound(&mut b, &ub_map, &operands[nlb..nlb + nub], "arith.minsi");
                    let st = b.index_const(step);
                    let inits = operands[nlb + nub..].to_vec();
                    let data = &mut m.ops[op];
                    data.name = "scf.for".into();
                    data.operands = [lb, ub, st].into_iter().chain(inits).collect();
                    data.attrs.clear();
                }
                "affine.if" => {
                    let set = match m.attr(op, "condition") {
                        Some(Attribute::IntegerSet(s)) => s.clone(),
                        _ => unreachable!("verified integer set"),
                    };
                    let mut b = Builder::before(&mut m, op);
                    let zero = b.index_const(0);
                    let mut cond: Option<ValueId> = None;
                    for c in &set.constraints {
                        let v = expand_expr(&mut b, &c.expr, &operands, set.num_dims as usize);
                        let pred = if c.is_equality { 0 } else { 5 }; // eq, sge
                        let bit = b.value_with(
                            "arith.cmpi",
                            &[v, zero],
                            Type::i1(),
                            vec![("predicate".into(), Attribute::i64(pred))],
                        );
                        cond = Some(match cond {
                            None => bit,
                            Some(acc) => b.value("arith.andi", &[acc, bit], Type::i1()),
                        });
                    }
                    let cond = cond.unwrap_or_else(|| b.arith_const(1, Type::i1()));
                    let data = &mut m.ops[op];
                    data.name = "scf.if".into();
                    data.operands = vec![cond];
                    data.attrs.clear();
                }
                "affine.load" | "affine.store" => {
                    // The access map's results become explicit index computations.
                    let map = m.attr(op, "map").and_then(Attribute::as_affine_map).cloned().expect("verified map");
                    let fixed = if name == "affine.load" { 1 } else { 2 };
                    let map_operands = operands[fixed..].to_vec();
                    let mut b = Builder::before(&mut m, op);
                    let idx: Vec<ValueId> = map
                        .results
                        .iter()
                        .map(|e| expand_expr(&mut b, e, &map_operands, map.num_dims as usize))
                        .collect();
                    let data = &mut m.ops[op];
                    data.name = if name == "affine.load" { "memref.load" } else { "memref.store" }.into();
                    data.operands = operands[..fixed].iter().copied().chain(idx).collect();
                    data.attrs.clear();
                }
                _ => {
                    m.ops[op].name = "scf.yield".into();
                }
            }
        }
        Ok(m)
    }
}

fn expand_bound(b: &mut Builder, map: &AffineMap, operands: &[ValueId], combine: &str) -> ValueId {
    let mut acc: Option<ValueId> = None;
    for e in &map.results {
        let v = expand_expr(b, e, operands, map.num_dims as usize);
        acc = Some(match acc {
            None => v,
            Some(a) => b.value(combine, &[a, v], Type::Index),
        });
    }
    acc.expect("a bound map has at least one result")
}

/// Emits arith operations computing `e`; dims are `operands[..num_dims]`, symbols the rest.
pub fn expand_expr(b: &mut Builder, e: &AffineExpr, operands: &[ValueId], num_dims: usize) -> ValueId {
    let bin = |b: &mut Builder, name: &str, x: &AffineExpr, y: &AffineExpr| {
        let l = expand_expr(b, x, operands, num_dims);
        let r = expand_expr(b, y, operands, num_dims);
        b.value(name, &[l, r], Type::Index)
    };
    match e {
        AffineExpr::Dim(i) => operands[*i as usize],
        AffineExpr::Symbol(i) => operands[num_dims + *i as usize],
        AffineExpr::Const(c) => b.index_const(*c),
        AffineExpr::Add(x, y) => bin(b, "arith.addi", x, y),
        AffineExpr::Mul(x, y) => bin(b, "arith.muli", x, y),
        AffineExpr::FloorDiv(x, y) => bin(b, "arith.floordivsi", x, y),
        AffineExpr::CeilDiv(x, y) => bin(b, "arith.ceildivsi", x, y),
        AffineExpr::Mod(x, y) => {
            // Affine `mod` is non-negative for a positive divisor: r = a rem b; r < 0 ? r + b : r.
            let l = expand_expr(b, x, operands, num_dims);
            let r = expand_expr(b, y, operands, num_dims);
            let rem = b.value("arith.remsi", &[l, r], Type::Index);
            let zero = b.index_const(0);
            let neg =
                b.value_with("arith.cmpi", &[rem, zero], Type::i1(), vec![("predicate".into(), Attribute::i64(2))]);
            let adj = b.value("arith.addi", &[rem, r], Type::Index);
            b.value("arith.select", &[neg, adj, rem], Type::Index)
        }
    }
}
