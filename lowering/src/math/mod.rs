//! Transforms within the math dialect.

pub mod polynomial_approximation;
