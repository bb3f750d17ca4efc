//! Transforms within the math dialect.

pub mod device_math;
pub mod polynomial_approximation;

use xcc_ir::Type;

/// Whether GPU code can compute math op `name` on elements of type `elem`: NVPTX has code for
/// it ([`crate::conversion::math_to_llvm::gpu_supports`]), or `math-polynomial-approximation`
/// rewrites it on GPUs (f32 exp, erf, tanh and [`device_math::NAMES`]). For frontends, which
/// name the nodes that cannot run on a GPU before anything is lowered.
pub fn gpu_has_code(name: &str, elem: &Type) -> bool {
    let f32_rewritten = *elem == Type::f32()
        && (["math.exp", "math.erf", "math.tanh"].contains(&name) || device_math::NAMES.contains(&name));
    f32_rewritten || crate::conversion::math_to_llvm::gpu_supports(name, elem)
}
