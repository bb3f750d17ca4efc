//! Operators, one folder per family (as onnx-mlir's `ONNXToKrnl/{Math,NN,Tensor}` and tract's
//! `onnx/src/ops/{math,nn,array}`). Each operator implements [`OnnxOp`]: its shape rule, its
//! constant folding, and its lowering to the kernel level; each family registers its operators
//! by name in the [`Registry`]. Where a family's operators differ only in data, they are a
//! table of that data: the elementwise operators (`elementwise/`: an IR and an f64 element
//! function side by side), the reductions (`reduce/reduction.rs`) and the data-movement ops
//! (`tensor/`: copies through affine maps that both lower and fold).
//!
//! To add an operator: a file in its family's folder with a type implementing [`OnnxOp`] (or an
//! entry in the family's table), registered in the family's `register` with its ONNX
//! [`schema::Schema`] (input counts and element types, checked before its rules run).

pub mod attr_types;
pub mod computed_data;
pub mod contrib;
pub mod control;
pub mod elementwise;
pub mod expansion;
pub mod gemm;
pub mod image;
pub mod ml;
pub mod nn;
pub mod quant;
pub mod random;
pub mod reduce;
pub mod resize;
pub mod sequence;
pub mod tensor;
pub mod training;

pub mod onnx_op;
pub mod schema;
pub mod shapes;
pub mod string;

pub use onnx_op::{OnnxOp, Registry};

/// The domain of the operators only xcc's expansions write (CacheWrite, TakenBranch, the
/// integer products' MatMulIntegerQuads): never read from a model.
pub const XCC_DOMAIN: &str = "xcc";
use std::sync::OnceLock;

/// Every family's operators.
pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r = Registry::default();
        elementwise::register(&mut r);
        tensor::register(&mut r);
        nn::register(&mut r);
        quant::register(&mut r);
        random::register(&mut r);
        sequence::register(&mut r);
        contrib::register(&mut r);
        control::register(&mut r);
        gemm::register(&mut r);
        reduce::register(&mut r);
        resize::register(&mut r);
        training::register(&mut r);
        ml::register(&mut r);
        string::register(&mut r);
        image::register(&mut r);
        r
    })
}
