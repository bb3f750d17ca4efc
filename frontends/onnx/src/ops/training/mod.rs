//! The optimizers of the `ai.onnx.preview.training` domain: one step of Adagrad, Adam and
//! Momentum, each an expansion ([`crate::ops::expansion`]) into elementwise arithmetic, as the
//! domain's operator reference writes them in pseudo code. A compiled step is what an
//! on-device trainer runs after its gradient: the parameters and their optimizer state in,
//! the updated ones out.

mod optimizers;

use crate::ops::expansion::Expand;
use crate::ops::schema::{Elements, Schema, ANY};

pub const DOMAIN: &str = "ai.onnx.preview.training";

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register_in(DOMAIN, &["Adagrad"], &Expand(optimizers::Adagrad), Schema::inputs(3, ANY).elements(Elements::Codes));
    r.register_in(DOMAIN, &["Adam"], &Expand(optimizers::Adam), Schema::inputs(3, ANY).elements(Elements::Codes));
    r.register_in(
        DOMAIN,
        &["Momentum"],
        &Expand(optimizers::Momentum),
        Schema::inputs(3, ANY).elements(Elements::Codes),
    );
}
