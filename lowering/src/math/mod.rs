//! Transforms within the math dialect.

pub mod device_derived;
pub mod device_f64;
pub mod device_math;
pub mod polynomial_approximation;

use xcc_ir::types::FloatKind;
use xcc_ir::Type;

/// Whether `math-polynomial-approximation` rewrites math op `name` on `elem`s for GPUs: exp,
/// erf, tanh, [`device_math::NAMES`] and [`device_derived::NAMES`] on f32 and f64.
pub fn gpu_rewrites(name: &str, elem: &Type) -> bool {
    let named = ["math.exp", "math.erf", "math.tanh"].contains(&name)
        || device_math::NAMES.contains(&name)
        || device_derived::NAMES.contains(&name);
    named && matches!(elem, Type::Float(FloatKind::F32 | FloatKind::F64))
}

/// Whether GPU code can compute math op `name` on elements of type `elem`: NVPTX has code for
/// it ([`crate::conversion::math_to_llvm::gpu_supports`]), or [`gpu_rewrites`] holds. For
/// frontends, which name the nodes that cannot run on a GPU before anything is lowered.
pub fn gpu_has_code(name: &str, elem: &Type) -> bool {
    gpu_rewrites(name, elem) || crate::conversion::math_to_llvm::gpu_supports(name, elem)
}
