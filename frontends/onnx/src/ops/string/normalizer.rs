//! StringNormalizer: the strings not among `stopwords` (compared in lower case unless
//! `is_case_sensitive`), in upper or lower case or unchanged, along the last dim of a `[C]` or
//! `[1, C]` input (`C` may be a run-time dim). How many are kept is measured before the run starts
//! (the input must be a graph input); when none is, the output is one empty string, as ONNX says. Case changes cover
//! ASCII, Latin-1, Greek and Cyrillic letters (runtime-c's `xcc_string_change_case`); the
//! `locale` attribute is not read.

use super::{c_string, measured_input};
use crate::data_dim::{DataOp, Measure};
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::OnnxOp;
use xcc_ir::Type;

pub struct StringNormalizer;

fn stopwords(node: &Node) -> Vec<Vec<u8>> {
    match node.attrs.get("stopwords") {
        Some(Attr::Strs(v)) => v.iter().map(|s| s.as_bytes().to_vec()).collect(),
        _ => Vec::new(),
    }
}

/// 1 for upper case, 0 for lower case, `None` to leave the case.
fn case_change(node: &Node) -> OResult<Option<i64>> {
    match node.string("case_change_action").unwrap_or("NONE") {
        "NONE" => Ok(None),
        "UPPER" => Ok(Some(1)),
        "LOWER" => Ok(Some(0)),
        other => err(format!("StringNormalizer's case_change_action is NONE, UPPER or LOWER, not '{other}'")),
    }
}

impl OnnxOp for StringNormalizer {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (x, count) = measured_input(node, g, &node.inputs[0], true)?;
        case_change(node)?;
        if !(x.shape.len() == 1 || x.shape.len() == 2 && x.shape[0] == 1) {
            return err(format!("StringNormalizer takes a [C] or [1, C] input, not {:?}", x.shape));
        }
        let measure =
            Measure::Kept { stopwords: stopwords(node), case_sensitive: node.int("is_case_sensitive", 0) != 0 };
        let kept = DataExpr::Measured { input: node.inputs[0].clone(), count, measure };
        let kept =
            g.data_dim(format!("{}.kept", node.outputs[0]), DataExpr::op(DataOp::Max, vec![kept, DataExpr::num(1)]));
        let mut dims = x.dims();
        *dims.last_mut().expect("rank 1 or 2") = kept;
        Ok(vec![TensorType::with_dims(DType::Str, dims)])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?.clone();
        let strings = e.dim_extent(xt.dims().last().expect("rank 1 or 2"));
        let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let (x, y) = (e.flat(x), e.flat(y));
        let words = stopwords(node);
        let list = super::bytes_address(e, &crate::strings::joined(&words));
        let count = e.const_int(words.len() as i128, Type::i64());
        let sensitive = e.const_int(i128::from(node.int("is_case_sensitive", 0) != 0), Type::i32());
        let change = case_change(node)?;
        let upper = change.map(|u| e.const_int(u as i128, Type::i32()));
        let zero = e.idx(0);
        let kept = e.for_acc_over(strings, zero, |e, i, kept| {
            let s = e.load(x, &[i]);
            let stop = runtime_call(e, "xcc_string_in_list", &[s, list, count, sensitive], Type::i32());
            let none = e.const_int(0, Type::i32());
            let keep = e.cmpi("eq", stop, none);
            e.if_then(keep, |e| {
                let s = match upper {
                    Some(u) => runtime_call(e, "xcc_string_change_case", &[s, u], Type::i64()),
                    None => s,
                };
                e.store(s, y, &[kept]);
            });
            let (one, zero) = (e.idx(1), e.idx(0));
            let step = e.value_op("arith.select", &[keep, one, zero], Type::Index);
            e.value_op("arith.addi", &[kept, step], Type::Index)
        });
        let none = e.cmpi("eq", kept, zero);
        let empty = c_string(e, b"");
        e.if_then(none, |e| e.store(empty, y, &[zero]));
        Ok(())
    }
}
