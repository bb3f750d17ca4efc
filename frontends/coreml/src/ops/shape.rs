//! Operators that move data: reshapes, transposes, slices, gathers, concatenation and
//! splitting, padding, tiling, `band_part`, `fill`, `range_1d`, `topk` and upsampling.

use super::{Convert, OpContext};
use std::collections::HashMap;
use xcc_frontend_onnx::graph::{Attr, DType, Tensor};

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("reshape", |cx| {
        let x = cx.input("x")?;
        let shape = shape_input(cx, "shape")?;
        cx.finish("Reshape", vec![x, shape], [])
    });
    r.insert("transpose", |cx| {
        let x = cx.input("x")?;
        let perm = cx.ints("perm")?.ok_or("the parameter 'perm' is missing")?;
        cx.finish("Transpose", vec![x], [("perm", Attr::Ints(perm))])
    });
    r.insert("squeeze", |cx| {
        let x = cx.input("x")?;
        let mut inputs = vec![x];
        if let Some(axes) = cx.ints("axes")? {
            inputs.push(cx.i64s(&axes));
        }
        cx.finish("Squeeze", inputs, [])
    });
    r.insert("expand_dims", |cx| {
        let x = cx.input("x")?;
        let axes = cx.ints("axes")?.ok_or("the parameter 'axes' is missing")?;
        let axes = cx.i64s(&axes);
        cx.finish("Unsqueeze", vec![x, axes], [])
    });
    r.insert("flatten2d", |cx| {
        let x = cx.input("x")?;
        let axis = cx.int("axis", 1)?;
        cx.finish("Flatten", vec![x], [("axis", Attr::Int(axis))])
    });
    r.insert("concat", |cx| {
        let values = cx.inputs("values")?;
        let axis = cx.int("axis", 0)?;
        if cx.boolean("interleave", false)? {
            return interleave(cx, values, axis);
        }
        cx.finish("Concat", values, [("axis", Attr::Int(axis))])
    });
    r.insert("stack", |cx| {
        let values = cx.inputs("values")?;
        let axis = cx.int("axis", 0)?;
        let axes = cx.i64s(&[axis]);
        let parts = values.into_iter().map(|v| cx.temp("Unsqueeze", vec![v, axes.clone()], [])).collect();
        cx.finish("Concat", parts, [("axis", Attr::Int(axis))])
    });
    r.insert("split", split);
    r.insert("slice_by_index", slice_by_index);
    r.insert("slice_by_size", slice_by_size);
    r.insert("gather", |cx| {
        let (x, indices) = (cx.input("x")?, cx.input("indices")?);
        if cx.int("batch_dims", 0)? != 0 {
            return Err("gather with batch_dims is not supported".into());
        }
        let axis = cx.int("axis", 0)?;
        cx.finish("Gather", vec![x, indices], [("axis", Attr::Int(axis))])
    });
    r.insert("gather_along_axis", |cx| {
        let (x, indices) = (cx.input("x")?, cx.input("indices")?);
        let axis = cx.int("axis", 0)?;
        cx.finish("GatherElements", vec![x, indices], [("axis", Attr::Int(axis))])
    });
    r.insert("gather_nd", |cx| {
        let (x, indices) = (cx.input("x")?, cx.input("indices")?);
        let indices = cx.temp("Cast", vec![indices], [("to", Attr::Int(DType::I64.onnx_code() as i64))]);
        cx.finish("GatherND", vec![x, indices], [])
    });
    r.insert("scatter", scatter);
    r.insert("scatter_along_axis", |cx| {
        let (data, indices, updates) = (cx.input("data")?, cx.input("indices")?, cx.input("updates")?);
        let axis = cx.int("axis", 0)?;
        let reduction = reduction(&cx.string("mode", "add")?)?;
        cx.finish(
            "ScatterElements",
            vec![data, indices, updates],
            [("axis", Attr::Int(axis)), ("reduction", Attr::Str(reduction.into()))],
        )
    });
    r.insert("tile", |cx| {
        let x = cx.input("x")?;
        let reps = shape_input(cx, "reps")?;
        cx.finish("Tile", vec![x, reps], [])
    });
    r.insert("pad", pad);
    r.insert("shape", |cx| {
        let x = cx.input("x")?;
        let s = cx.temp("Shape", vec![x], []);
        cx.finish("Cast", vec![s], [("to", Attr::Int(DType::I32.onnx_code() as i64))])
    });
    r.insert("fill", |cx| {
        let shape = shape_input(cx, "shape")?;
        let v = cx.float("value", 0.0)?;
        let value = Tensor::from_f64(DType::F32, vec![1], &[v]);
        cx.finish("ConstantOfShape", vec![shape], [("value", Attr::Tensor(value))])
    });
    r.insert("range_1d", |cx| {
        let (start, end, step) = (cx.input("start")?, cx.input("end")?, cx.input("step")?);
        cx.finish("Range", vec![start, end, step], [])
    });
    r.insert("band_part", band_part);
    r.insert("topk", topk);
    r.insert("argsort", argsort);
    r.insert("reverse", |cx| {
        let x = cx.input("x")?;
        let rank = cx.input_rank("x")? as i64;
        let axes = cx.ints("axes")?.unwrap_or_else(|| (0..rank).collect());
        let n = axes.len();
        let inputs = vec![x, cx.i64s(&vec![-1; n]), cx.i64s(&vec![i64::MIN; n]), cx.i64s(&axes), cx.i64s(&vec![-1; n])];
        cx.finish("Slice", inputs, [])
    });
    r.insert("pixel_shuffle", |cx| {
        let x = cx.input("x")?;
        let r = cx.int("upscale_factor", 1)?;
        cx.finish("DepthToSpace", vec![x], [("blocksize", Attr::Int(r)), ("mode", Attr::Str("CRD".into()))])
    });
    r.insert("depth_to_space", |cx| {
        let x = cx.input("x")?;
        let r = cx.int("block_size", 1)?;
        cx.finish("DepthToSpace", vec![x], [("blocksize", Attr::Int(r)), ("mode", Attr::Str("DCR".into()))])
    });
    r.insert("space_to_depth", |cx| {
        let x = cx.input("x")?;
        let r = cx.int("block_size", 1)?;
        cx.finish("SpaceToDepth", vec![x], [("blocksize", Attr::Int(r))])
    });
    r.insert("pixel_unshuffle", pixel_unshuffle);
    r.insert("one_hot", one_hot);
    r.insert("upsample_nearest_neighbor", |cx| upsample(cx, "nearest"));
    r.insert("upsample_bilinear", |cx| upsample(cx, "linear"));
}

