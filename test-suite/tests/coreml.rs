//! Core ML packages built here, byte by byte, with the MIL protobuf structs and a hand-written
//! weight blob file, so that these run on every machine (no coremltools):
//! - a classifier (`linear`, `softmax`, `classify`) compiled from a `.mlpackage` with its weights
//!   in a blob, and from a bare `.mlmodel` with the same weights inline: linked with C through
//!   its header, run, and compared with the same arithmetic done here in f64; the header lists
//!   the class labels, and the label output is the top class's index;
//! - the same with a value name reused in the program's scope;
//! - the classifier for AArch64, under qemu-user (skipped without the cross tools);
//! - a program whose rows are left to run time (a shape range), run with 1 and 2 rows from one
//!   library, and refusing counts outside the range;
//! - bad packages: each must fail with a clear message, a non-zero exit, no panic, and no output
//!   file or header left behind.

use libtest_mimic::Trial;
use prost::Message;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_frontend_coreml::proto::{self, argument::binding::Binding, data_type, dimension, value, value_type};
use xcc_test_suite::{clean_failure, find_tool, fresh_dir, link_c, run_trials, work_root, xcc_binary};

const LABELS: [&str; 4] = ["cat", "dog", "bird", "fish"];
const X: [f32; 6] = [0.5, -1.25, 2.0, -1.5, 0.25, -2.0];
const BIAS: [f32; 4] = [0.1, -0.2, 0.3, 0.0];

/// The weights, `[4, 3]`: row k is class k's.
fn weights() -> Vec<f32> {
    (0..12).map(|i| ((i * 7 % 11) as f32 - 5.0) / 4.0).collect()
}

fn tensor_type(dtype: i32, shape: &[u64]) -> proto::ValueType {
    proto::ValueType {
        r#type: Some(value_type::Type::TensorType(proto::TensorType {
            data_type: dtype,
            rank: shape.len() as i64,
            dimensions: shape
                .iter()
                .map(|&size| proto::Dimension {
                    dimension: Some(dimension::Dimension::Constant(dimension::ConstantDimension { size })),
                })
                .collect(),
            attributes: BTreeMap::new(),
        })),
    }
}

fn immediate(ty: proto::ValueType, v: proto::tensor_value::Value) -> proto::Value {
    proto::Value {
        doc_string: String::new(),
        r#type: Some(ty),
        value: Some(value::Value::ImmediateValue(value::ImmediateValue {
            value: Some(value::immediate_value::Value::Tensor(proto::TensorValue { value: Some(v) })),
        })),
    }
}

fn floats(shape: &[u64], v: &[f32]) -> proto::Value {
    use proto::tensor_value::{RepeatedFloats, Value};
    immediate(tensor_type(data_type::FLOAT32, shape), Value::Floats(RepeatedFloats { values: v.to_vec() }))
}

fn int(v: i32) -> proto::Value {
    use proto::tensor_value::{RepeatedInts, Value};
    immediate(tensor_type(data_type::INT32, &[]), Value::Ints(RepeatedInts { values: vec![v] }))
}

fn strings(v: &[&str]) -> proto::Value {
    use proto::tensor_value::{RepeatedStrings, Value};
    let shape = if v.len() == 1 { vec![] } else { vec![v.len() as u64] };
    immediate(
        tensor_type(data_type::STRING, &shape),
        Value::Strings(RepeatedStrings { values: v.iter().map(|s| s.to_string()).collect() }),
    )
}

fn blob(file: &str, offset: u64, dtype: i32, shape: &[u64]) -> proto::Value {
    proto::Value {
        doc_string: String::new(),
        r#type: Some(tensor_type(dtype, shape)),
        value: Some(value::Value::BlobFileValue(value::BlobFileValue { file_name: file.into(), offset })),
    }
}

