//! The `ai.onnx.ml` domain (classic machine learning: scikit-learn models converted to ONNX),
//! one file per operator, each an expansion ([`crate::ops::expansion`]) into default-domain
//! operators, except LabelEncoder, which looks its keys up itself (strings among them). The
//! string variants of the others are not supported.

mod array_feature_extractor;
mod binarizer;
mod label_encoder;
mod tree_ensemble;

use crate::ops::expansion::Expand;
use crate::ops::schema::{Elements, Schema};

pub const DOMAIN: &str = "ai.onnx.ml";

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register_in(
        DOMAIN,
        &["ArrayFeatureExtractor"],
        &Expand(array_feature_extractor::ArrayFeatureExtractor),
        Schema::exactly(2).elements(Elements::Codes),
    );
    r.register_in(DOMAIN, &["Binarizer"], &Expand(binarizer::Binarizer), Schema::exactly(1).elements(Elements::Codes));
    r.register_in(DOMAIN, &["LabelEncoder"], &label_encoder::LabelEncoder, Schema::exactly(1).elements(Elements::Any));
    r.register_in(
        DOMAIN,
        &["TreeEnsemble"],
        &Expand(tree_ensemble::TreeEnsemble),
        Schema::exactly(1).elements(Elements::Codes),
    );
}
