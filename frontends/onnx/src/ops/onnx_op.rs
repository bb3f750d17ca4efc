//! What an ONNX operator is to the frontend ([`OnnxOp`]), and the registry of them by name.

use crate::emit::Emitter;
use crate::graph::*;
use crate::ops::schema::Schema;
use std::collections::HashMap;

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

    /// The outputs as [`ShapeValue`]s, computed on dims: how `Shape -> Gather -> Concat ->
    /// Reshape` folds when some dims are known only at run time. `inputs[i]` is input `i` as a
    /// shape value (a constant integer vector or scalar becomes one), or `None`. `None` when the
    /// operator does not compute on shapes, or not on these inputs; it is then lowered, reading
    /// the shape values from buffers filled at run time.
    fn fold_shape(&self, _node: &Node, _g: &Graph, _inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        None
    }

    /// Whether the operator takes inputs with dims known only at run time (its shape rule
    /// reads [`TensorType::dims`] and its lowering sizes loops from the buffers). The others
    /// are refused with a message naming the input, before their shape rule runs.
    fn takes_run_time_dims(&self) -> bool {
        false
    }

    /// The nodes that compute this one, for an operator defined by other operators (Attention,
    /// the losses: [`crate::ops::expansion`]), written once its input types are known;
    /// inference goes on with them in its place. `None` for an operator lowered itself.
    fn expand(&self, _node: &Node, _g: &Graph) -> Option<OResult<Vec<Node>>> {
        None
    }

    /// Writes the outputs into their buffers: kernel operations (`kernel.generic`,
    /// `kernel.matmul`, ...) or, for operators that are loops of their own, parallel loops.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()>;
}

/// Operators by domain and name (the default domain is `""`), each with its ONNX schema.
#[derive(Default)]
pub struct Registry {
    ops: HashMap<(&'static str, &'static str), (&'static dyn OnnxOp, Schema)>,
}

impl Registry {
    /// Operators of the default ONNX domain, with the schema they share.
    pub fn register(&mut self, names: &[&'static str], op: &'static dyn OnnxOp, schema: Schema) {
        self.register_in("", names, op, schema);
    }

    /// Operators of another domain (`com.microsoft`'s contrib operators).
    pub fn register_in(
        &mut self,
        domain: &'static str,
        names: &[&'static str],
        op: &'static dyn OnnxOp,
        schema: Schema,
    ) {
        for &n in names {
            let previous = self.ops.insert((domain, n), (op, schema));
            assert!(previous.is_none(), "ONNX operator {domain}:{n} is registered twice");
        }
    }

    /// A default-domain operator.
    pub fn get(&self, op: &str) -> Option<&'static dyn OnnxOp> {
        self.get_in("", op)
    }

    /// An operator of `domain` (`""` or `ai.onnx` for the default one).
    pub fn get_in(&self, domain: &str, op: &str) -> Option<&'static dyn OnnxOp> {
        self.entry(domain, op).map(|(op, _)| op)
    }

    /// The schema of an operator of `domain`.
    pub fn schema_in(&self, domain: &str, op: &str) -> Option<Schema> {
        self.entry(domain, op).map(|(_, schema)| schema)
    }

    fn entry(&self, domain: &str, op: &str) -> Option<(&'static dyn OnnxOp, Schema)> {
        let domain = if domain == "ai.onnx" { "" } else { domain };
        self.ops.get(&(domain, op)).copied()
    }

    /// Whether any operator of `domain` is registered.
    pub fn has_domain(&self, domain: &str) -> bool {
        self.ops.keys().any(|(d, _)| *d == domain)
    }

    /// Every registered operator as (domain, name, schema), sorted by domain and name.
    pub fn schemas(&self) -> Vec<(&'static str, &'static str, Schema)> {
        let mut all: Vec<_> = self.ops.iter().map(|(&(d, n), &(_, schema))| (d, n, schema)).collect();
        all.sort_unstable_by_key(|&(d, n, _)| (d, n));
        all
    }

    /// Every registered default-domain operator name, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self.ops.keys().filter(|(d, _)| d.is_empty()).map(|(_, n)| *n).collect();
        names.sort_unstable();
        names
    }
}