/// A shape-like parameter as int64 (MIL's are int32): a constant, or a cast of a run-time value.
fn shape_input(cx: &mut OpContext, param: &str) -> Result<String, String> {
    if let Ok(Some(v)) = cx.ints(param) {
        return Ok(cx.i64s(&v));
    }
    let v = cx.input(param)?;
    Ok(cx.temp("Cast", vec![v], [("to", Attr::Int(DType::I64.onnx_code() as i64))]))
}

fn split(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let axis = cx.int("axis", 0)?;
    let outputs = cx.outs.to_vec();
    let mut inputs = vec![x];
    let mut attrs = vec![("axis", Attr::Int(axis))];
    match cx.ints("split_sizes")? {
        Some(sizes) => inputs.push(cx.i64s(&sizes)),
        None => attrs.push(("num_outputs", Attr::Int(outputs.len() as i64))),
    }
    cx.emit("Split", inputs, outputs, attrs);
    Ok(())
}

/// numpy's `x[begin:end:stride]` per axis, where a set `begin_mask` or `end_mask` means "from
/// the start" or "to the end", and a set `squeeze_mask` takes the element at `begin` and drops
/// the axis.
fn slice_by_index(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")?;
    let begin = cx.ints("begin")?.ok_or("'begin' must be known at compile time")?;
    let end = cx.ints("end")?.ok_or("'end' must be known at compile time")?;
    let stride = cx.ints("stride")?.unwrap_or(vec![1; rank]);
    let (begin_mask, end_mask, squeeze) =
        (cx.bools("begin_mask", rank)?, cx.bools("end_mask", rank)?, cx.bools("squeeze_mask", rank)?);
    if [begin.len(), end.len(), stride.len(), begin_mask.len(), end_mask.len(), squeeze.len()]
        .iter()
        .any(|&n| n != rank)
    {
        return Err(format!("the parameters' lengths differ from the input's rank {rank}"));
    }
    let (mut starts, mut ends, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rank {
        let forward = stride[i] > 0;
        let mut start = if begin_mask[i] {
            if forward {
                0
            } else {
                i64::MAX
            }
        } else {
            begin[i]
        };
        let mut stop = if end_mask[i] {
            if forward {
                i64::MAX
            } else {
                i64::MIN
            }
        } else {
            end[i]
        };
        let mut step = stride[i];
        if squeeze[i] {
            start = begin[i];
            stop = if start == -1 { i64::MAX } else { start + 1 };
            step = 1;
        }
        starts.push(start);
        ends.push(stop);
        steps.push(step);
    }
    let axes: Vec<i64> = (0..rank as i64).collect();
    let inputs = vec![x, cx.i64s(&starts), cx.i64s(&ends), cx.i64s(&axes), cx.i64s(&steps)];
    let squeezed: Vec<i64> = (0..rank as i64).filter(|&i| squeeze[i as usize]).collect();
    if squeezed.is_empty() {
        return cx.finish("Slice", inputs, []);
    }
    let sliced = cx.temp("Slice", inputs, []);
    let axes = cx.i64s(&squeezed);
    cx.finish("Squeeze", vec![sliced, axes], [])
}

/// `size` elements from `begin` per axis; a size of -1 runs to the end.
fn slice_by_size(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let begin = cx.ints("begin")?.ok_or("'begin' must be known at compile time")?;
    let size = cx.ints("size")?.ok_or("'size' must be known at compile time")?;
    if begin.len() != size.len() {
        return Err("'begin' and 'size' differ in length".into());
    }
    let ends: Vec<i64> = begin.iter().zip(&size).map(|(&b, &s)| if s < 0 { i64::MAX } else { b + s }).collect();
    let axes: Vec<i64> = (0..begin.len() as i64).collect();
    let inputs = vec![x, cx.i64s(&begin), cx.i64s(&ends), cx.i64s(&axes)];
    cx.finish("Slice", inputs, [])
}

/// `pad` lists (begin, end) for the last dims; `mode` constant, reflect or replicate.
fn pad(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")?;
    let pad = cx.ints("pad")?.ok_or("'pad' must be known at compile time")?;
    if pad.len() % 2 != 0 || pad.len() / 2 > rank {
        return Err(format!("'pad' has {} values for an input of rank {rank}", pad.len()));
    }
    let mut full = vec![0; 2 * rank - pad.len()];
    full.extend(&pad);
    let pads = cx.i64s(&super::onnx_pads(&full));
    let mode = match cx.string("mode", "constant")?.as_str() {
        "constant" => "constant",
        "reflect" => "reflect",
        "replicate" => "edge",
        other => return Err(format!("unknown pad mode '{other}'")),
    };
    let value = cx.float("constant_val", 0.0)?;
    let value = cx.scalar(value, DType::F32);
    cx.finish("Pad", vec![x, pads, value], [("mode", Attr::Str(mode.into()))])
}

/// Keeps the band `-lower <= j - i <= upper` of the last two dims (a negative bound keeps that
/// whole side): ONNX's Trilu once per bound.
fn band_part(cx: &mut OpContext) -> Result<(), String> {
    let mut v = cx.input("x")?;
    let (lower, upper) = (cx.int("lower", -1)?, cx.int("upper", -1)?);
    if upper >= 0 {
        let k = cx.im.constant("k", Tensor::from_i64(vec![], &[upper]));
        v = cx.temp("Trilu", vec![v, k], [("upper", Attr::Int(0))]);
    }
    if lower >= 0 {
        let k = cx.im.constant("k", Tensor::from_i64(vec![], &[-lower]));
        v = cx.temp("Trilu", vec![v, k], [("upper", Attr::Int(1))]);
    }
    cx.finish("Identity", vec![v], [])
}

/// The `k` largest (or smallest, `ascending`) along `axis`: values, and indices as int32.
fn topk(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let k = cx.int("k", 1)?;
    let axis = cx.int("axis", -1)?;
    let largest = !cx.boolean("ascending", false)?;
    let k = cx.i64s(&[k]);
    let indices = cx.im.fresh("indices");
    let values = cx.out(0)?;
    cx.emit(
        "TopK",
        vec![x, k],
        vec![values, indices.clone()],
        [("axis", Attr::Int(axis)), ("largest", Attr::Int(i64::from(largest)))],
    );
    if let Ok(out) = cx.out(1) {
        cx.emit("Cast", vec![indices], vec![out], [("to", Attr::Int(DType::I32.onnx_code() as i64))]);
    }
    Ok(())
}

/// Scales the last two dims by `scale_factor_height` and `scale_factor_width`.
fn upsample(cx: &mut OpContext, mode: &str) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")?;
    let (h, w) = (cx.float("scale_factor_height", 1.0)?, cx.float("scale_factor_width", 1.0)?);
    let mut scales = vec![1.0; rank - 2];
    scales.extend([h, w]);
    let scales = cx.im.constant("scales", Tensor::from_f64(DType::F32, vec![rank], &scales));
    let mut attrs = vec![("mode", Attr::Str(mode.into()))];
    if mode == "nearest" {
        attrs.push(("coordinate_transformation_mode", Attr::Str("asymmetric".into())));
        attrs.push(("nearest_mode", Attr::Str("floor".into())));
    } else {
        let align = cx.boolean("align_corners", false)?;
        let half_pixel = cx.boolean("half_pixel_centers", !align)?;
        let ctm = if align {
            "align_corners"
        } else if half_pixel {
            "half_pixel"
        } else {
            "asymmetric"
        };
        attrs.push(("coordinate_transformation_mode", Attr::Str(ctm.into())));
    }
    cx.finish("Resize", vec![x, String::new(), scales], attrs)
}

