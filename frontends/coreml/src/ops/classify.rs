//! `classify`, the end of a classifier: it turns `probabilities` into the top class's label and
//! a dictionary of label to probability. C has neither, so the label output becomes the top
//! class's index (int64) into the header's `NAME_class_labels`, and the dictionary output the
//! probabilities, in the labels' order.

use super::{Convert, OpContext};
use crate::value::Const;
use std::collections::HashMap;
use xcc_frontend_onnx::graph::Attr;

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("classify", classify);
}

fn classify(cx: &mut OpContext) -> Result<(), String> {
    let p = cx.input("probabilities")?;
    let labels = match cx.required("classes")? {
        Const::Strings(s) => s,
        Const::Tensor(t) => t.to_i64().iter().map(|v| v.to_string()).collect(),
        Const::List(items) => items
            .iter()
            .map(|c| match c {
                Const::Strings(s) if s.len() == 1 => Ok(s[0].clone()),
                Const::Tensor(t) => Ok(t.to_i64().first().map(|v| v.to_string()).unwrap_or_default()),
                _ => Err("a class label that is not a string or an integer".to_string()),
            })
            .collect::<Result<_, _>>()?,
    };
    if !cx.im.class_labels.is_empty() {
        return Err("a second classify operation".into());
    }
    cx.im.class_labels = labels;
    let rank = cx.input_rank("probabilities")? as i64;
    let top = cx.out(0)?;
    cx.emit("ArgMax", vec![p.clone()], vec![top], [("axis", Attr::Int(rank - 1)), ("keepdims", Attr::Int(0))]);
    if let Ok(probs) = cx.out(1) {
        cx.emit("Identity", vec![p], vec![probs], []);
    }
    Ok(())
}
