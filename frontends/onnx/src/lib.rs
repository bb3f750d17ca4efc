//! The ONNX frontend: the protobuf schema ([`proto`]) -> [`import`] into a [`graph::Graph`] ->
//! shape inference and constant folding ([`infer`]) -> graph rewrites ([`fuse`]) -> each node
//! lowered by its operator ([`ops`]) into a module at the kernel level ([`emit`]), plus the C
//! header that describes the result ([`header`]).

pub mod data_dim;
pub mod dim;
pub mod dim_param;
pub mod emit;
pub mod error;
pub mod float4;
pub mod float8;
pub mod float8e8m0;
pub mod fuse;
pub mod graph;
pub mod import;
pub mod infer;
pub mod ops;
pub mod proto;
pub mod strings;
pub mod summary;

use std::collections::HashMap;
use std::path::Path;

pub use error::OnnxError;
pub use infer::FOLD_BUDGET_BASE;
pub use xcc_abi::ModelInterface;

/// Whether a GPU's code computes math op `name` on elements of a type.
pub type GpuMath = fn(&str, &xcc_ir::Type) -> bool;

pub struct OnnxOptions<'a> {
    /// Prefix of every exported symbol (`NAME_run`, `NAME_workspace_size`).
    pub name: &'a str,
    /// Shapes for inputs with symbolic dims (`--shape NAME=1x3x224x224`, `NAME=1x1..2048`).
    pub shapes: HashMap<String, Vec<dim::DimSize>>,
    /// Inputs frozen to constants (`--bind NAME=...`).
    pub binds: HashMap<String, import::Binding>,
    /// Sizes or ranges of symbolic dims by name (`--dim batch=1`, `--dim seq=1..2048`).
    pub dims: HashMap<String, dim::DimSize>,
    /// Told after each node is lowered: how many are done, of how many (`-v`'s progress line).
    pub progress: Option<&'a dyn Fn(usize, usize)>,
    /// Where the target is a GPU: whether its code computes a math op (by name) on an element
    /// type (the lowering knows; the driver passes its answer). A GPU's threads are scalar: the
    /// CPU's rows of vectors (a MaxPool over rows would run a plane per thread) give way to loops
    /// over the outputs, and a node whose math has no GPU code is refused, named.
    pub gpu: Option<GpuMath>,
    /// `--fold-budget BYTES`: how many bytes of tensors computed from constants may become data
    /// in the library (by default 64 MiB plus four times the initializers' bytes); past it, a
    /// node of more than 1 MiB of outputs is computed at run time instead.
    pub fold_budget: Option<usize>,
}

/// Compiles an ONNX model (its bytes and path) into a module at the kernel level.
pub fn compile(
    bytes: &[u8],
    path: &Path,
    options: &OnnxOptions,
) -> Result<(xcc_ir::Module, ModelInterface), OnnxError> {
    let g = import::import(
        bytes,
        &import::ImportOptions { path, shapes: &options.shapes, binds: &options.binds, dims: &options.dims },
    )?;
    compile_graph(g, options)
}

/// Compiles an imported graph: inference and folding, fusion, and each node lowered by its
/// operator. Every frontend's importer ends here: the Core ML frontend builds the same graph of
/// ONNX operators that [`import::import`] builds, and `options`' import settings (`shapes`,
/// `binds`, `dims`) are not read.
pub fn compile_graph(
    mut g: graph::Graph,
    options: &OnnxOptions,
) -> Result<(xcc_ir::Module, ModelInterface), OnnxError> {
    infer::topological_order(&mut g)?;
    g.fold_budget = options.fold_budget;
    fuse::before_inference(&mut g);
    infer::infer_and_fold(&mut g)?;
    fuse::fuse(&mut g);
    let (total, done) = (g.nodes.len(), std::cell::Cell::new(0));
    let no_gpu_code = std::cell::RefCell::new(Vec::new());
    let compiled = emit::generate(&g, options.name, options.gpu.is_none(), |node, g, e| {
        let first = e.m.ops.len();
        let lowered = match ops::registry().get_in(&node.domain, &node.op) {
            Some(op) => op.lower(node, g, e),
            None => Err(OnnxError::msg("internal: an unregistered operator")),
        };
        if let Some(has_code) = options.gpu {
            no_gpu_code.borrow_mut().extend(math_without_gpu_code(&e.m, first, has_code).map(|what| {
                let name = if node.name.is_empty() { "<unnamed>" } else { &node.name };
                format!("{} '{name}' ({what})", node.op)
            }));
        }
        done.set(done.get() + 1);
        if let Some(report) = options.progress {
            report(done.get(), total);
        }
        lowered
    })?;
    let missing = no_gpu_code.into_inner();
    if !missing.is_empty() {
        const SHOWN: usize = 10;
        let more = if missing.len() > SHOWN { format!(", and {} more", missing.len() - SHOWN) } else { String::new() };
        return Err(OnnxError::msg(format!(
            "{} node(s) use math not supported on GPUs yet: {}{more}",
            missing.len(),
            missing[..missing.len().min(SHOWN)].join(", ")
        )));
    }
    Ok(compiled)
}

/// The math functions without GPU code among the ops created from op `first` on, as
/// `math.log on f64` (the first such one per node).
fn math_without_gpu_code(m: &xcc_ir::Module, first: usize, has_code: GpuMath) -> Option<String> {
    (first..m.ops.len()).map(xcc_ir::OpId::from_index).find_map(|op| {
        let d = &m.ops[op];
        let elem = d.results.first().map(|&r| m.ty(r).element_or_self().clone())?;
        (d.name.starts_with("math.") && !has_code(&d.name, &elem)).then(|| format!("{} on {elem}", d.name))
    })
}

pub use xcc_abi::c_identifier;
