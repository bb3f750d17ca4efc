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
mod quantized;
mod rotary;

use crate::ops::expansion::Expand;

pub const DOMAIN: &str = "com.microsoft";

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register_in(DOMAIN, &["Gelu", "BiasGelu", "FastGelu", "QuickGelu", "BiasAdd"], &Expand(activations::Activation));
    r.register_in(DOMAIN, &["FusedMatMul"], &Expand(matmul::FusedMatMul));
    r.register_in(DOMAIN, &["FusedConv"], &Expand(matmul::FusedConv));
    r.register_in(DOMAIN, &["FusedGemm"], &Expand(matmul::FusedGemm));
    r.register_in(DOMAIN, &["RotaryEmbedding"], &Expand(rotary::RotaryEmbedding));
    r.register_in(
        DOMAIN,
        &["SkipLayerNormalization", "SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization"],
        &Expand(layer_norm::LayerNorms),
    );
    // ONNX Runtime registers this one in the default domain (and models saved by it use that).
    r.register(&["SimplifiedLayerNormalization"], &Expand(layer_norm::LayerNorms));
    r.register_in(DOMAIN, &["MultiHeadAttention"], &Expand(attention::MultiHeadAttention));
    r.register_in(DOMAIN, &["Attention"], &Expand(attention::PackedAttention));
    r.register_in(DOMAIN, &["GroupQueryAttention"], &Expand(group_query_attention::GroupQueryAttention));
    r.register_in(crate::ops::XCC_DOMAIN, &["CacheWrite"], &cache_write::CacheWrite);
    r.register_in(
        DOMAIN,
        &[
            "QGemm",
            "QLinearAdd",
            "QLinearMul",
            "QLinearSigmoid",
            "QLinearSoftmax",
            "QLinearLeakyRelu",
            "QLinearGlobalAveragePool",
            "QLinearConcat",
            "DynamicQuantizeMatMul",
            "MatMulIntegerToFloat",
        ],
        &Expand(quantized::Quantized),
    );
    r.register_in(DOMAIN, &["MatMulNBits"], &Expand(quantized::MatMulNBits));
    r.register_in(DOMAIN, &["GatherBlockQuantized"], &Expand(gather_block_quantized::GatherBlockQuantized));
}