/// ONNX's scatter `reduction` for a MIL scatter `mode`.
fn reduction(mode: &str) -> Result<&'static str, String> {
    Ok(match mode {
        "update" => "none",
        "add" => "add",
        "mul" => "mul",
        "max" => "max",
        "min" => "min",
        other => return Err(format!("scatter mode '{other}' is not supported")),
    })
}

/// `data` with the slices at `indices` along `axis` set to (or combined with) `updates`:
/// ONNX's ScatterND on the data with that axis first.
fn scatter(cx: &mut OpContext) -> Result<(), String> {
    let (data, indices, updates) = (cx.input("data")?, cx.input("indices")?, cx.input("updates")?);
    let rank = cx.input_rank("data")? as i64;
    let axis = cx.int("axis", 0)?;
    let axis = if axis < 0 { axis + rank } else { axis };
    let reduction = reduction(&cx.string("mode", "add")?)?;
    let mut perm: Vec<i64> = (0..rank).collect();
    perm.remove(axis as usize);
    perm.insert(0, axis);
    let to_front = |cx: &mut OpContext, v: String| -> String {
        if axis == 0 {
            v
        } else {
            cx.temp("Transpose", vec![v], [("perm", Attr::Ints(perm.clone()))])
        }
    };
    let (data, updates) = (to_front(cx, data), to_front(cx, updates));
    let last = cx.i64s(&[-1]);
    let indices = cx.temp("Cast", vec![indices], [("to", Attr::Int(DType::I64.onnx_code() as i64))]);
    let indices = cx.temp("Unsqueeze", vec![indices, last], []);
    let attrs = [("reduction", Attr::Str(reduction.into()))];
    if axis == 0 {
        return cx.finish("ScatterND", vec![data, indices, updates], attrs);
    }
    let scattered = cx.temp("ScatterND", vec![data, indices, updates], attrs);
    let mut back = vec![0; rank as usize];
    for (i, &p) in perm.iter().enumerate() {
        back[p as usize] = i as i64;
    }
    cx.finish("Transpose", vec![scattered], [("perm", Attr::Ints(back))])
}