enum Arg {
    Name(&'static str),
    Value(proto::Value),
}

fn op(kind: &str, inputs: Vec<(&str, Arg)>, outputs: Vec<(&str, proto::ValueType)>) -> proto::Operation {
    proto::Operation {
        r#type: kind.into(),
        inputs: inputs
            .into_iter()
            .map(|(k, a)| {
                let binding = match a {
                    Arg::Name(n) => Binding::Name(n.into()),
                    Arg::Value(v) => Binding::Value(v),
                };
                (
                    k.to_string(),
                    proto::Argument { arguments: vec![proto::argument::Binding { binding: Some(binding) }] },
                )
            })
            .collect(),
        outputs: outputs.into_iter().map(|(n, t)| proto::NamedValueType { name: n.into(), r#type: Some(t) }).collect(),
        blocks: vec![],
        attributes: BTreeMap::new(),
    }
}

fn const_op(name: &str, val: proto::Value) -> proto::Operation {
    let ty = val.r#type.clone().expect("typed");
    let mut o = op("const", vec![], vec![(name, ty)]);
    o.attributes.insert("val".into(), val);
    o
}

/// The classifier: probs = softmax(x @ W^T + b), then `classify`. `weight` is W's value
/// (inline or in a blob); `last` replaces the final operation's type when given (a bad op).
fn classifier(weight: proto::Value, unknown_op: Option<&str>) -> Vec<u8> {
    let f32t = |s: &[u64]| tensor_type(data_type::FLOAT32, s);
    let mut ops = vec![
        const_op("W", weight),
        op(
            "linear",
            vec![("x", Arg::Name("x")), ("weight", Arg::Name("W")), ("bias", Arg::Value(floats(&[4], &BIAS)))],
            vec![("logits", f32t(&[2, 4]))],
        ),
        op("softmax", vec![("x", Arg::Name("logits")), ("axis", Arg::Value(int(-1)))], vec![("probs", f32t(&[2, 4]))]),
        op(
            "classify",
            vec![("probabilities", Arg::Name("probs")), ("classes", Arg::Value(strings(&LABELS)))],
            vec![("label", tensor_type(data_type::STRING, &[])), ("label_probs", f32t(&[2, 4]))],
        ),
    ];
    if let Some(kind) = unknown_op {
        ops[2].r#type = kind.into();
    }
    let block = proto::Block {
        inputs: vec![],
        outputs: vec!["label".into(), "label_probs".into()],
        operations: ops,
        attributes: BTreeMap::new(),
    };
    let main = proto::Function {
        inputs: vec![proto::NamedValueType { name: "x".into(), r#type: Some(f32t(&[2, 3])) }],
        opset: "CoreML5".into(),
        block_specializations: BTreeMap::from([("CoreML5".to_string(), block)]),
        attributes: BTreeMap::new(),
    };
    let program = proto::Program {
        version: 1,
        functions: BTreeMap::from([("main".to_string(), main)]),
        doc_string: String::new(),
        attributes: BTreeMap::new(),
    };
    let model = proto::Model { specification_version: 6, ml_program: Some(program), ..Default::default() };
    model.encode_to_vec()
}

/// `x [rows, 3]` with `rows` left to run time (1 to 8, as coremltools' `RangeDim` writes it):
/// probs = softmax(x @ W^T + b).
fn flexible_program() -> Vec<u8> {
    let rows_unknown = |dtype: i32, cols: u64| {
        let mut t = tensor_type(dtype, &[1, cols]);
        if let Some(value_type::Type::TensorType(tt)) = t.r#type.as_mut() {
            tt.dimensions[0].dimension =
                Some(dimension::Dimension::Unknown(dimension::UnknownDimension { variadic: false }));
        }
        t
    };
    let ops = vec![
        const_op("W", floats(&[4, 3], &weights())),
        op(
            "linear",
            vec![("x", Arg::Name("x")), ("weight", Arg::Name("W")), ("bias", Arg::Value(floats(&[4], &BIAS)))],
            vec![("logits", rows_unknown(data_type::FLOAT32, 4))],
        ),
        op(
            "softmax",
            vec![("x", Arg::Name("logits")), ("axis", Arg::Value(int(-1)))],
            vec![("probs", rows_unknown(data_type::FLOAT32, 4))],
        ),
    ];
    let block =
        proto::Block { inputs: vec![], outputs: vec!["probs".into()], operations: ops, attributes: BTreeMap::new() };
    let main = proto::Function {
        inputs: vec![proto::NamedValueType { name: "x".into(), r#type: Some(rows_unknown(data_type::FLOAT32, 3)) }],
        opset: "CoreML5".into(),
        block_specializations: BTreeMap::from([("CoreML5".to_string(), block)]),
        attributes: BTreeMap::new(),
    };
    let range = |lower_bound, upper_bound| proto::SizeRange { lower_bound, upper_bound };
    let description = proto::ModelDescription {
        input: vec![proto::FeatureDescription {
            name: "x".into(),
            r#type: Some(proto::FeatureType {
                multi_array_type: Some(proto::ArrayFeatureType {
                    shape: vec![2, 3],
                    data_type: 65568,
                    shape_range: Some(proto::ShapeRange { size_ranges: vec![range(1, 8), range(3, 3)] }),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let program = proto::Program {
        version: 1,
        functions: BTreeMap::from([("main".to_string(), main)]),
        doc_string: String::new(),
        attributes: BTreeMap::new(),
    };
    proto::Model {
        specification_version: 6,
        description: Some(description),
        ml_program: Some(program),
        ..Default::default()
    }
    .encode_to_vec()
}

const FLEXIBLE_HARNESS: &str = r#"#include <stdio.h>
#include "m.h"
int main(void) {
    const float x[6] = {XS};
    float probs[8];
    for (int rows = 1; rows <= 2; rows++) {
        int32_t rc = m_run_alloc(rows, x, probs);
        if (rc != 0) { printf("rc %d\n", rc); return 1; }
        for (int i = 0; i < rows * 4; i++) printf("p%d %.9g\n", rows, probs[i]);
    }
    printf("rows 9: %d, rows 0: %d (bad dim %d)\n", m_run_alloc(9, x, probs), m_run_alloc(0, x, probs), XCC_ERROR_BAD_DIM);
    return 0;
}
"#;

/// A blob file holding `data` (float32) as its one blob; returns the file and the blob's
/// metadata offset.
fn blob_file(data: &[f32], dtype_code: u32) -> (Vec<u8>, u64) {
    let mut f = vec![0u8; 64];
    f[0..4].copy_from_slice(&1u32.to_le_bytes());
    f[4..8].copy_from_slice(&2u32.to_le_bytes());
    let meta = f.len() as u64;
    let mut m = vec![0u8; 64];
    m[0..4].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
    m[4..8].copy_from_slice(&dtype_code.to_le_bytes());
    m[8..16].copy_from_slice(&((data.len() * 4) as u64).to_le_bytes());
    m[16..24].copy_from_slice(&(meta + 64).to_le_bytes());
    f.extend(m);
    f.extend(data.iter().flat_map(|v| v.to_le_bytes()));
    (f, meta)
}

const MANIFEST: &str = r#"{
    "fileFormatVersion": "1.0.0",
    "itemInfoEntries": {
        "A1": {"author": "com.apple.CoreML", "description": "CoreML Model Specification", "name": "model.mlmodel", "path": "MODEL_PATH"},
        "B2": {"author": "com.apple.CoreML", "description": "CoreML Model Weights", "name": "weights", "path": "com.apple.CoreML/weights"}
    },
    "rootModelIdentifier": "A1"
}"#;

/// Writes `dir/model.mlpackage` with this model file, blob file (if any) and manifest path.
fn write_package(dir: &Path, model: &[u8], weights: Option<&[u8]>, model_path: &str) -> PathBuf {
    let pkg = dir.join("model.mlpackage");
    let data = pkg.join("Data/com.apple.CoreML");
    std::fs::create_dir_all(data.join("weights")).unwrap();
    std::fs::write(pkg.join("Manifest.json"), MANIFEST.replace("MODEL_PATH", model_path)).unwrap();
    std::fs::write(data.join("model.mlmodel"), model).unwrap();
    if let Some(w) = weights {
        std::fs::write(data.join("weights/weight.bin"), w).unwrap();
    }
    pkg
}

fn blob_package(dir: &Path) -> PathBuf {
    let (file, offset) = blob_file(&weights(), 2);
    let model = classifier(blob("@model_path/weights/weight.bin", offset, data_type::FLOAT32, &[4, 3]), None);
    write_package(dir, &model, Some(&file), "com.apple.CoreML/model.mlmodel")
}

/// The expected probabilities and top classes, in f64.
fn expected() -> (Vec<f64>, Vec<i64>) {
    let w = weights();
    let mut probs = Vec::new();
    let mut top = Vec::new();
    for row in X.chunks(3) {
        let logits: Vec<f64> =
            (0..4).map(|k| BIAS[k] as f64 + (0..3).map(|j| row[j] as f64 * w[k * 3 + j] as f64).sum::<f64>()).collect();
        let max = logits.iter().cloned().fold(f64::MIN, f64::max);
        let e: Vec<f64> = logits.iter().map(|l| (l - max).exp()).collect();
        let s: f64 = e.iter().sum();
        probs.extend(e.iter().map(|v| v / s));
        top.push(logits.iter().enumerate().fold(0, |b, (i, &v)| if v > logits[b] { i } else { b }) as i64);
    }
    (probs, top)
}

const HARNESS: &str = r#"#include <stdio.h>
#include "m.h"
int main(void) {
    const float x[6] = {XS};
    int64_t label[M_OUTPUT0_SIZE];
    float probs[M_OUTPUT1_SIZE];
    int32_t rc = m_run_alloc(x, label, probs);
    if (rc != 0) { printf("rc %d\n", rc); return 1; }
    for (int i = 0; i < M_OUTPUT0_SIZE; i++) printf("label %lld %s\n", (long long)label[i], m_class_labels[label[i]]);
    for (int i = 0; i < M_OUTPUT1_SIZE; i++) printf("p %.9g\n", probs[i]);
    printf("classes %d\n", M_NUM_CLASSES);
    return 0;
}
"#;

/// Compiles `input`, links the harness through `m.h`, runs it, and compares with [`expected`].
fn compile_and_run(dir: &Path, input: &Path) -> Result<(), String> {
    compile_and_run_on(dir, input, false)
}

/// [`compile_and_run`], for AArch64 with `aarch64`: cross-linked and run under qemu-user.
fn compile_and_run_on(dir: &Path, input: &Path, aarch64: bool) -> Result<(), String> {
    let lib = dir.join("libm.a");
    let target: &[&str] = if aarch64 { &["--target=aarch64"] } else { &[] };
    let o = Command::new(xcc_binary())
        .arg(input)
        .args(["--name", "m", "-O1", "-o"])
        .arg(&lib)
        .args(target)
        .output()
        .unwrap();
    if !o.status.success() {
        return Err(format!("xcc failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let header = std::fs::read_to_string(dir.join("m.h")).map_err(|e| e.to_string())?;
    let labels = LABELS.iter().map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ");
    if !header.contains(&format!("m_class_labels[4] = {{{labels}}}")) {
        return Err(format!("m.h does not list the class labels:\n{header}"));
    }
    let xs = X.iter().map(|v| format!("{v:?}f")).collect::<Vec<_>>().join(", ");
    let c = dir.join("main.c");
    std::fs::write(&c, HARNESS.replace("XS", &xs)).unwrap();
    let exe = dir.join("main");
    link_c(if aarch64 { "aarch64-linux-gnu-gcc" } else { "cc" }, &c, &[&lib], &exe)?;
    let run = if aarch64 {
        Command::new("qemu-aarch64").args(["-L", "/usr/aarch64-linux-gnu"]).arg(&exe).output().unwrap()
    } else {
        Command::new(&exe).output().unwrap()
    };
    let out = String::from_utf8_lossy(&run.stdout);
    if !run.status.success() {
        return Err(format!("the run failed: {out}"));
    }
    let (probs, top) = expected();
    let got_labels: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("label ")).collect();
    let want: Vec<String> = top.iter().map(|&t| format!("{t} {}", LABELS[t as usize])).collect();
    if got_labels != want {
        return Err(format!("labels {got_labels:?}, expected {want:?}"));
    }
    let got: Vec<f64> = out.lines().filter_map(|l| l.strip_prefix("p ")).map(|v| v.parse().unwrap()).collect();
    if got.len() != probs.len() || got.iter().zip(&probs).any(|(g, e)| (g - e).abs() > 1e-6) {
        return Err(format!("probabilities {got:?}, expected {probs:?}"));
    }
    if !out.contains("classes 4") {
        return Err(format!("M_NUM_CLASSES is not 4: {out}"));
    }
    Ok(())
}

/// Compiling `input` must fail with every one of `expected` in the message, and leave nothing.
fn expect_failure(dir: &Path, input: &Path, expected: &[&str]) -> Result<(), String> {
    expect_failure_with(dir, input, &[], expected)
}

/// [`expect_failure`] with more arguments.
fn expect_failure_with(dir: &Path, input: &Path, args: &[&str], expected: &[&str]) -> Result<(), String> {
    let lib = dir.join("libm.a");
    let o = Command::new(xcc_binary()).arg(input).args(["--name", "m", "-o"]).arg(&lib).args(args).output().unwrap();
    clean_failure(&o, expected, &[&lib, &dir.join("m.h")]).map(drop)
}

/// The flexible program compiled once and run with 1 and 2 rows, against [`expected`]; 9 rows
/// (past the range) and 0 are refused.
fn flexible_rows(dir: &Path) -> Result<(), String> {
    let path = dir.join("flexible.mlmodel");
    std::fs::write(&path, flexible_program()).unwrap();
    let lib = dir.join("libm.a");
    let o = Command::new(xcc_binary()).arg(&path).args(["--name", "m", "-o"]).arg(&lib).output().unwrap();
    if !o.status.success() {
        return Err(format!("xcc failed: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let header = std::fs::read_to_string(dir.join("m.h")).map_err(|e| e.to_string())?;
    for line in ["#define M_DIM0_NAME \"x_dim0\"", "#define M_DIM0_MIN 1", "#define M_DIM0_MAX 8"] {
        if !header.contains(line) {
            return Err(format!("m.h lacks `{line}`"));
        }
    }
    let xs = X.iter().map(|v| format!("{v:?}f")).collect::<Vec<_>>().join(", ");
    let c = dir.join("main.c");
    std::fs::write(&c, FLEXIBLE_HARNESS.replace("XS", &xs)).unwrap();
    let exe = dir.join("main");
    link_c("cc", &c, &[&lib], &exe)?;
    let run = Command::new(&exe).output().unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    if !run.status.success() {
        return Err(format!("the run failed: {out}"));
    }
    let (probs, _) = expected();
    for rows in 1..=2 {
        let got: Vec<f64> =
            out.lines().filter_map(|l| l.strip_prefix(&format!("p{rows} "))).map(|v| v.parse().unwrap()).collect();
        let want = &probs[..rows * 4];
        if got.len() != want.len() || got.iter().zip(want).any(|(g, e)| (g - e).abs() > 1e-6) {
            return Err(format!("{rows} row(s): {got:?}, expected {want:?}"));
        }
    }
    let code = xcc_runtime_c::status::BAD_DIM;
    if !out.contains(&format!("rows 9: {code}, rows 0: {code}")) {
        return Err(format!("out-of-range rows were not refused with XCC_ERROR_BAD_DIM: {out}"));
    }
    Ok(())
}

type Case = (&'static str, fn(&Path) -> Result<(), String>);

fn cases() -> Vec<Case> {
    vec![
        ("classifier_from_blob_package", |d| {
            let pkg = blob_package(d);
            compile_and_run(d, &pkg)
        }),
        ("classifier_from_bare_mlmodel_with_inline_weights", |d| {
            let path = d.join("classifier.mlmodel");
            std::fs::write(&path, classifier(floats(&[4, 3], &weights()), None)).unwrap();
            compile_and_run(d, &path)
        }),
        ("an_output_reusing_the_input_name", |d| {
            // MIL scopes allow it (coremltools writes such programs): the softmax's output is
            // named `x` after the linear read the input `x`.
            let bytes = classifier(floats(&[4, 3], &weights()), None);
            let mut model = proto::Model::decode(bytes.as_slice()).unwrap();
            let main = model.ml_program.as_mut().unwrap().functions.get_mut("main").unwrap();
            let ops = &mut main.block_specializations.get_mut("CoreML5").unwrap().operations;
            ops[2].outputs[0].name = "x".into();
            ops[3].inputs.get_mut("probabilities").unwrap().arguments[0].binding = Some(Binding::Name("x".into()));
            let path = d.join("shadowing.mlmodel");
            std::fs::write(&path, model.encode_to_vec()).unwrap();
            compile_and_run(d, &path)
        }),
        ("flexible_rows_from_the_shape_range", flexible_rows),
        ("dim_flags_on_a_flexible_program", |d| {
            let path = d.join("flexible.mlmodel");
            std::fs::write(&path, flexible_program()).unwrap();
            // --dim fixes the flexible dim: the header has no run-time dims left.
            let o = Command::new(xcc_binary())
                .arg(&path)
                .args(["--name", "m", "--dim", "x_dim0=2", "-o"])
                .arg(d.join("libm.a"))
                .output()
                .unwrap();
            let header = std::fs::read_to_string(d.join("m.h")).unwrap_or_default();
            if !o.status.success() || header.contains("M_NUM_DIMS") || !header.contains("#define M_INPUT0_SIZE 6") {
                return Err(format!("--dim x_dim0=2: {}\n{header}", String::from_utf8_lossy(&o.stderr)));
            }
            std::fs::remove_file(d.join("libm.a")).unwrap();
            std::fs::remove_file(d.join("m.h")).unwrap();
            expect_failure_with(d, &path, &["--dim", "rows=2"], &["--dim rows", "no flexible dim named 'rows'"])?;
            expect_failure_with(d, &path, &["--shape", "x=2x3"], &["--shape applies to ONNX models"])
        }),
        ("inspect_reports_the_program", |d| {
            let pkg = blob_package(d);
            let bad = d.join("bad.mlmodel");
            std::fs::write(&bad, classifier(floats(&[4, 3], &weights()), Some("frobnicate"))).unwrap();
            let inspect = |path: &Path, json: bool| {
                let mut c = Command::new(xcc_binary());
                c.arg("inspect").arg(path);
                if json {
                    c.arg("--json");
                }
                let o = c.output().unwrap();
                (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
            };
            let (code, text) = inspect(&pkg, false);
            let wanted = [
                "Core ML specification 6",
                "x: float32 [2, 3]",
                "label: int64 [2]",
                "label_probs: float32 [2, 4]",
                "multiply-accumulates: 24",
                "parameters: 12 (48 bytes)",
                "1  classify",
                "compiles: yes",
            ];
            if code != Some(0) || wanted.iter().any(|w| !text.contains(w)) {
                return Err(format!("exit {code:?}, expected 0 and {wanted:?} in:\n{text}"));
            }
            let (code, json) = inspect(&pkg, true);
            if code != Some(0) || !json.contains("\"format\": \"coreml\"") || !json.contains("\"compiles\": true") {
                return Err(format!("--json: exit {code:?}:\n{json}"));
            }
            let (code, text) = inspect(&bad, false);
            if code != Some(1) || !text.contains("frobnicate  x") || !text.contains("compiles: no") {
                return Err(format!("an unknown operator: exit {code:?}, expected 1 and it marked:\n{text}"));
            }
            Ok(())
        }),
        ("truncated_blob_file", |d| {
            let pkg = blob_package(d);
            let w = pkg.join("Data/com.apple.CoreML/weights/weight.bin");
            let bytes = std::fs::read(&w).unwrap();
            std::fs::write(&w, &bytes[..bytes.len() - 5]).unwrap();
            expect_failure(d, &pkg, &["operation 'W' (const)", "runs past the file's end"])
        }),
        ("blob_offset_past_the_end", |d| {
            let (file, _) = blob_file(&weights(), 2);
            let model = classifier(blob("@model_path/weights/weight.bin", 4096, data_type::FLOAT32, &[4, 3]), None);
            let pkg = write_package(d, &model, Some(&file), "com.apple.CoreML/model.mlmodel");
            expect_failure(d, &pkg, &["offset 4096", "past the file's end"])
        }),
        ("blob_of_the_wrong_type", |d| {
            let (file, offset) = blob_file(&weights(), 14);
            let model = classifier(blob("@model_path/weights/weight.bin", offset, data_type::FLOAT32, &[4, 3]), None);
            let pkg = write_package(d, &model, Some(&file), "com.apple.CoreML/model.mlmodel");
            expect_failure(d, &pkg, &["the blob holds int32, but the program declares float32"])
        }),
        ("missing_weights_file", |d| {
            let model = classifier(blob("@model_path/weights/weight.bin", 64, data_type::FLOAT32, &[4, 3]), None);
            let pkg = write_package(d, &model, None, "com.apple.CoreML/model.mlmodel");
            expect_failure(d, &pkg, &["blob file 'weights/weight.bin' does not exist in the package"])
        }),
        ("blob_file_outside_the_package", |d| {
            let model = classifier(blob("@model_path/../../../secret.bin", 64, data_type::FLOAT32, &[4, 3]), None);
            let pkg = write_package(d, &model, None, "com.apple.CoreML/model.mlmodel");
            std::fs::write(d.join("secret.bin"), [0u8; 256]).unwrap();
            expect_failure(d, &pkg, &["points outside the package"])
        }),
        ("manifest_points_outside_the_package", |d| {
            let (file, offset) = blob_file(&weights(), 2);
            let model = classifier(blob("@model_path/weights/weight.bin", offset, data_type::FLOAT32, &[4, 3]), None);
            let pkg = write_package(d, &model, Some(&file), "../../model.mlmodel");
            std::fs::write(d.join("model.mlmodel"), &model).unwrap();
            expect_failure(d, &pkg, &["Manifest.json's root model path", "points outside the package"])
        }),
        ("unknown_operators_listed_together", |d| {
            let path = d.join("bad.mlmodel");
            std::fs::write(&path, classifier(floats(&[4, 3], &weights()), Some("frobnicate"))).unwrap();
            expect_failure(d, &path, &["unsupported MIL operator(s)", "frobnicate"])
        }),
        ("a_name_nothing_defines", |d| {
            let bytes = classifier(floats(&[4, 3], &weights()), None);
            let mut model = proto::Model::decode(bytes.as_slice()).unwrap();
            let main = model.ml_program.as_mut().unwrap().functions.get_mut("main").unwrap();
            let ops = &mut main.block_specializations.get_mut("CoreML5").unwrap().operations;
            ops[3].inputs.get_mut("probabilities").unwrap().arguments[0].binding = Some(Binding::Name("ghost".into()));
            let path = d.join("undefined.mlmodel");
            std::fs::write(&path, model.encode_to_vec()).unwrap();
            expect_failure(d, &path, &["(classify)", "reads 'ghost', which nothing defines before it"])
        }),
        ("not_a_core_ml_model", |d| {
            let path = d.join("noise.mlmodel");
            std::fs::write(&path, b"\xff\xff\xff\xff not a protobuf").unwrap();
            expect_failure(d, &path, &["not a valid Core ML model"])
        }),
        ("neural_network_model", |d| {
            let path = d.join("nn.mlmodel");
            let model = proto::Model { specification_version: 4, neural_network: Some(vec![]), ..Default::default() };
            std::fs::write(&path, model.encode_to_vec()).unwrap();
            expect_failure(d, &path, &["NeuralNetwork", "ML Programs"])
        }),
        ("package_without_manifest", |d| {
            let pkg = d.join("empty.mlpackage");
            std::fs::create_dir_all(&pkg).unwrap();
            expect_failure(d, &pkg, &["Manifest.json"])
        }),
    ]
}

fn main() -> std::process::ExitCode {
    let root = work_root("coreml");
    let mut trials: Vec<Trial> = cases()
        .into_iter()
        .map(|(name, case)| {
            let dir = root.join(name);
            Trial::test(format!("coreml/{name}"), move || case(&fresh_dir(&dir)).map_err(Into::into))
        })
        .collect();
    // The classifier for AArch64, run under qemu-user where the cross tools are installed.
    let cross = find_tool("aarch64-linux-gnu-gcc").is_some() && find_tool("qemu-aarch64").is_some();
    let dir = root.join("classifier_for_aarch64");
    let trial = Trial::test("coreml/classifier_for_aarch64", move || {
        let d = fresh_dir(&dir);
        let pkg = blob_package(&d);
        compile_and_run_on(&d, &pkg, true).map_err(Into::into)
    });
    if !cross {
        println!("skipped: coreml/classifier_for_aarch64 (aarch64-linux-gnu-gcc or qemu-aarch64 is missing)");
    }
    trials.push(trial.with_ignored_flag(!cross));
    run_trials(trials)
}
