//! Neural-network operators with loops of their own, one per file: pooling, softmax, the
//! normalizations and transposed convolution. Each is an `scf.parallel` over its independent
//! outputs (rows, channels, output points) with its reductions serial inside.

mod attention;
mod batch_norm;
mod causal_conv;
mod chunked_rows;
mod col2im;
mod conv_transpose;
mod deform_conv;
mod det;
mod dft;
mod flex_attention;
mod global_pool;
mod grid_sample;
mod group_norm;
mod hardmax;
mod instance_norm;
mod layer_norm;
mod linear_attention;
mod loss;
mod lp_norm;
mod lp_pool;
mod lrn;
mod max_roi_pool;
mod mel_weight_matrix;
mod mvn;
mod non_max_suppression;
mod pool;
mod recurrent;
mod rms_norm;
mod roi_align;
pub(crate) mod rotary;
mod rows;
mod softmax;
mod stft;
mod tfidf;
pub mod window;
mod windows;

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::Expand;
use xcc_ir::ValueId;

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["MaxPool", "AveragePool"], &pool::Pool);
    r.register(&["GlobalAveragePool", "GlobalMaxPool"], &global_pool::GlobalPool);
    r.register(&["Softmax", "LogSoftmax"], &softmax::Softmax);
    r.register(&["LayerNormalization"], &layer_norm::LayerNormalization);
    r.register(&["BatchNormalization"], &batch_norm::BatchNormalization);
    r.register(&["InstanceNormalization"], &instance_norm::InstanceNormalization);
    r.register(&["ConvTranspose"], &conv_transpose::ConvTranspose);
    r.register(&["RNN", "GRU", "LSTM"], &recurrent::Recurrent);
    r.register(&["GridSample"], &grid_sample::GridSample);
    r.register(&["Col2Im"], &col2im::Col2Im);
    r.register(&["Det"], &det::Det);
    r.register(&["RoiAlign"], &roi_align::RoiAlign);
    r.register(&["MaxRoiPool"], &max_roi_pool::MaxRoiPool);
    r.register(&["NonMaxSuppression"], &non_max_suppression::NonMaxSuppression);
    r.register(&["STFT"], &stft::Stft);
    r.register(&["MelWeightMatrix"], &mel_weight_matrix::MelWeightMatrix);
    // Operators defined by others (crate::ops::expansion).
    r.register(&["Attention"], &Expand(attention::Attention));
    r.register(&["RMSNormalization"], &Expand(rms_norm::RmsNormalization));
    r.register(&["RotaryEmbedding"], &Expand(rotary::RotaryEmbedding));
    r.register(&["NegativeLogLikelihoodLoss"], &Expand(loss::NegativeLogLikelihoodLoss));
    r.register(&["SoftmaxCrossEntropyLoss"], &Expand(loss::SoftmaxCrossEntropyLoss));
    r.register(&["Hardmax"], &Expand(hardmax::Hardmax));
    r.register(&["LpNormalization"], &Expand(lp_norm::LpNormalization));
    r.register(&["LpPool"], &Expand(lp_pool::LpPool));
    r.register(&["MeanVarianceNormalization"], &Expand(mvn::MeanVarianceNormalization));
    r.register(&["GroupNormalization"], &Expand(group_norm::GroupNormalization));
    r.register(&["LRN"], &Expand(lrn::Lrn));
    r.register(&["CausalConvWithState"], &Expand(causal_conv::CausalConvWithState));
    r.register(&["LinearAttention"], &Expand(linear_attention::LinearAttention));
    r.register(&["TfIdfVectorizer"], &Expand(tfidf::TfIdfVectorizer));
    r.register(&["DeformConv"], &Expand(deform_conv::DeformConv));
    r.register_in(flex_attention::DOMAIN, &["FlexAttention"], &Expand(flex_attention::FlexAttention));
    r.register(&["DFT"], &Expand(dft::Dft));
    r.register(&["HannWindow", "HammingWindow", "BlackmanWindow"], &Expand(windows::Window));
}

/// The type of the node's first input, which must be floating point.
pub(super) fn float_input<'g>(node: &Node, g: &'g Graph) -> OResult<&'g TensorType> {
    let x = g.ty(&node.inputs[0])?;
    if !x.dtype.is_float() {
        return err(format!("input '{}' must be floating point, not {}", node.inputs[0], x.dtype.name()));
    }
    Ok(x)
}

/// An error unless each of the node's inputs at `positions` (those present) holds one value per
/// channel: dims `[channels]`, as the kernels index them.
pub(super) fn per_channel(node: &Node, g: &Graph, positions: &[usize], channels: usize) -> OResult<()> {
    for &i in positions {
        let Some(name) = node.input(i) else { continue };
        let t = g.ty(name)?;
        if t.is_dynamic() || t.shape != [channels] {
            let message =
                format!("{} needs one value per channel here, dims [{channels}], not {}", node.op, t.describe());
            return Err(OnnxError::tensor(name, message));
        }
    }
    Ok(())
}

/// The buffers of the optional outputs `first..first + count` (`None` where absent or unnamed).
fn optional_outputs(e: &Emitter, node: &Node, first: usize, count: usize) -> OResult<Vec<Option<ValueId>>> {
    (first..first + count)
        .map(|i| match node.outputs.get(i).filter(|o| !o.is_empty()) {
            Some(o) => e.buf(o).map(Some),
            None => Ok(None),
        })
        .collect()
}

impl Emitter {
    /// A binary arith op whose result has its operands' type.
    pub(super) fn fbin(&mut self, name: &str, a: ValueId, b: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        self.value_op(name, &[a, b], t)
    }

    /// A unary op (`math.exp`, ...) whose result has its operand's type.
    pub(super) fn unary(&mut self, name: &str, a: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        self.value_op(name, &[a], t)
    }

    pub(super) fn select_f(&mut self, c: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let t = self.m.ty(a).clone();
        self.value_op("arith.select", &[c, a, b], t)
    }

    /// The mean and the population variance of `x[index(ks)]` over the loop nest `extents`, in
    /// two passes (the mean first, then the squared deviations from it), as ONNX Runtime does.
    fn mean_variance(
        &mut self,
        x: ValueId,
        extents: &[Extent],
        d: DType,
        index: &dyn Fn(&[ValueId]) -> Vec<ValueId>,
    ) -> (ValueId, ValueId) {
        let zero = self.const_of(0.0, d);
        let sum = self.nest_accs_over(extents, &[zero], &mut |e, ks, acc| {
            let v = e.load(x, &index(ks));
            vec![e.fbin("arith.addf", acc[0], v)]
        })[0];
        let count = match self.extent_product(extents) {
            Extent::Fixed(n) => self.const_of(n as f64, d),
            Extent::Value(n) => {
                let n = self.value_op("arith.index_cast", &[n], xcc_ir::Type::i64());
                self.value_op("arith.sitofp", &[n], crate::emit::compute_type(d))
            }
        };
        let mean = self.fbin("arith.divf", sum, count);
        let squares = self.nest_accs_over(extents, &[zero], &mut |e, ks, acc| {
            let v = e.load(x, &index(ks));
            let dev = e.fbin("arith.subf", v, mean);
            vec![e.fmuladd(dev, dev, acc[0])]
        })[0];
        (mean, self.fbin("arith.divf", squares, count))
    }

    /// `sqrt(var + epsilon)`.
    fn std_dev(&mut self, var: ValueId, epsilon: f64, d: DType) -> ValueId {
        let eps = self.const_of(epsilon, d);
        let v = self.fbin("arith.addf", var, eps);
        self.unary("math.sqrt", v)
    }
}
