//! `lstm`: ONNX's LSTM, with MIL's layouts turned into ONNX's by nodes that fold away (the
//! weights are constants):
//! - gates: MIL orders each weight's and bias's blocks input, forget, output, cell; ONNX input,
//!   output, forget, cell. Peepholes: MIL input, forget, output; ONNX input, output, forget.
//! - MIL's bias is one `[4H]` (the two biases summed); ONNX's `B` has room for two, `[8H]`.
//! - MIL's states are `[batch, directions * H]`; ONNX's `[directions, batch, H]`, and its
//!   sequence output `[seq, directions, batch, H]` where MIL's is `[seq, batch, directions * H]`.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType, Tensor};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("lstm", lstm);
}

fn onnx_activation(mil: &str) -> Result<&'static str, String> {
    Ok(match mil {
        "sigmoid" => "Sigmoid",
        "tanh" => "Tanh",
        "relu" => "Relu",
        other => return Err(format!("lstm activation '{other}' is not supported")),
    })
}

/// A weight's `blocks` row blocks put in `order`.
fn reorder(cx: &mut OpContext, w: String, blocks: usize, order: &[i64]) -> String {
    let parts: Vec<String> = (0..blocks).map(|_| cx.im.fresh("gate")).collect();
    let name = cx.name();
    cx.im.node(
        "Split",
        &name,
        vec![w],
        parts.clone(),
        [("axis", Attr::Int(0)), ("num_outputs", Attr::Int(blocks as i64))],
    );
    let ordered = order.iter().map(|&k| parts[k as usize].clone()).collect();
    cx.temp("Concat", ordered, [("axis", Attr::Int(0))])
}

/// One direction's weights in ONNX's gate order, with a leading direction axis.
fn direction_weights(
    cx: &mut OpContext,
    suffix: &str,
    h: usize,
) -> Result<(String, String, Option<String>, Option<String>), String> {
    const GATES: [i64; 4] = [0, 2, 1, 3];
    let zero_axis = cx.i64s(&[0]);
    let w = cx.input(&format!("weight_ih{suffix}"))?;
    let w = reorder(cx, w, 4, &GATES);
    let w = cx.temp("Unsqueeze", vec![w, zero_axis.clone()], []);
    let r = cx.input(&format!("weight_hh{suffix}"))?;
    let r = reorder(cx, r, 4, &GATES);
    let r = cx.temp("Unsqueeze", vec![r, zero_axis.clone()], []);
    let b = match cx.opt_input(&format!("bias{suffix}"))? {
        Some(b) => {
            let b = reorder(cx, b, 4, &GATES);
            let zeros = cx.im.constant("zeros", Tensor::from_f64(DType::F32, vec![4 * h], &vec![0.0; 4 * h]));
            let b = cx.temp("Concat", vec![b, zeros], [("axis", Attr::Int(0))]);
            Some(cx.temp("Unsqueeze", vec![b, zero_axis.clone()], []))
        }
        None => None,
    };
    let p = match cx.opt_input(&format!("peephole{suffix}"))? {
        Some(p) => {
            let p = reorder(cx, p, 3, &[0, 2, 1]);
            Some(cx.temp("Unsqueeze", vec![p, zero_axis], []))
        }
        None => None,
    };
    Ok((w, r, b, p))
}

/// `[batch, directions * H]` -> `[directions, batch, H]`.
fn state_in(cx: &mut OpContext, param: &str, dirs: usize, h: usize) -> Result<String, String> {
    let v = cx.input(param)?;
    let shape = cx.i64s(&[0, dirs as i64, h as i64]);
    let v = cx.temp("Reshape", vec![v, shape], []);
    Ok(cx.temp("Transpose", vec![v], [("perm", Attr::Ints(vec![1, 0, 2]))]))
}

