//! Transforms within the math dialect.

pub mod device_math;
pub mod polynomial_approximation;
