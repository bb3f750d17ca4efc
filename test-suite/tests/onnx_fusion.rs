//! The graph fusion passes against live ONNX Runtime: a Conv followed by BatchNormalization, a
//! residual Add and a Relu (all folded into one GEMM epilogue), and a MatMul followed by an Add of
//! a same-shaped tensor and a Clip; also the unfused forms, where the intermediate is also an
//! output so it cannot be fused away. And the kernels of issue 7 on small graphs of their own:
//! rows of one folded into a GEMM over packed panels, depthwise convolutions, and an
//! EfficientNet-style SiLU and squeeze-excitation block. And MatMuls of 4- and 8-bit weights
//! dequantized in blocks (the QDQ form of MatMulNBits), whose library must hold them packed.

use std::path::Path;
use std::process::Command;
use xcc_test_suite::onnx_build::{floats, model, node, pseudo_random, value, with_int, with_ints, with_opset, FLOAT};
use xcc_test_suite::{suite_dir, xcc_binary};

fn run_case(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    inputs: &[(&str, Vec<i64>)],
    outputs: &[(&str, usize)],
) -> Result<(), String> {
    run_case_with_files(dir, name, (bytes, &[]), (&[], &[]), inputs, outputs)
}

/// Like `run_case`, compiled with these extra xcc flags.
fn run_case_with_flags(
    dir: &Path,
    name: &str,
    (bytes, flags): (&[u8], &[&str]),
    inputs: &[(&str, Vec<i64>)],
    outputs: &[(&str, usize)],
) -> Result<(), String> {
    run_case_with_files(dir, name, (bytes, flags), (&[], &[]), inputs, outputs)
}