/// `[directions, batch, H]` -> `[lead..., batch, directions * H]` into `out` (the batch as -1:
/// it may be known only at run time).
fn state_out(cx: &mut OpContext, v: String, lead: &[i64], width: usize, out: String) {
    let t = cx.temp("Transpose", vec![v], [("perm", Attr::Ints(vec![1, 0, 2]))]);
    let mut dims = lead.to_vec();
    dims.extend([-1, width as i64]);
    let shape = cx.i64s(&dims);
    cx.emit("Reshape", vec![t, shape], vec![out], []);
}

fn lstm(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    if cx.input_rank("x")? != 3 {
        return Err("the input is not [seq, batch, features]".into());
    }
    let h = *cx.input_shape("weight_hh")?.get(1).ok_or("weight_hh is not a matrix")?;
    let direction = cx.string("direction", "forward")?;
    let dirs = if direction == "bidirectional" { 2 } else { 1 };
    let mut per_direction = vec![direction_weights(cx, "", h)?];
    if dirs == 2 {
        per_direction.push(direction_weights(cx, "_back", h)?);
    }
    let join = |cx: &mut OpContext, parts: Vec<String>| -> String {
        if parts.len() == 1 {
            parts.into_iter().next().expect("one")
        } else {
            cx.temp("Concat", parts, [("axis", Attr::Int(0))])
        }
    };
    let w = join(cx, per_direction.iter().map(|d| d.0.clone()).collect());
    let r = join(cx, per_direction.iter().map(|d| d.1.clone()).collect());
    let b = match per_direction.iter().map(|d| d.2.clone()).collect::<Option<Vec<_>>>() {
        Some(parts) => join(cx, parts),
        None => String::new(),
    };
    let p = match per_direction.iter().map(|d| d.3.clone()).collect::<Option<Vec<_>>>() {
        Some(parts) => join(cx, parts),
        None => String::new(),
    };
    let h0 = if cx.has("initial_h") { state_in(cx, "initial_h", dirs, h)? } else { String::new() };
    let c0 = if cx.has("initial_c") { state_in(cx, "initial_c", dirs, h)? } else { String::new() };
    let activations: Vec<String> = ["recurrent_activation", "cell_activation", "activation"]
        .iter()
        .zip(["sigmoid", "tanh", "tanh"])
        .map(|(k, d)| cx.string(k, d).and_then(|a| onnx_activation(&a).map(str::to_string)))
        .collect::<Result<_, _>>()?;
    let activations: Vec<String> = (0..dirs).flat_map(|_| activations.clone()).collect();
    let mut attrs = vec![
        ("hidden_size", Attr::Int(h as i64)),
        ("direction", Attr::Str(direction.clone())),
        ("activations", Attr::Strs(activations)),
    ];
    if cx.has("clip") {
        attrs.push(("clip", Attr::Float(cx.float("clip", 0.0)? as f32)));
    }
    let (y, yh, yc) = (cx.im.fresh("Y"), cx.im.fresh("Y_h"), cx.im.fresh("Y_c"));
    let inputs = vec![x, w, r, b, String::new(), h0, c0, p];
    cx.emit("LSTM", inputs, vec![y.clone(), yh.clone(), yc.clone()], attrs);
    let width = dirs * h;
    if cx.boolean("output_sequence", false)? {
        // [seq, dirs, batch, H] -> [seq, batch, dirs, H] -> [seq, batch, dirs * H] (0: the
        // input's dim, which may be known only at run time)
        let t = cx.temp("Transpose", vec![y], [("perm", Attr::Ints(vec![0, 2, 1, 3]))]);
        let shape = cx.i64s(&[0, 0, width as i64]);
        cx.finish("Reshape", vec![t, shape], [])?;
    } else {
        let out = cx.out(0)?;
        state_out(cx, yh.clone(), &[1], width, out);
    }
    if let Ok(out) = cx.out(1) {
        state_out(cx, yh, &[], width, out);
    }
    if let Ok(out) = cx.out(2) {
        state_out(cx, yc, &[], width, out);
    }
    Ok(())
}
