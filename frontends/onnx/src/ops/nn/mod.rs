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
pub(crate) mod rows;
mod softmax;
mod stft;
mod tfidf;
pub mod window;
mod windows;

use crate::emit::{Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::expansion::Expand;
use crate::ops::schema::{Elements, Group, Schema};
use xcc_ir::ValueId;

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["MaxPool", "AveragePool"], &pool::Pool, Schema::exactly(1));
    r.register(&["GlobalAveragePool", "GlobalMaxPool"], &global_pool::GlobalPool, Schema::exactly(1));
    r.register(&["Softmax", "LogSoftmax"], &softmax::Softmax, Schema::exactly(1));
    r.register(&["LayerNormalization"], &layer_norm::LayerNormalization, Schema::inputs(2, 3).same_type(Group::All));
    r.register(&["BatchNormalization"], &batch_norm::BatchNormalization, Schema::exactly(5).same_type(Group::All));
    r.register(
        &["InstanceNormalization"],
        &instance_norm::InstanceNormalization,
        Schema::exactly(3).same_type(Group::All),
    );
    r.register(&["ConvTranspose"], &conv_transpose::ConvTranspose, Schema::inputs(2, 3).same_type(Group::All));
    r.register(
        &["RNN", "GRU"],
        &recurrent::Recurrent,
        // X, W, R, B and initial_h (sequence_lens, input 4, is an integer).
        Schema::inputs(3, 6).outputs_optional().same_type(Group::Inputs(&[0, 1, 2, 3, 5])).index(&[4]),
    );
    r.register(
        &["LSTM"],
        &recurrent::Recurrent,
        // X, W, R, B, initial_h, initial_c and P.
        Schema::inputs(3, 8).outputs_optional().same_type(Group::Inputs(&[0, 1, 2, 3, 5, 6, 7])).index(&[4]),
    );
    r.register(&["GridSample"], &grid_sample::GridSample, Schema::exactly(2).same_type(Group::All));
    r.register(&["Col2Im"], &col2im::Col2Im, Schema::exactly(3));
    r.register(&["Det"], &det::Det, Schema::exactly(1));
    r.register(&["RoiAlign"], &roi_align::RoiAlign, Schema::exactly(3).same_type(Group::Inputs(&[0, 1])).int64(&[2]));
    r.register(&["MaxRoiPool"], &max_roi_pool::MaxRoiPool, Schema::exactly(2).same_type(Group::All));
    // Boxes, scores and the two thresholds are float; max_output_boxes_per_class is int64.
    let boxes_and_thresholds = Group::Inputs(&[0, 1, 3, 4]);
    let nms = Schema::inputs(2, 5).same_type(boxes_and_thresholds).int64(&[2]);
    r.register(&["NonMaxSuppression"], &non_max_suppression::NonMaxSuppression, nms);
    r.register(&["STFT"], &stft::Stft, Schema::inputs(2, 4));
    r.register(&["MelWeightMatrix"], &mel_weight_matrix::MelWeightMatrix, Schema::exactly(5));
    // Operators defined by others (crate::ops::expansion).
    r.register(&["Attention"], &Expand(attention::Attention), Schema::inputs(3, 7));
    r.register_in(crate::ops::XCC_DOMAIN, &["AttentionRows"], &attention::AttentionRows, Schema::inputs(3, 4));
    r.register(&["RMSNormalization"], &Expand(rms_norm::RmsNormalization), Schema::exactly(2));
    r.register(&["RotaryEmbedding"], &Expand(rotary::RotaryEmbedding), Schema::inputs(3, 4));
    r.register(&["NegativeLogLikelihoodLoss"], &Expand(loss::NegativeLogLikelihoodLoss), Schema::inputs(2, 3));
    r.register(&["SoftmaxCrossEntropyLoss"], &Expand(loss::SoftmaxCrossEntropyLoss), Schema::inputs(2, 3));
    r.register(&["Hardmax"], &Expand(hardmax::Hardmax), Schema::exactly(1));
    r.register(&["LpNormalization"], &Expand(lp_norm::LpNormalization), Schema::exactly(1));
    r.register(&["LpPool"], &Expand(lp_pool::LpPool), Schema::exactly(1));
    r.register(&["MeanVarianceNormalization"], &Expand(mvn::MeanVarianceNormalization), Schema::exactly(1));
    r.register(&["GroupNormalization"], &Expand(group_norm::GroupNormalization), Schema::exactly(3));
    r.register(&["LRN"], &Expand(lrn::Lrn), Schema::exactly(1));
    r.register(&["CausalConvWithState"], &Expand(causal_conv::CausalConvWithState), Schema::inputs(2, 4));
    r.register(&["LinearAttention"], &Expand(linear_attention::LinearAttention), Schema::inputs(3, 6));
    r.register(&["TfIdfVectorizer"], &Expand(tfidf::TfIdfVectorizer), Schema::exactly(1));
    r.register(&["DeformConv"], &Expand(deform_conv::DeformConv), Schema::inputs(3, 5));
    r.register_in(
        flex_attention::DOMAIN,
        &["FlexAttention"],
        &Expand(flex_attention::FlexAttention),
        Schema::exactly(3).elements(Elements::Codes),
    );
    r.register(&["DFT"], &Expand(dft::Dft), Schema::inputs(1, 3));
    r.register(&["HannWindow", "HammingWindow", "BlackmanWindow"], &Expand(windows::Window), Schema::exactly(1));
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
