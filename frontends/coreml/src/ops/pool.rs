//! `avg_pool`, `max_pool` and `l2_pool`.

use super::{padding, Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::Attr;

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("avg_pool", |cx| {
        let exclude = cx.boolean("exclude_padding_from_average", false)?;
        pool(cx, "AveragePool", vec![("count_include_pad", Attr::Int(i64::from(!exclude)))])
    });
    r.insert("max_pool", |cx| pool(cx, "MaxPool", vec![]));
    r.insert("l2_pool", |cx| pool(cx, "LpPool", vec![("p", Attr::Int(2))]));
}

fn pool(cx: &mut OpContext, onnx: &str, mut attrs: Vec<(&str, Attr)>) -> Result<(), String> {
    let x = cx.input("x")?;
    let kernel = cx.ints("kernel_sizes")?.ok_or("the parameter 'kernel_sizes' is missing")?;
    let spatial = kernel.len();
    attrs.extend(padding(cx, spatial)?);
    attrs.push(("kernel_shape", Attr::Ints(kernel)));
    attrs.push(("strides", Attr::Ints(cx.ints("strides")?.unwrap_or(vec![1; spatial]))));
    if onnx != "LpPool" {
        attrs.push(("ceil_mode", Attr::Int(i64::from(cx.boolean("ceil_mode", false)?))));
    }
    cx.finish(onnx, vec![x], attrs)
}