/// `concat` with `interleave`: the inputs' slices along `axis` taken in turn (a channel shuffle):
/// each input gets an axis after `axis`, they are concatenated along it, and the two merge.
fn interleave(cx: &mut OpContext, values: Vec<String>, axis: i64) -> Result<(), String> {
    let rank = cx.input_rank("values")? as i64;
    let axis = if axis < 0 { axis + rank } else { axis };
    let after = cx.fixed_dims("values", axis as usize + 1.., "the dims after the axis of an interleaving concat")?;
    let inner = cx.i64s(&[axis + 1]);
    let parts = values.into_iter().map(|v| cx.temp("Unsqueeze", vec![v, inner.clone()], [])).collect();
    let stacked = cx.temp("Concat", parts, [("axis", Attr::Int(axis + 1))]);
    // The dims before the axis copied (0), the axis and the new one merged (-1), the rest as they are.
    let mut shape = vec![0; axis as usize];
    shape.push(-1);
    shape.extend(after.iter().map(|&d| d as i64));
    let shape = cx.i64s(&shape);
    cx.finish("Reshape", vec![stacked, shape], [])
}

/// Indices that sort `x` along `axis` (int32), descending unless `ascending`: ONNX's TopK over
/// the whole axis.
fn argsort(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let rank = cx.input_rank("x")? as i64;
    let axis = cx.int("axis", -1)?;
    let axis = if axis < 0 { axis + rank } else { axis };
    let n = cx.fixed_dims("x", axis as usize.., "the sorted axis")?[0];
    let largest = !cx.boolean("ascending", false)?;
    let k = cx.i64s(&[n as i64]);
    let (values, indices) = (cx.im.fresh("values"), cx.im.fresh("indices"));
    let attrs = [("axis", Attr::Int(axis)), ("largest", Attr::Int(i64::from(largest)))];
    cx.emit("TopK", vec![x, k], vec![values, indices.clone()], attrs);
    cx.finish("Cast", vec![indices], [("to", Attr::Int(DType::I32.onnx_code() as i64))])
}

