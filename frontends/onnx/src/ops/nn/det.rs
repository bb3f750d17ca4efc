//! Det: the determinant of each matrix in `[..., M, M]`, parallel over the matrices, by Gaussian
//! elimination with partial pivoting on the matrix held in registers (M at most
//! [`MAX_ORDER`]): each column's largest remaining entry is swapped up (the sign flips), the rows
//! below are reduced by it, and the determinant is the signed product of the pivots. A zero
//! pivot makes it 0.

use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct Det;

/// The largest matrix Det unrolls (its code grows as M^3).
const MAX_ORDER: usize = 16;

impl OnnxOp for Det {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let t = super::float_input(node, g)?;
        let r = t.shape.len();
        if r < 2 || t.shape[r - 1] != t.shape[r - 2] || t.is_dynamic() || t.shape[r - 1] > MAX_ORDER {
            return err(format!(
                "Det takes square matrices [..., M, M] of order at most {MAX_ORDER}, not {}",
                t.describe()
            ));
        }
        Ok(vec![TensorType::new(t.dtype, t.shape[..r - 2].to_vec())])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        let m = *t.shape.last().expect("checked");
        let batch: usize = t.shape[..t.shape.len() - 2].iter().product();
        let x = e.reshaped_over(e.buf(&node.inputs[0])?, &[Extent::Fixed(batch), Extent::Fixed(m), Extent::Fixed(m)]);
        let out = e.reshaped_over(e.buf(&node.outputs[0])?, &[Extent::Fixed(batch)]);
        let d = t.dtype;
        e.parallel_over(&[Extent::Fixed(batch)], &mut |e, ivs| {
            let mut a: Vec<Vec<ValueId>> = (0..m)
                .map(|i| {
                    (0..m)
                        .map(|j| {
                            let (ii, jj) = (e.idx(i as i64), e.idx(j as i64));
                            e.load(x, &[ivs[0], ii, jj])
                        })
                        .collect()
                })
                .collect();
            let det = eliminate(e, &mut a, d);
            e.store(det, out, &[ivs[0]]);
        });
        Ok(())
    }
}

fn op(e: &mut Emitter, name: &str, args: &[ValueId], d: DType) -> ValueId {
    e.value_op(name, args, compute_type(d))
}

/// The determinant of `a`, which the elimination overwrites.
fn eliminate(e: &mut Emitter, a: &mut [Vec<ValueId>], d: DType) -> ValueId {
    let m = a.len();
    let (zero, one) = (e.const_of(0.0, d), e.const_of(1.0, d));
    let mut det = one;
    for k in 0..m {
        // The row (k or below) with the largest |a[i][k]|, as a chain of selects.
        let mut best = op(e, "math.absf", &[a[k][k]], d);
        let mut at = e.const_int(k as i128, Type::i64());
        for (i, row) in a.iter().enumerate().skip(k + 1) {
            let v = op(e, "math.absf", &[row[k]], d);
            let larger = e.cmpf("ogt", v, best);
            best = op(e, "arith.select", &[larger, v, best], d);
            let here = e.const_int(i as i128, Type::i64());
            at = e.value_op("arith.select", &[larger, here, at], Type::i64());
        }
        // Swap it with row k: row k takes the pivot row, the pivot row takes row k.
        let mut pivot_row = a[k].clone();
        for i in k + 1..m {
            let here = e.const_int(i as i128, Type::i64());
            let chosen = e.cmpi("eq", at, here);
            for j in 0..m {
                pivot_row[j] = op(e, "arith.select", &[chosen, a[i][j], pivot_row[j]], d);
                a[i][j] = op(e, "arith.select", &[chosen, a[k][j], a[i][j]], d);
            }
        }
        a[k] = pivot_row;
        let kk = e.const_int(k as i128, Type::i64());
        let swapped = e.cmpi("ne", at, kk);
        let negated = op(e, "arith.negf", &[det], d);
        det = op(e, "arith.select", &[swapped, negated, det], d);
        let pivot = a[k][k];
        det = op(e, "arith.mulf", &[det, pivot], d);
        let singular = e.cmpf("oeq", pivot, zero);
        let pivot_row = a[k].clone();
        for row in a.iter_mut().skip(k + 1) {
            let ratio = op(e, "arith.divf", &[row[k], pivot], d);
            let factor = op(e, "arith.select", &[singular, zero, ratio], d);
            for (v, &above) in row.iter_mut().zip(&pivot_row).skip(k + 1) {
                let scaled = op(e, "arith.mulf", &[factor, above], d);
                *v = op(e, "arith.subf", &[*v, scaled], d);
            }
        }
    }
    det
}
