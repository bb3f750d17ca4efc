//! StringSplit: each string cut at a delimiter (or at runs of whitespace with none given), at
//! most `maxsplit` times, as Python's `str.split`. The parts go along a new last dim as long as
//! the most parts any string has (the run measures it before it starts, so the input must be a
//! graph input: of any static shape, or a vector of a run-time length), padded with empty
//! strings; the second output is each string's part count.

use super::{at, measured_input};
use crate::data_dim::Measure;
use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::OnnxOp;
use xcc_ir::builder::Extent;
use xcc_ir::Type;

pub struct StringSplit;

/// The delimiter ("" for whitespace) and the most splits (-1 for no limit).
fn params(node: &Node) -> (Vec<u8>, i64) {
    let delimiter = node.string("delimiter").unwrap_or("").as_bytes().to_vec();
    (delimiter, node.int("maxsplit", -1).max(-1))
}

impl OnnxOp for StringSplit {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let (x, count) = measured_input(node, g, &node.inputs[0], false)?;
        let (delimiter, maxsplit) = params(node);
        let measure = Measure::MostParts { delimiter, maxsplit };
        let expr = DataExpr::Measured { input: node.inputs[0].clone(), count, measure };
        let parts = g.data_dim(format!("{}.parts", node.outputs[0]), expr);
        let mut dims = x.dims();
        dims.push(parts);
        Ok(vec![TensorType::with_dims(DType::Str, dims), TensorType::with_dims(DType::I64, x.dims())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?.clone();
        let yt = g.ty(&node.outputs[0])?.clone();
        let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let counts = node.outputs.get(1).filter(|o| !o.is_empty()).map(|o| e.buf(o)).transpose()?;
        let (delimiter, maxsplit) = params(node);
        let d = super::c_string(e, &delimiter);
        let m = e.const_int(maxsplit as i128, Type::i64());
        // A vector of a run-time length (measured_input), or any static shape, flattened.
        let n = if xt.is_dynamic() { e.dim_extent(&xt.dims()[0]) } else { Extent::Fixed(xt.numel()) };
        let parts = e.dim_extent(yt.dims().last().expect("the parts dim"));
        let x = if xt.shape.len() > 1 { e.flat(x) } else { x };
        let y = e.reshaped_over(y, &[n, parts]);
        let counts = counts.map(|c| if xt.shape.len() > 1 { e.flat(c) } else { c });
        let rank = xt.shape.len();
        // Where the string's next part starts: runtime-c moves it along, one pass per string.
        let cursor = e.alloc_tensor(&TensorType::new(DType::I64, vec![1]));
        let cursor_address = e.address_of(cursor);
        let zero = e.idx(0);
        e.for_loop_over(n, |e, i| {
            let s = e.load(x, &at(rank, i));
            if let Some(c) = counts {
                let count = runtime_call(e, "xcc_string_split_count", &[s, d, m], Type::i64());
                e.store(count, c, &at(rank, i));
            }
            e.store(s, cursor, &[zero]);
            e.for_loop_over(parts, |e, k| {
                // Part `maxsplit` is the rest of the string, whole.
                let last = match maxsplit {
                    -1 => e.const_int(0, Type::i32()),
                    m => {
                        let m = e.idx(m);
                        let at_last = e.cmpi("eq", k, m);
                        e.value_op("arith.extui", &[at_last], Type::i32())
                    }
                };
                let part = runtime_call(e, "xcc_string_split_next", &[cursor_address, d, last], Type::i64());
                e.store(part, y, &[i, k]);
            });
        });
        Ok(())
    }
}
