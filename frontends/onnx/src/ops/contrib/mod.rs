//! ONNX Runtime's contrib operators (domain `com.microsoft`) that its graph optimizer and
//! quantizer write into saved models: each an expansion ([`crate::ops::expansion`]) into
//! default-domain operators, with the semantics of ONNX Runtime's contrib operator reference.

mod activations;
mod attention;
mod cache_write;
mod gather_block_quantized;
mod group_query_attention;
mod layer_norm;
mod matmul;
mod matmul_nbits;
mod quantized;
mod rotary;

use crate::ops::expansion::Expand;
use crate::ops::schema::{Elements, Schema};

pub const DOMAIN: &str = "com.microsoft";

/// The schema of the contrib operators that check their inputs themselves: their counts differ
/// between ONNX Runtime's versions, and they take packed and quantized tensors (MatMulNBits'
/// blocks, GatherBlockQuantized's int4 rows).
const CHECKS_ITS_INPUTS: Schema = Schema::counts_own_inputs().elements(Elements::Codes);

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register_in(
        DOMAIN,
        &["Gelu", "BiasGelu", "FastGelu", "QuickGelu", "BiasAdd"],
        &Expand(activations::Activation),
        CHECKS_ITS_INPUTS,
    );
    r.register_in(DOMAIN, &["FusedMatMul"], &Expand(matmul::FusedMatMul), CHECKS_ITS_INPUTS);
    r.register_in(DOMAIN, &["FusedConv"], &Expand(matmul::FusedConv), CHECKS_ITS_INPUTS);
    r.register_in(DOMAIN, &["FusedGemm"], &Expand(matmul::FusedGemm), CHECKS_ITS_INPUTS);
    r.register_in(DOMAIN, &["RotaryEmbedding"], &Expand(rotary::RotaryEmbedding), CHECKS_ITS_INPUTS);
    r.register_in(
        DOMAIN,
        &["SkipLayerNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization"],
        &Expand(layer_norm::LayerNorms),
        CHECKS_ITS_INPUTS,
    );
    // ONNX Runtime registers this one in the default domain (and models saved by it use that).
    r.register(&["SimplifiedLayerNormalization"], &Expand(layer_norm::LayerNorms), Schema::exactly(2));
    r.register_in(DOMAIN, &["MultiHeadAttention"], &Expand(attention::MultiHeadAttention), CHECKS_ITS_INPUTS);
    r.register_in(
        DOMAIN,
        &["Attention"],
        &Expand(attention::PackedAttention),
        Schema::inputs(2, 7).elements(Elements::Codes),
    );
    r.register_in(
        DOMAIN,
        &["GroupQueryAttention"],
        &Expand(group_query_attention::GroupQueryAttention),
        Schema::inputs(1, 12).elements(Elements::Codes),
    );
    r.register_in(
        crate::ops::XCC_DOMAIN,
        &["CacheWrite"],
        &cache_write::CacheWrite,
        Schema::exactly(4).elements(Elements::Codes),
    );
    r.register_in(
        DOMAIN,
        &[
            "QGemm",
            "QLinearAdd",
            "QLinearMul",
            "QLinearSigmoid",
            "QLinearLeakyRelu",
            "QLinearGlobalAveragePool",
            "QLinearConcat",
            "DynamicQuantizeMatMul",
            "MatMulIntegerToFloat",
        ],
        &Expand(quantized::Quantized),
        CHECKS_ITS_INPUTS,
    );
    r.register_in(
        DOMAIN,
        &["QLinearSoftmax"],
        &Expand(quantized::Quantized),
        Schema::inputs(1, 5).elements(Elements::Codes),
    );
    r.register_in(DOMAIN, &["MatMulNBits"], &Expand(matmul_nbits::MatMulNBits), CHECKS_ITS_INPUTS);
    r.register_in(
        crate::ops::XCC_DOMAIN,
        &["MatMulBlockwise"],
        &matmul_nbits::MatMulBlockwise,
        Schema::exactly(4).elements(Elements::Codes),
    );
    r.register_in(
        DOMAIN,
        &["GatherBlockQuantized"],
        &Expand(gather_block_quantized::GatherBlockQuantized),
        CHECKS_ITS_INPUTS,
    );
}