/// Files written next to a model (external data), and entries of ONNX Runtime's session
/// configuration.
type Surroundings<'a> = (&'a [(&'a str, Vec<u8>)], &'a [(&'a str, &'a str)]);

/// Like `run_case`, with [`Surroundings`].
fn run_case_with_files(
    dir: &Path,
    name: &str,
    (bytes, flags): (&[u8], &[&str]),
    (files, ort_config): Surroundings,
    inputs: &[(&str, Vec<i64>)],
    outputs: &[(&str, usize)],
) -> Result<(), String> {
    let root = suite_dir().parent().unwrap().to_path_buf();
    let python = root.join(".venv/bin/python");
    let d = dir.join(name);
    std::fs::create_dir_all(&d).unwrap();
    for (file, data) in files {
        std::fs::write(d.join(file), data).unwrap();
    }
    std::fs::write(d.join("m.onnx"), bytes).unwrap();
    let out = Command::new(xcc_binary())
        .arg(d.join("m.onnx"))
        .args(flags)
        .args(["-o"])
        .arg(d.join("libm.a"))
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!("{name}: xcc failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    // Inputs as raw files; a C harness runs the model; ONNX Runtime runs the same model.
    let mut c = String::from(
        "#include \"m.h\"\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nint main(void){\n",
    );
    let mut args = Vec::new();
    for (k, (iname, dims)) in inputs.iter().enumerate() {
        let n: i64 = dims.iter().product();
        let data = pseudo_random(n as usize, k as u64 + 7);
        std::fs::write(d.join(format!("{iname}.bin")), data.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
            .unwrap();
        c += &format!(
            "float *i{k} = malloc({n}*4); FILE *f{k} = fopen(\"{}\", \"rb\"); fread(i{k}, 4, {n}, f{k});\n",
            d.join(format!("{iname}.bin")).display()
        );
        args.push(format!("i{k}"));
    }
    for (k, (_, n)) in outputs.iter().enumerate() {
        // NaN-filled: an output element the model does not write (or reads before writing)
        // shows.
        c += &format!("float *o{k} = malloc({n}*4); memset(o{k}, 0xff, {n}*4);\n");
        args.push(format!("o{k}"));
    }
    c += &format!("if (m_run_alloc({})) return 3;\n", args.join(", "));
    for (k, (oname, n)) in outputs.iter().enumerate() {
        c += &format!(
            "FILE *g{k} = fopen(\"{}\", \"wb\"); fwrite(o{k}, 4, {n}, g{k}); fclose(g{k});\n",
            d.join(format!("{oname}.xcc")).display()
        );
    }
    c += "return 0;}\n";
    std::fs::write(d.join("h.c"), c).unwrap();
    let st = Command::new("cc")
        .arg("-I")
        .arg(&d)
        .arg(d.join("h.c"))
        .arg(d.join("libm.a"))
        .args(["-lm", "-lpthread", "-o"])
        .arg(d.join("h"))
        .status()
        .unwrap();
    if !st.success() {
        return Err(format!("{name}: the C harness did not build"));
    }
    let feeds: Vec<String> = inputs
        .iter()
        .map(|(iname, dims)| {
            format!(
                "'{iname}': np.fromfile('{}', dtype=np.float32).reshape({dims:?})",
                d.join(format!("{iname}.bin")).display()
            )
        })
        .collect();
    let script = format!(
        "import numpy as np, onnxruntime as ort\nso = ort.SessionOptions()\n{}s = ort.InferenceSession('{}', so, providers=['CPUExecutionProvider'])\nr = s.run(None, {{{}}})\nfor o, v in zip([o.name for o in s.get_outputs()], r): v.astype(np.float32).tofile('{}/' + o + '.ort')\n",
        ort_config.iter().map(|(k, v)| format!("so.add_session_config_entry('{k}', '{v}')\n")).collect::<String>(),
        d.join("m.onnx").display(),
        feeds.join(", "),
        d.display()
    );
    let st = Command::new(python).arg("-c").arg(script).status().unwrap();
    if !st.success() {
        return Err(format!("{name}: onnxruntime failed"));
    }
    // The library carries code for several x86-64 levels (the GEMM's tiles differ with
    // AVX-512): each one this machine runs is forced in turn.
    for level in xcc_test_suite::cpu_levels() {
        let mut harness = Command::new(d.join("h"));
        if let Some(l) = level {
            harness.env("XCC_CPU_LEVEL", l.to_string());
        }
        let at = level.map(|l| format!(" at x86-64 level {l}")).unwrap_or_default();
        if !harness.status().unwrap().success() {
            return Err(format!("{name}: the C harness failed{at}"));
        }
        compare_outputs(&d, &format!("{name}{at}"), outputs)?;
    }
    println!("PASS {name}");
    Ok(())
}

/// Each output the harness wrote (`NAME.xcc`) against ONNX Runtime's (`NAME.ort`).
fn compare_outputs(d: &Path, name: &str, outputs: &[(&str, usize)]) -> Result<(), String> {
    for (oname, _) in outputs {
        let read = |ext: &str| -> Vec<f32> {
            std::fs::read(d.join(format!("{oname}.{ext}")))
                .unwrap()
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect()
        };
        let (x, o) = (read("xcc"), read("ort"));
        if x.len() != o.len() {
            return Err(format!("{name}: output '{oname}' has {} elements, onnxruntime gives {}", x.len(), o.len()));
        }
        for (i, (a, b)) in x.iter().zip(&o).enumerate() {
            // Written so that a NaN on either side fails (NaN compares false).
            let close = (a - b).abs() <= 1e-5 + 1e-4 * b.abs() || (a.is_nan() && b.is_nan());
            if !close {
                return Err(format!("{name}: output '{oname}' element {i} is {a}, onnxruntime gives {b}"));
            }
        }
    }
    Ok(())
}

fn conv_bn_residual(also_output_conv: bool) -> Vec<u8> {
    let (c, k) = (8i64, 3i64);
    let w = floats("w", &[c, c, k, k], &pseudo_random((c * c * k * k) as usize, 1));
    let b = floats("b", &[c], &pseudo_random(c as usize, 2));
    let scale = floats("scale", &[c], &pseudo_random(c as usize, 3).iter().map(|v| v + 1.5).collect::<Vec<_>>());
    let bias = floats("bias", &[c], &pseudo_random(c as usize, 4));
    let mean = floats("mean", &[c], &pseudo_random(c as usize, 5));
    let var = floats("var", &[c], &pseudo_random(c as usize, 6).iter().map(|v| v.abs() + 0.5).collect::<Vec<_>>());
    let conv = with_ints(node("conv", "Conv", &["x", "w", "b"], &["c"]), "pads", &[1, 1, 1, 1]);
    let nodes = vec![
        conv,
        node("bn", "BatchNormalization", &["c", "scale", "bias", "mean", "var"], &["n"]),
        node("add", "Add", &["n", "x"], &["s"]),
        node("relu", "Relu", &["s"], &["y"]),
    ];
    let mut outputs = vec![value("y", FLOAT, &[1, c, 10, 9])];
    if also_output_conv {
        outputs.push(value("c", FLOAT, &[1, c, 10, 9]));
    }
    model(nodes, vec![value("x", FLOAT, &[1, c, 10, 9])], outputs, vec![w, b, scale, bias, mean, var])
}

fn matmul_add_clip() -> Vec<u8> {
    let mut clip = node("clip", "Clip", &["s", "lo", "hi"], &["y"]);
    clip.name = Some("clip".into());
    let nodes = vec![node("mm", "MatMul", &["a", "w"], &["p"]), node("add", "Add", &["r", "p"], &["s"]), clip];
    let w = floats("w", &[24, 20], &pseudo_random(24 * 20, 9));
    let lo = floats("lo", &[], &[-0.5]);
    let hi = floats("hi", &[], &[0.75]);
    model(
        nodes,
        vec![value("a", FLOAT, &[2, 19, 24]), value("r", FLOAT, &[2, 19, 20])],
        vec![value("y", FLOAT, &[2, 19, 20])],
        vec![w, lo, hi],
    )
}

/// A [7, 1, 33] input (seven rows of one) times a weight reached through Identity, plus a bias:
/// the batches fold into one GEMM of 7 rows, the weight stays a constant (Identity folds) and
/// is packed in column panels with a ragged last one (N = 17).
fn rows_of_one_times_weight() -> Vec<u8> {
    let nodes = vec![
        node("id", "Identity", &["w0"], &["w"]),
        node("mm", "MatMul", &["a", "w"], &["p"]),
        node("add", "Add", &["p", "bias"], &["y"]),
    ];
    let w = floats("w0", &[33, 17], &pseudo_random(33 * 17, 5));
    let bias = floats("bias", &[17], &pseudo_random(17, 6));
    model(nodes, vec![value("a", FLOAT, &[7, 1, 33])], vec![value("y", FLOAT, &[7, 1, 17])], vec![w, bias])
}

/// Two depthwise convolutions (one filter per channel, the direct kernel): strides (2, 1),
/// dilations (2, 1), uneven pads (1, 0, 2, 1), a bias and a Relu; then 3x3 with pads of 1, no
/// bias, plus the first one's output as a residual. Two images.
fn depthwise_pair() -> Vec<u8> {
    use xcc_frontend_onnx::proto::{attribute_proto, AttributeProto};
    let group = |mut n: xcc_frontend_onnx::proto::NodeProto, g: i64| {
        n.attribute.push(AttributeProto {
            name: Some("group".into()),
            r#type: Some(attribute_proto::AttributeType::Int as i32),
            i: Some(g),
            ..Default::default()
        });
        n
    };
    let c = 6i64;
    let w1 = floats("w1", &[c, 1, 3, 3], &pseudo_random((c * 9) as usize, 11));
    let b1 = floats("b1", &[c], &pseudo_random(c as usize, 12));
    let w2 = floats("w2", &[c, 1, 3, 3], &pseudo_random((c * 9) as usize, 13));
    let dw1 = with_ints(node("dw1", "Conv", &["x", "w1", "b1"], &["c1"]), "strides", &[2, 1]);
    let dw1 = with_ints(with_ints(dw1, "dilations", &[2, 1]), "pads", &[1, 0, 2, 1]);
    let dw2 = with_ints(node("dw2", "Conv", &["r1", "w2"], &["c2"]), "pads", &[1, 1, 1, 1]);
    let nodes = vec![
        group(dw1, c),
        node("relu", "Relu", &["c1"], &["r1"]),
        group(dw2, c),
        node("add", "Add", &["c2", "r1"], &["y"]),
    ];
    model(nodes, vec![value("x", FLOAT, &[2, c, 11, 9])], vec![value("y", FLOAT, &[2, c, 5, 8])], vec![w1, b1, w2])
}

/// A depthwise 5x5 convolution over rows wider than a vector (37 columns: two whole vectors and
/// five lanes), its column taps dilated by 2 and padded by 4, with a bias and a Clip to [0, 6].
fn depthwise_wide() -> Vec<u8> {
    depthwise_5x5(&[1, 1], 37, &[2, 5, 9, 37])
}

/// [`depthwise_wide`] over rows of 100 columns (seven vectors: summed in a group of four and one
/// of three) and of 300 (nineteen, one at a time in a loop).
fn depthwise_rows(width: i64) -> Vec<u8> {
    depthwise_5x5(&[1, 1], width, &[2, 5, 9, width])
}

/// [`depthwise_wide`] at strides (2, 2): 19 output columns, each reading every other input
/// column.
fn depthwise_strided_columns() -> Vec<u8> {
    depthwise_5x5(&[2, 2], 37, &[2, 5, 5, 19])
}

/// A dilated, padded 5x5 depthwise convolution over `[2, 5, 9, width]` with a bias and a Clip.
fn depthwise_5x5(strides: &[i64], width: i64, out: &[i64]) -> Vec<u8> {
    let c = 5i64;
    let w = floats("w", &[c, 1, 5, 5], &pseudo_random((c * 25) as usize, 14));
    let b = floats("b", &[c], &pseudo_random(c as usize, 15));
    let dw = with_ints(node("dw", "Conv", &["x", "w", "b"], &["c"]), "dilations", &[1, 2]);
    let dw = with_int(with_ints(with_ints(dw, "pads", &[2, 4, 2, 4]), "strides", strides), "group", c);
    let lo = floats("lo", &[], &[0.0]);
    let hi = floats("hi", &[], &[6.0]);
    let nodes = vec![dw, node("clip", "Clip", &["c", "lo", "hi"], &["y"])];
    model(nodes, vec![value("x", FLOAT, &[2, c, 9, width])], vec![value("y", FLOAT, out)], vec![w, b, lo, hi])
}

/// An EfficientNet-style block: 3x3 conv, SiLU (x * Sigmoid(x)), a depthwise 3x3, then
/// squeeze-excitation (GlobalAveragePool, 1x1 conv, Relu, 1x1 conv, Sigmoid, a broadcast Mul):
/// the depthwise kernel and the polynomial exp behind Sigmoid on a real block.
fn squeeze_excitation_block() -> Vec<u8> {
    use xcc_frontend_onnx::proto::{attribute_proto, AttributeProto};
    let c = 12i64;
    let mut dw = with_ints(node("dw", "Conv", &["a1", "wd"], &["d"]), "pads", &[1, 1, 1, 1]);
    dw.attribute.push(AttributeProto {
        name: Some("group".into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(c),
        ..Default::default()
    });
    let nodes = vec![
        with_ints(node("conv", "Conv", &["x", "w1", "b1"], &["c1"]), "pads", &[1, 1, 1, 1]),
        node("sig", "Sigmoid", &["c1"], &["s1"]),
        node("silu", "Mul", &["c1", "s1"], &["a1"]),
        dw,
        node("gap", "GlobalAveragePool", &["d"], &["g"]),
        node("fc1", "Conv", &["g", "ws1", "bs1"], &["r"]),
        node("relu", "Relu", &["r"], &["r1"]),
        node("fc2", "Conv", &["r1", "ws2", "bs2"], &["e"]),
        node("gate", "Sigmoid", &["e"], &["ge"]),
        node("scale", "Mul", &["d", "ge"], &["y"]),
    ];
    let inits = vec![
        floats("w1", &[c, 3, 3, 3], &pseudo_random((c * 27) as usize, 21)),
        floats("b1", &[c], &pseudo_random(c as usize, 22)),
        floats("wd", &[c, 1, 3, 3], &pseudo_random((c * 9) as usize, 23)),
        floats("ws1", &[c / 2, c, 1, 1], &pseudo_random((c * c / 2) as usize, 24)),
        floats("bs1", &[c / 2], &pseudo_random((c / 2) as usize, 25)),
        floats("ws2", &[c, c / 2, 1, 1], &pseudo_random((c * c / 2) as usize, 26)),
        floats("bs2", &[c], &pseudo_random(c as usize, 27)),
    ];
    model(nodes, vec![value("x", FLOAT, &[1, 3, 17, 15])], vec![value("y", FLOAT, &[1, c, 17, 15])], inits)
}

/// Longer reductions and ragged edges: a MatMul with K = 600, a ragged N = 40 (a narrow panel
/// tile), 74 rows (two left over after the 6-row tiles), a residual and a Clip; then a 3x3
/// convolution with 32 input channels (K = 288) over a 9x11 image (P = 99: a narrow tile of the
/// im2col panels), with a bias and a Relu.
fn long_k_ragged_edges() -> Vec<u8> {
    let mut clip = node("clip", "Clip", &["s", "lo", "hi"], &["y"]);
    clip.name = Some("clip".into());
    let conv = with_ints(node("conv", "Conv", &["x", "wc", "bc"], &["c"]), "pads", &[1, 1, 1, 1]);
    let nodes = vec![
        node("mm", "MatMul", &["a", "w"], &["p"]),
        node("add", "Add", &["r", "p"], &["s"]),
        clip,
        conv,
        node("relu", "Relu", &["c"], &["z"]),
    ];
    let inits = vec![
        floats("w", &[600, 40], &pseudo_random(600 * 40, 31)),
        floats("lo", &[], &[-2.0]),
        floats("hi", &[], &[2.5]),
        floats("wc", &[16, 32, 3, 3], &pseudo_random(16 * 32 * 9, 32)),
        floats("bc", &[16], &pseudo_random(16, 33)),
    ];
    model(
        nodes,
        vec![value("a", FLOAT, &[2, 37, 600]), value("r", FLOAT, &[2, 37, 40]), value("x", FLOAT, &[1, 32, 9, 11])],
        vec![value("y", FLOAT, &[2, 37, 40]), value("z", FLOAT, &[1, 16, 9, 11])],
        inits,
    )
}

/// A static plane whose im2col columns pass 1 MiB goes a block of columns at a time: a 3x3
/// convolution with pads, 24 input and 13 output channels (two rows left over after the 6-row
/// tiles) over 2 images of 63x65 (P = 4095: 14 blocks of 288 columns and one of 63), with a
/// bias, a residual and a Relu fused into the GEMM.
fn blocked_static_plane() -> Vec<u8> {
    let conv = with_ints(node("conv", "Conv", &["x", "w", "b"], &["c"]), "pads", &[1, 1, 1, 1]);
    let nodes = vec![conv, node("add", "Add", &["c", "r"], &["s"]), node("relu", "Relu", &["s"], &["y"])];
    let inits =
        vec![floats("w", &[13, 24, 3, 3], &pseudo_random(13 * 24 * 9, 41)), floats("b", &[13], &pseudo_random(13, 42))];
    model(
        nodes,
        vec![value("x", FLOAT, &[2, 24, 63, 65]), value("r", FLOAT, &[2, 13, 63, 65])],
        vec![value("y", FLOAT, &[2, 13, 63, 65])],
        inits,
    )
}

/// Winograd's F(2x2, 3x3): a 3x3 convolution with a bias, a residual Add of its input and a
/// Relu in the epilogue, over a batch of 2 and odd planes (13 x 11: the last tile row and column
/// are half outside the output). The plane is one block.
fn winograd_residual_relu() -> Vec<u8> {
    let conv = with_ints(node("conv", "Conv", &["x", "w", "b"], &["c"]), "pads", &[1, 1, 1, 1]);
    let nodes = vec![conv, node("add", "Add", &["c", "x"], &["s"]), node("relu", "Relu", &["s"], &["y"])];
    let inits =
        vec![floats("w", &[16, 16, 3, 3], &pseudo_random(16 * 16 * 9, 51)), floats("b", &[16], &pseudo_random(16, 52))];
    model(nodes, vec![value("x", FLOAT, &[2, 16, 13, 11])], vec![value("y", FLOAT, &[2, 16, 13, 11])], inits)
}

/// F(2x2, 3x3) with uneven pads (top 0, left 2, bottom 3, right 1: 77 x 9 -> 78 x 10) and a
/// Clip: 39 tile rows of 5 tiles go in two full blocks dealt to slots and a last block of 3 tile
/// rows, fewer tiles than a vector, whose GEMM columns run past its tiles.
fn winograd_uneven_pads() -> Vec<u8> {
    let conv = with_ints(node("conv", "Conv", &["x", "w"], &["c"]), "pads", &[0, 2, 3, 1]);
    let nodes = vec![conv, node("clip", "Clip", &["c", "lo", "hi"], &["y"])];
    let inits = vec![
        floats("w", &[40, 48, 3, 3], &pseudo_random(40 * 48 * 9, 53)),
        floats("lo", &[], &[-0.5]),
        floats("hi", &[], &[0.75]),
    ];
    model(nodes, vec![value("x", FLOAT, &[1, 48, 77, 9])], vec![value("y", FLOAT, &[1, 40, 78, 10])], inits)
}

/// F(2x2, 3x3) over rows of 35 tiles (three vectors, the last of 3 lanes) in blocks of several
/// tile rows, with a last, shorter block; 40 filters (a ragged GEMM row tile).
fn winograd_wide_rows() -> Vec<u8> {
    let conv = with_ints(node("conv", "Conv", &["x", "w", "b"], &["y"]), "pads", &[1, 1, 1, 1]);
    let inits =
        vec![floats("w", &[40, 24, 3, 3], &pseudo_random(40 * 24 * 9, 55)), floats("b", &[40], &pseudo_random(40, 56))];
    model(vec![conv], vec![value("x", FLOAT, &[1, 24, 62, 70])], vec![value("y", FLOAT, &[1, 40, 62, 70])], inits)
}

/// The rows a GEMM's row tiles leave over, in tiles of several vectors: one row (a GEMV: 64
/// columns, then 16, then 10 ragged), ten (8 + 2 with AVX-512, 6 + 4 with AVX2) and three, each
/// times one packed weight plus a bias, then a Relu.
fn rest_rows() -> Vec<u8> {
    let layer = |x: &str, y: &str| {
        let p = format!("{y}_p");
        let s = format!("{y}_s");
        vec![
            node(&p, "MatMul", &[x, "w"], &[&p]),
            node(&s, "Add", &[&p, "bias"], &[&s]),
            node(&format!("{y}_relu"), "Relu", &[&s], &[y]),
        ]
    };
    let nodes = [layer("a", "y"), layer("b", "z"), layer("c", "u")].concat();
    let inits =
        vec![floats("w", &[37, 90], &pseudo_random(37 * 90, 61)), floats("bias", &[90], &pseudo_random(90, 62))];
    model(
        nodes,
        vec![value("a", FLOAT, &[1, 37]), value("b", FLOAT, &[10, 37]), value("c", FLOAT, &[3, 37])],
        vec![value("y", FLOAT, &[1, 90]), value("z", FLOAT, &[10, 90]), value("u", FLOAT, &[3, 90])],
        inits,
    )
}

/// Two f32 MaxPools on vectors of output columns: 3x3 at stride 2 with pads of 1 and ceil_mode
/// (the last window half outside), and 2x3 at stride 1 with pads on the columns only.
fn max_pools(width: i64) -> Vec<u8> {
    let strided = with_ints(node("p1", "MaxPool", &["x"], &["y"]), "kernel_shape", &[3, 3]);
    let strided = with_int(with_ints(with_ints(strided, "strides", &[2, 2]), "pads", &[1, 1, 1, 1]), "ceil_mode", 1);
    let dense = with_ints(node("p2", "MaxPool", &["x"], &["z"]), "kernel_shape", &[2, 3]);
    let dense = with_ints(dense, "pads", &[0, 1, 0, 1]);
    model(
        vec![strided, dense],
        vec![value("x", FLOAT, &[2, 3, 37, width])],
        vec![value("y", FLOAT, &[2, 3, 19, strided_width(width)]), value("z", FLOAT, &[2, 3, 36, width])],
        vec![],
    )
}

/// [`max_pools`] over `[2, 3, 37, width]` against ONNX Runtime.
fn max_pools_case(dir: &Path, name: &str, width: i64) -> Result<(), String> {
    let outputs = [("y", (2 * 3 * 19 * strided_width(width)) as usize), ("z", (2 * 3 * 36 * width) as usize)];
    run_case(dir, name, &max_pools(width), &[("x", vec![2, 3, 37, width])], &outputs)
}

/// [`max_pools`]'s strided output columns: ceil((width + 2 - 3) / 2) + 1, which is width / 2 + 1.
fn strided_width(width: i64) -> i64 {
    width / 2 + 1
}

/// A 1x1 convolution over a 7x7 plane (49 columns: one wide tile, then one whose last vector
/// is masked to a column) with a bias, a residual Add and a Relu; 40 filters (a row tile left).
fn pointwise_residual() -> Vec<u8> {
    let nodes = vec![
        node("conv", "Conv", &["x", "w", "b"], &["c"]),
        node("add", "Add", &["c", "r"], &["s"]),
        node("relu", "Relu", &["s"], &["y"]),
    ];
    let inits =
        vec![floats("w", &[40, 24, 1, 1], &pseudo_random(40 * 24, 71)), floats("b", &[40], &pseudo_random(40, 72))];
    model(
        nodes,
        vec![value("x", FLOAT, &[1, 24, 7, 7]), value("r", FLOAT, &[1, 40, 7, 7])],
        vec![value("y", FLOAT, &[1, 40, 7, 7])],
        inits,
    )
}

/// Concats computed in place: two convolutions' outputs joined along the channels, that joined
/// again with the model's input (a Concat of a Concat), the result flattened (a reshape) into a
/// MatMul; a Concat input read again afterwards (its copy must stay); a tensor joined with
/// itself; a Concat along an axis whose runs are not contiguous. With a batch of 2 no run is
/// contiguous and every copy stays a loop.
fn concat_in_place(batch: i64) -> Vec<u8> {
    let nodes = vec![
        node("c1", "Conv", &["x", "w1", "b1"], &["a0"]),
        node("r1", "Relu", &["a0"], &["a"]),
        with_ints(node("c2", "Conv", &["x", "w2", "b2"], &["b0"]), "pads", &[1, 1, 1, 1]),
        node("s2", "Sigmoid", &["b0"], &["b"]),
        with_int(node("j1", "Concat", &["a", "b"], &["c"]), "axis", 1),
        with_int(node("j2", "Concat", &["c", "x"], &["e"]), "axis", 1),
        node("fl", "Flatten", &["e"], &["f"]),
        node("mm", "MatMul", &["f", "wm"], &["y"]),
        node("ng", "Neg", &["b"], &["g"]),
        with_int(node("j3", "Concat", &["g", "g"], &["h"]), "axis", 2),
        with_int(node("j4", "Concat", &["g", "g"], &["k"]), "axis", 1),
        node("sq", "Mul", &["k", "k"], &["z"]),
    ];
    let inits = vec![
        floats("w1", &[3, 4, 1, 1], &pseudo_random(12, 81)),
        floats("b1", &[3], &pseudo_random(3, 82)),
        floats("w2", &[5, 4, 3, 3], &pseudo_random(180, 83)),
        floats("b2", &[5], &pseudo_random(5, 84)),
        floats("wm", &[360, 7], &pseudo_random(360 * 7, 85)),
    ];
    let outputs = vec![
        value("y", FLOAT, &[batch, 7]),
        value("h", FLOAT, &[batch, 5, 12, 5]),
        value("z", FLOAT, &[batch, 10, 6, 5]),
    ];
    model(nodes, vec![value("x", FLOAT, &[batch, 4, 6, 5])], outputs, inits)
}

/// A pointwise convolution over a 5 x 7 plane (35 columns: with AVX-512 two vectors and three
/// columns as dot products) of 37 channels (two vectors of k and five more) into 45 (five row
/// tiles and five rows more), with a bias and a Clip.
fn dot_columns() -> Vec<u8> {
    let inits = vec![
        floats("w", &[45, 37, 1, 1], &pseudo_random(45 * 37, 91)),
        floats("b", &[45], &pseudo_random(45, 92)),
        floats("lo", &[], &[-0.5]),
        floats("hi", &[], &[1.5]),
    ];
    let nodes = vec![node("conv", "Conv", &["x", "w", "b"], &["c"]), node("clip", "Clip", &["c", "lo", "hi"], &["y"])];
    model(nodes, vec![value("x", FLOAT, &[1, 37, 5, 7])], vec![value("y", FLOAT, &[1, 45, 5, 7])], inits)
}

/// Activations that join their producer's epilogue as a map, one per lowering path: SiLU after a
/// pointwise convolution (81 columns: with AVX-512 the last as dot products), Sigmoid after a
/// Winograd 3x3, Tanh after a depthwise 3x3, erf-GELU after a strided 3x3 (im2col GEMM), and
/// tanh-GELU after a MatMul with a bias Add.
fn activation_epilogues() -> Vec<u8> {
    let half = || floats("half", &[], &[0.5]);
    let mut nodes = vec![
        node("c1", "Conv", &["x", "w1", "b1"], &["a0"]),
        node("s1", "Sigmoid", &["a0"], &["a1"]),
        node("m1", "Mul", &["a0", "a1"], &["a"]),
        with_ints(node("c2", "Conv", &["x", "w2", "b2"], &["b0"]), "pads", &[1, 1, 1, 1]),
        node("s2", "Sigmoid", &["b0"], &["b"]),
        with_int(with_ints(node("c3", "Conv", &["x", "w3"], &["c0"]), "pads", &[1, 1, 1, 1]), "group", 16),
        node("t3", "Tanh", &["c0"], &["c"]),
        with_ints(
            with_ints(node("c4", "Conv", &["x", "w4", "b4"], &["d0"]), "strides", &[2, 2]),
            "pads",
            &[1, 1, 1, 1],
        ),
        node("q4", "Div", &["d0", "sqrt2"], &["d1"]),
        node("e4", "Erf", &["d1"], &["d2"]),
        node("p4", "Add", &["d2", "one"], &["d3"]),
        node("h4", "Mul", &["d0", "half"], &["d4"]),
        node("d", "Mul", &["d4", "d3"], &["d"]),
        node("r5", "Reshape", &["x", "rows"], &["x5"]),
        node("g5", "MatMul", &["x5", "w5"], &["e0"]),
        node("a5", "Add", &["e0", "b5"], &["e1"]),
    ];
    // tanh-GELU: 0.5 e (1 + tanh(sqrt(2 / pi) (e + 0.044715 e^3))).
    nodes.extend([
        node("k1", "Mul", &["e1", "e1"], &["k1"]),
        node("k2", "Mul", &["k1", "e1"], &["k2"]),
        node("k3", "Mul", &["k2", "cubic"], &["k3"]),
        node("k4", "Add", &["e1", "k3"], &["k4"]),
        node("k5", "Mul", &["k4", "scale"], &["k5"]),
        node("k6", "Tanh", &["k5"], &["k6"]),
        node("k7", "Add", &["k6", "one"], &["k7"]),
        node("k8", "Mul", &["e1", "half"], &["k8"]),
        node("e", "Mul", &["k8", "k7"], &["e"]),
    ]);
    let inits = vec![
        floats("w1", &[24, 16, 1, 1], &pseudo_random(24 * 16, 101)),
        floats("b1", &[24], &pseudo_random(24, 102)),
        floats("w2", &[16, 16, 3, 3], &pseudo_random(16 * 16 * 9, 103)),
        floats("b2", &[16], &pseudo_random(16, 104)),
        floats("w3", &[16, 1, 3, 3], &pseudo_random(16 * 9, 105)),
        floats("w4", &[8, 16, 3, 3], &pseudo_random(8 * 16 * 9, 106)),
        floats("b4", &[8], &pseudo_random(8, 107)),
        floats("w5", &[144, 40], &pseudo_random(144 * 40, 108)),
        floats("b5", &[40], &pseudo_random(40, 109)),
        floats("sqrt2", &[], &[std::f32::consts::SQRT_2]),
        floats("one", &[], &[1.0]),
        half(),
        floats("cubic", &[], &[0.044715]),
        floats("scale", &[], &[(2.0 / std::f32::consts::PI).sqrt()]),
        xcc_test_suite::onnx_build::int64s("rows", &[2], &[9, 144]),
    ];
    let outputs = vec![
        value("a", FLOAT, &[1, 24, 9, 9]),
        value("b", FLOAT, &[1, 16, 9, 9]),
        value("c", FLOAT, &[1, 16, 9, 9]),
        value("d", FLOAT, &[1, 8, 5, 5]),
        value("e", FLOAT, &[9, 40]),
    ];
    model(nodes, vec![value("x", FLOAT, &[1, 16, 9, 9])], outputs, inits)
}

/// A strided, dilated, grouped convolution whose output has its input's phase extents past the
/// first dim (31 columns at stride 3 -> 11): its im2col columns are shifted copies of the
/// input's phases.
fn strided_phases() -> Vec<u8> {
    let conv = node("conv", "Conv", &["x", "w", "b"], &["y"]);
    let conv = with_ints(conv, "strides", &[2, 3]);
    let conv = with_ints(conv, "dilations", &[2, 1]);
    let conv = with_ints(conv, "pads", &[2, 1, 2, 2]);
    let conv = with_int(conv, "group", 2);
    let inits =
        vec![floats("w", &[8, 3, 3, 4], &pseudo_random(8 * 3 * 12, 43)), floats("b", &[8], &pseudo_random(8, 44))];
    model(vec![conv], vec![value("x", FLOAT, &[2, 6, 29, 31])], vec![value("y", FLOAT, &[2, 8, 15, 11])], inits)
}

/// uint8 Max and Min compare unsigned: values above 127 (which a signed compare would order
/// below the small ones) against a broadcast uint8 initializer, reached through float casts so
/// the harness stays float. The chain also exercises elementwise fusion across casts.
fn uint8_max_min() -> Vec<u8> {
    use xcc_frontend_onnx::proto::{attribute_proto, AttributeProto, TensorProto};
    let cast = |name: &str, input: &str, output: &str, to: i64| {
        let mut n = node(name, "Cast", &[input], &[output]);
        n.attribute.push(AttributeProto {
            name: Some("to".into()),
            r#type: Some(attribute_proto::AttributeType::Int as i32),
            i: Some(to),
            ..Default::default()
        });
        n
    };
    let (uint8, float) = (2, 1);
    let nodes = vec![
        node("abs", "Abs", &["x"], &["a"]),
        node("scale", "Mul", &["a", "k"], &["s"]),
        cast("to_u8", "s", "q", uint8),
        node("max", "Max", &["q", "c"], &["mx"]),
        node("min", "Min", &["q", "c"], &["mn"]),
        cast("max_f", "mx", "y", float),
        cast("min_f", "mn", "z", float),
    ];
    let c = TensorProto {
        name: Some("c".into()),
        dims: vec![4],
        data_type: Some(uint8 as i32),
        raw_data: Some(vec![100, 200, 20, 150]),
        ..Default::default()
    };
    model(
        nodes,
        vec![value("x", FLOAT, &[3, 4])],
        vec![value("y", FLOAT, &[3, 4]), value("z", FLOAT, &[3, 4])],
        vec![floats("k", &[], &[250.0]), c],
    )
}

/// An initializer stored in a side file at an offset (`location`, `offset`, `length`).
fn external_data_case(dir: &Path) -> Result<(), String> {
    use xcc_frontend_onnx::proto::{StringStringEntryProto, TensorProto};
    let values = pseudo_random(24, 11);
    let mut file = vec![0xEEu8; 40]; // bytes before the tensor that must be skipped
    file.extend(values.iter().flat_map(|v| v.to_le_bytes()));
    file.extend([0x77u8; 8]);
    let entry = |k: &str, v: String| StringStringEntryProto { key: Some(k.into()), value: Some(v) };
    let w = TensorProto {
        name: Some("w".into()),
        dims: vec![4, 6],
        data_type: Some(FLOAT),
        data_location: Some(1),
        external_data: vec![
            entry("location", "weights.bin".into()),
            entry("offset", "40".into()),
            entry("length", "96".into()),
        ],
        ..Default::default()
    };
    let bytes = model(
        vec![node("mm", "MatMul", &["x", "w"], &["y"])],
        vec![value("x", FLOAT, &[3, 4])],
        vec![value("y", FLOAT, &[3, 6])],
        vec![w],
    );
    run_case_with_files(
        dir,
        "external-data",
        (&bytes, &[]),
        (&[("weights.bin", file)], &[]),
        &[("x", vec![3, 4])],
        &[("y", 18)],
    )
}

/// One test per model, each compiled by xcc and compared with ONNX Runtime run now (ignored
/// without the venv that holds it).
/// Weights of `bits` bits (`signed` or not) `[k, n]`, dequantized in blocks of `block` along K by
/// opset 21's DequantizeLinear (with zero points or without) and multiplied by MatMul, as ONNX
/// Runtime's MatMulNBits quantizer and GenAI's model builder write a layer with their QDQ options:
/// xcc keeps the weights packed (MatMulNBits' kernel).
#[derive(Clone, Copy)]
struct Blockwise {
    bits: usize,
    signed: bool,
    zero_points: bool,
    k: usize,
    n: usize,
    block: usize,
}

impl Blockwise {
    /// ONNX's INT4, UINT4, INT8 or UINT8.
    fn data_type(self) -> i32 {
        match (self.bits, self.signed) {
            (4, true) => 22,
            (4, false) => 21,
            (_, true) => 3,
            (_, false) => 2,
        }
    }

    /// `count` values over the type's whole range, as ONNX stores them (4-bit ones two a byte,
    /// the first in the low bits).
    fn quantized(self, name: &str, dims: &[i64], seed: u64) -> xcc_frontend_onnx::proto::TensorProto {
        let count = dims.iter().product::<i64>() as usize;
        let levels = 1i64 << self.bits;
        let low = if self.signed { -levels / 2 } else { 0 };
        let values: Vec<u8> = pseudo_random(count, seed)
            .iter()
            .map(|r| (low + (((r + 1.0) / 2.0 * levels as f32) as i64).min(levels - 1)) as u8)
            .collect();
        let raw = match self.bits {
            4 => values.chunks(2).map(|p| (p[0] & 15) | (p.get(1).map_or(0, |h| h & 15) << 4)).collect(),
            _ => values,
        };
        xcc_frontend_onnx::proto::TensorProto {
            name: Some(name.into()),
            dims: dims.to_vec(),
            data_type: Some(self.data_type()),
            raw_data: Some(raw),
            ..Default::default()
        }
    }

    fn model(self) -> Vec<u8> {
        let (k, n, blocks) = (self.k as i64, self.n as i64, self.k.div_ceil(self.block) as i64);
        let scales: Vec<f32> = pseudo_random((blocks * n) as usize, 12).iter().map(|r| 0.01 + 0.05 * r.abs()).collect();
        let mut inits = vec![self.quantized("wq", &[k, n], 11), floats("ws", &[blocks, n], &scales)];
        let mut dq_inputs = vec!["wq", "ws"];
        if self.zero_points {
            inits.push(self.quantized("wz", &[blocks, n], 13));
            dq_inputs.push("wz");
        }
        let dq = with_int(node("dq", "DequantizeLinear", &dq_inputs, &["w"]), "axis", 0);
        let nodes = vec![with_int(dq, "block_size", self.block as i64), node("mm", "MatMul", &["a", "w"], &["y"])];
        let bytes = model(nodes, vec![value("a", FLOAT, &[2, 3, k])], vec![value("y", FLOAT, &[2, 3, n])], inits);
        with_opset(&bytes, "", 21)
    }

    /// Compiled and run against ONNX Runtime, which by default turns the pair into its
    /// MatMulNBits at `accuracy_level` 4 (int8 activations): asked for level 0 (f32 products),
    /// it computes what the QDQ form defines.
    fn run(self, d: &Path, name: &str) -> Result<(), String> {
        let (bytes, level) = (self.model(), [("session.qdq_matmulnbits_accuracy_level", "0")]);
        let (a, y) = ([("a", vec![2, 3, self.k as i64])], [("y", 6 * self.n)]);
        run_case_with_files(d, name, (&bytes, &[]), (&[], &level), &a, &y)?;
        // Dequantized to f32 the weights alone would take k * n * 4 bytes.
        let library = std::fs::metadata(d.join(name).join("libm.a")).map_err(|e| e.to_string())?.len() as usize;
        let float_bytes = self.k * self.n * 4;
        if float_bytes >= 1 << 20 && library >= float_bytes / 2 {
            return Err(format!("{name}: the library takes {library} bytes, the weights in f32 {float_bytes}"));
        }
        Ok(())
    }
}

fn main() -> std::process::ExitCode {
    let root = suite_dir().parent().unwrap().to_path_buf();
    let no_venv = !root.join(".venv/bin/python").exists();
    if no_venv {
        println!("skipped: .venv is missing (run scripts/setup.sh)");
    }
    let dir = root.join("target/xcc-tests/onnx-fusion");
    let n = 8 * 10 * 9;
    type Case = Box<dyn FnOnce(&std::path::Path) -> Result<(), String> + Send>;
    let cases: Vec<(&str, Case)> = vec![
        (
            "conv-bn-residual-relu",
            Box::new(move |d| {
                run_case(d, "conv-bn-residual-relu", &conv_bn_residual(false), &[("x", vec![1, 8, 10, 9])], &[("y", n)])
            }),
        ),
        (
            "conv-bn-residual-relu-unfused",
            Box::new(move |d| {
                run_case(
                    d,
                    "conv-bn-residual-relu-unfused",
                    &conv_bn_residual(true),
                    &[("x", vec![1, 8, 10, 9])],
                    &[("y", n), ("c", n)],
                )
            }),
        ),
        (
            "matmul-residual-clip",
            Box::new(|d| {
                run_case(
                    d,
                    "matmul-residual-clip",
                    &matmul_add_clip(),
                    &[("a", vec![2, 19, 24]), ("r", vec![2, 19, 20])],
                    &[("y", 2 * 19 * 20)],
                )
            }),
        ),
        (
            "matmul-rows-of-one",
            Box::new(|d| {
                run_case(
                    d,
                    "matmul-rows-of-one",
                    &rows_of_one_times_weight(),
                    &[("a", vec![7, 1, 33])],
                    &[("y", 7 * 17)],
                )
            }),
        ),
        (
            "depthwise-strided-dilated-residual",
            Box::new(|d| {
                run_case(
                    d,
                    "depthwise-strided-dilated-residual",
                    &depthwise_pair(),
                    &[("x", vec![2, 6, 11, 9])],
                    &[("y", 2 * 6 * 5 * 8)],
                )
            }),
        ),
        (
            "squeeze-excitation-silu",
            Box::new(|d| {
                run_case(
                    d,
                    "squeeze-excitation-silu",
                    &squeeze_excitation_block(),
                    &[("x", vec![1, 3, 17, 15])],
                    &[("y", 12 * 17 * 15)],
                )
            }),
        ),
        (
            "long-k-ragged-edges",
            Box::new(|d| {
                run_case(
                    d,
                    "long-k-ragged-edges",
                    &long_k_ragged_edges(),
                    &[("a", vec![2, 37, 600]), ("r", vec![2, 37, 40]), ("x", vec![1, 32, 9, 11])],
                    &[("y", 2 * 37 * 40), ("z", 16 * 9 * 11)],
                )
            }),
        ),
        (
            "blocked-static-plane",
            Box::new(|d| {
                run_case_with_flags(
                    d,
                    "blocked-static-plane",
                    (&blocked_static_plane(), &["--no-winograd"]),
                    &[("x", vec![2, 24, 63, 65]), ("r", vec![2, 13, 63, 65])],
                    &[("y", 2 * 13 * 63 * 65)],
                )
            }),
        ),
        (
            "depthwise-wide",
            Box::new(|d| {
                run_case(d, "depthwise-wide", &depthwise_wide(), &[("x", vec![2, 5, 9, 37])], &[("y", 2 * 5 * 9 * 37)])
            }),
        ),
        (
            "depthwise-vector-groups",
            Box::new(|d| {
                let m = depthwise_rows(100);
                run_case(d, "depthwise-vector-groups", &m, &[("x", vec![2, 5, 9, 100])], &[("y", 2 * 5 * 9 * 100)])
            }),
        ),
        (
            "depthwise-row-loop",
            Box::new(|d| {
                let m = depthwise_rows(300);
                run_case(d, "depthwise-row-loop", &m, &[("x", vec![2, 5, 9, 300])], &[("y", 2 * 5 * 9 * 300)])
            }),
        ),
        (
            "depthwise-strided-columns",
            Box::new(|d| {
                let m = depthwise_strided_columns();
                run_case(d, "depthwise-strided-columns", &m, &[("x", vec![2, 5, 9, 37])], &[("y", 2 * 5 * 5 * 19)])
            }),
        ),
        (
            "strided-phases",
            Box::new(|d| {
                run_case(
                    d,
                    "strided-phases",
                    &strided_phases(),
                    &[("x", vec![2, 6, 29, 31])],
                    &[("y", 2 * 8 * 15 * 11)],
                )
            }),
        ),
        (
            "uint8-max-min",
            Box::new(|d| run_case(d, "uint8-max-min", &uint8_max_min(), &[("x", vec![3, 4])], &[("y", 12), ("z", 12)])),
        ),
        (
            "winograd-residual-relu",
            Box::new(|d| {
                let m = winograd_residual_relu();
                run_case(d, "winograd-residual-relu", &m, &[("x", vec![2, 16, 13, 11])], &[("y", 2 * 16 * 13 * 11)])
            }),
        ),
        (
            "winograd-uneven-pads-blocks",
            Box::new(|d| {
                let m = winograd_uneven_pads();
                run_case(d, "winograd-uneven-pads-blocks", &m, &[("x", vec![1, 48, 77, 9])], &[("y", 40 * 78 * 10)])
            }),
        ),
        (
            "winograd-wide-rows",
            Box::new(|d| {
                let m = winograd_wide_rows();
                run_case(d, "winograd-wide-rows", &m, &[("x", vec![1, 24, 62, 70])], &[("y", 40 * 62 * 70)])
            }),
        ),
        (
            "gemv-rest-rows",
            Box::new(|d| {
                let inputs = [("a", vec![1, 37]), ("b", vec![10, 37]), ("c", vec![3, 37])];
                run_case(d, "gemv-rest-rows", &rest_rows(), &inputs, &[("y", 90), ("z", 10 * 90), ("u", 3 * 90)])
            }),
        ),
        ("maxpool-rows", Box::new(|d| max_pools_case(d, "maxpool-rows", 41))),
        // 51 and 100 columns: vectors in groups of four and three.
        ("maxpool-vector-groups", Box::new(|d| max_pools_case(d, "maxpool-vector-groups", 100))),
        // 301 and 600 columns: more vectors than a row takes at constant columns.
        ("maxpool-row-loop", Box::new(|d| max_pools_case(d, "maxpool-row-loop", 600))),
        (
            "pointwise-masked-tile",
            Box::new(|d| {
                let inputs = [("x", vec![1, 24, 7, 7]), ("r", vec![1, 40, 7, 7])];
                run_case(d, "pointwise-masked-tile", &pointwise_residual(), &inputs, &[("y", 40 * 7 * 7)])
            }),
        ),
        (
            "activation-epilogues",
            Box::new(|d| {
                let outputs = [("a", 24 * 81), ("b", 16 * 81), ("c", 16 * 81), ("d", 8 * 25), ("e", 9 * 40)];
                run_case(d, "activation-epilogues", &activation_epilogues(), &[("x", vec![1, 16, 9, 9])], &outputs)
            }),
        ),
        (
            "dot-columns",
            Box::new(|d| run_case(d, "dot-columns", &dot_columns(), &[("x", vec![1, 37, 5, 7])], &[("y", 45 * 35)])),
        ),
        (
            "concat-in-place",
            Box::new(|d| {
                let outputs = [("y", 7), ("h", 5 * 12 * 5), ("z", 10 * 6 * 5)];
                run_case(d, "concat-in-place", &concat_in_place(1), &[("x", vec![1, 4, 6, 5])], &outputs)
            }),
        ),
        (
            "concat-batch-loops",
            Box::new(|d| {
                let outputs = [("y", 2 * 7), ("h", 2 * 5 * 12 * 5), ("z", 2 * 10 * 6 * 5)];
                run_case(d, "concat-batch-loops", &concat_in_place(2), &[("x", vec![2, 4, 6, 5])], &outputs)
            }),
        ),
        ("external-data", Box::new(external_data_case)),
    ];
    let blockwise = [
        ("blockwise-int4", Blockwise { bits: 4, signed: true, zero_points: false, k: 512, n: 1030, block: 32 }),
        (
            "blockwise-uint4-zero-points",
            Blockwise { bits: 4, signed: false, zero_points: true, k: 200, n: 33, block: 16 },
        ),
        (
            "blockwise-int4-zero-points",
            Blockwise { bits: 4, signed: true, zero_points: true, k: 300, n: 17, block: 128 },
        ),
        (
            "blockwise-int8-zero-points",
            Blockwise { bits: 8, signed: true, zero_points: true, k: 130, n: 40, block: 64 },
        ),
        ("blockwise-uint8", Blockwise { bits: 8, signed: false, zero_points: false, k: 96, n: 24, block: 256 }),
    ];
    let cases = cases
        .into_iter()
        .chain(blockwise.into_iter().map(|(name, w)| -> (&str, Case) { (name, Box::new(move |d| w.run(d, name))) }));
    let trials = cases
        .into_iter()
        .map(|(name, case)| {
            let dir = dir.clone();
            libtest_mimic::Trial::test(format!("onnx-fusion/{name}"), move || Ok(case(&dir)?))
                .with_ignored_flag(no_venv)
        })
        .collect();
    xcc_test_suite::run_trials(trials)
}