/// torch's pixel_unshuffle: `out[n, c*r*r + i*r + j, h, w] = x[n, c, h*r + i, w*r + j]`.
fn pixel_unshuffle(cx: &mut OpContext) -> Result<(), String> {
    let x = cx.input("x")?;
    let r = cx.int("downscale_factor", 1)?;
    let [c, h, w] = cx.fixed_dims("x", 1.., "the channels and the image size")?[..] else {
        return Err("the input is not [N, C, H, W]".into());
    };
    let (c, h, w) = (c as i64, h as i64, w as i64);
    if r <= 0 || h % r != 0 || w % r != 0 {
        return Err(format!("a {h}x{w} image does not divide into {r}x{r} blocks"));
    }
    let split = cx.i64s(&[0, c, h / r, r, w / r, r]);
    let blocks = cx.temp("Reshape", vec![x, split], []);
    let moved = cx.temp("Transpose", vec![blocks], [("perm", Attr::Ints(vec![0, 1, 3, 5, 2, 4]))]);
    let merged = cx.i64s(&[0, c * r * r, h / r, w / r]);
    cx.finish("Reshape", vec![moved, merged], [])
}

/// `indices` as one-hot vectors of `one_hot_vector_size` along `axis`, of the type of
/// `on_value` and `off_value`.
fn one_hot(cx: &mut OpContext) -> Result<(), String> {
    let indices = cx.input("indices")?;
    let depth = cx.int("one_hot_vector_size", 0)?;
    let axis = cx.int("axis", -1)?;
    let on = cx.known("on_value")?.and_then(|c| c.tensor().cloned());
    let off = cx.known("off_value")?.and_then(|c| c.tensor().cloned());
    let dtype = on.as_ref().map_or(DType::F32, |t| t.ty.dtype);
    let value = |t: Option<Tensor>, default: f64| t.map_or(default, |t| t.to_f64()[0]);
    let values = Tensor::from_f64(dtype, vec![2], &[value(off, 0.0), value(on, 1.0)]);
    let values = cx.im.constant("values", values);
    let depth = cx.im.constant("depth", Tensor::from_i64(vec![], &[depth]));
    cx.finish("OneHot", vec![indices, depth, values], [("axis", Attr::Int(axis))])
}
