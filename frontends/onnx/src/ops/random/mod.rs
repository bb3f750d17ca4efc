//! The random operators: RandomUniform, RandomNormal and their `Like` forms, Bernoulli and
//! Multinomial. Each element draws from Philox4x32-10 ([`philox`]), a counter-based generator:
//! its counter is the element's row-major index and its key the node's seed, so every element
//! is computed alone (the loops stay parallel, on threads or a GPU grid, with no shared state)
//! and the same seed gives the same tensor in every run, on every target.
//!
//! A node without a seed is keyed by its output's name instead: still the same tensor in every
//! run of the compiled model (ONNX leaves such a node's values to the implementation).

mod distributions;
mod philox;

use crate::ops::schema::Schema;

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    use distributions::*;
    r.register(&["RandomUniform"], &RandomFill { normal: false, like: false }, Schema::exactly(0));
    r.register(&["RandomNormal"], &RandomFill { normal: true, like: false }, Schema::exactly(0));
    r.register(&["RandomUniformLike"], &RandomFill { normal: false, like: true }, Schema::exactly(1));
    r.register(&["RandomNormalLike"], &RandomFill { normal: true, like: true }, Schema::exactly(1));
    r.register(&["Bernoulli"], &Bernoulli, Schema::exactly(1));
    r.register(&["Multinomial"], &Multinomial, Schema::exactly(1));
}
