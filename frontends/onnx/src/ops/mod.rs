//! Operators, one folder per family (as onnx-mlir's `ONNXToKrnl/{Math,NN,Tensor}` and tract's
//! `onnx/src/ops/{math,nn,array}`). Each operator implements [`OnnxOp`]: its shape rule, its
//! constant folding, and its lowering to the kernel level; each family registers its operators
//! by name in the [`Registry`]. Where a family's operators differ only in data, they are a
//! table of that data: the elementwise operators (`elementwise/`: an IR and an f64 element
//! function side by side), the reductions (`reduce/reduction.rs`) and the data-movement ops
//! (`tensor/`: copies through affine maps that both lower and fold).
//!
//! To add an operator: a file in its family's folder with a type implementing [`OnnxOp`] (or an
//! entry in the family's table), registered in the family's `register`.

pub mod elementwise;
pub mod gemm;
pub mod nn;
pub mod reduce;
pub mod resize;
pub mod tensor;

use super::emit::Emitter;
use super::graph::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One ONNX operator (or a family of them sharing rules).
pub trait OnnxOp: Sync {
    /// The output types, from the input types (and the constant inputs in `g.consts`).
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>>;

    /// The outputs computed at compile time when every input is a constant; `None` when the
    /// operator does not fold (or is not worth folding on these inputs).
    fn fold(&self, _node: &Node, _inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        None
    }

    /// Whether the outputs depend on the input types alone (Shape, Size): then the op folds even
    /// when its inputs' data is known only at run time (`fold` sees tensors without data).
    fn folds_from_types(&self) -> bool {
        false
    }

    /// Writes the outputs into their buffers: kernel operations (`kernel.generic`,
    /// `kernel.matmul`, ...) or, for operators that are loops of their own, parallel loops.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()>;
}

/// Operators by name.
#[derive(Default)]
pub struct Registry {
    ops: HashMap<&'static str, &'static dyn OnnxOp>,
}

impl Registry {
    pub fn register(&mut self, names: &[&'static str], op: &'static dyn OnnxOp) {
        for &n in names {
            let previous = self.ops.insert(n, op);
            assert!(previous.is_none(), "ONNX operator {n} is registered twice");
        }
    }

    pub fn get(&self, op: &str) -> Option<&'static dyn OnnxOp> {
        self.ops.get(op).copied()
    }

    /// The registered operator names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.ops.keys().copied().collect();
        v.sort();
        v
    }
}

/// Every family's operators.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        elementwise::register(&mut r);
        tensor::register(&mut r);
        nn::register(&mut r);
        gemm::register(&mut r);
        reduce::register(&mut r);
        resize::register(&mut r);
        r
    })
}

/// Numpy-style multidirectional broadcasting.
pub fn broadcast(a: &[usize], b: &[usize]) -> OResult<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let x = if i + a.len() >= n { a[i + a.len() - n] } else { 1 };
        let y = if i + b.len() >= n { b[i + b.len() - n] } else { 1 };
        out[i] = match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return err(format!("shapes {a:?} and {b:?} cannot be broadcast together")),
        };
    }
    Ok(out)
}

/// Normalizes a possibly negative axis against `rank`.
pub fn axis(node: &Node, a: i64, rank: usize) -> OResult<usize> {
    let r = rank as i64;
    let v = if a < 0 { a + r } else { a };
    if v < 0 || v >= r.max(1) {
        return err(format!("axis {a} is out of range for rank {rank} ({})", node.describe()));
    }
    Ok(v as usize)
}

pub fn strides_of(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The flat index in a broadcast input for a flat index in the output.
pub fn broadcast_index(out_shape: &[usize], in_shape: &[usize], mut flat: usize) -> usize {
    let off = out_shape.len() - in_shape.len();
    let in_strides = strides_of(in_shape);
    let mut idx = 0;
    for d in (0..out_shape.len()).rev() {
        let c = flat % out_shape[d];
        flat /= out_shape[d];
        if d >= off && in_shape[d - off] != 1 {
            idx += c * in_strides[d - off];
        }
    }
    idx
}
