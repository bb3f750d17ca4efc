//! The ONNX backend *node* conformance tests (about 1900 one-operator models with reference data),
//! generated from the installed `onnx` wheel by `../shared/conformance/gen_node_tests.py` into
//! `target/xcc-tests/onnx-node/data` (once; a marker file records it). Every case is compiled with
//! `xcc model.onnx --name m -O1`, linked with a generated C harness through `m.h`, run on each
//! `test_data_set_*`, and its outputs are compared with the reference: floating types with
//! `|a-b| <= 1e-7 + 1e-3*|b|` (NaN equals NaN), everything else byte for byte.
//!
//! Many operators are not supported yet; the test does not fail for those. It writes the per-case
//! table `test-suite/onnx-node-tests.md` (full runs only) and fails only when a test listed in
//! `test-suite/onnx-node-expected-pass.txt` no longer passes. `XCC_BLESS=1` rewrites that list from
//! the current passes; `XCC_NODE_FILTER=SUBSTRING` runs only the cases whose name contains it.
//! Every graph input is passed at run time, as ONNX Runtime's runner does; `XCC_NODE_BIND=1` binds
//! the inputs that decide shapes at compile time instead (see [`SHAPE_PARAMETERS`]).
//! Skipped, with a message, where `../shared` or `.venv/bin/python` is absent.
//!
//! The same file is the test `onnx_node_gpu` (see [`gpu`]): every case compiled for a GPU with
//! `--target=nvptx64 --emulate-gpu` (the kernels xcc writes for the GPU, run by runtime-c's grid
//! emulator) and run through the header's GPU functions, with its own table
//! (`onnx-node-tests-gpu.md`) and expected list (`onnx-node-expected-pass-gpu.txt`).

use prost::Message;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use xcc_frontend_onnx::graph::DType;
use xcc_frontend_onnx::import::decode_tensor;
use xcc_frontend_onnx::proto::{type_proto, ModelProto, TensorProto};
use xcc_test_suite::{
    compile_timeout, fresh_dir, run_command, run_timeout, run_trials, suite_dir, work_root, xcc_binary,
};

const RTOL: f64 = 1e-3;
const ATOL: f64 = 1e-7;
const XCC_TIMEOUT: Duration = Duration::from_secs(60);
const MARKER: &str = ".xcc-generated";
const TABLE: &str = "onnx-node-tests.md";
/// The table of a run with `XCC_NODE_BIND=1`.
const TABLE_BOUND: &str = "onnx-node-tests-bound.md";

/// Whether this is the `onnx_node_gpu` test (this file, built as a second test target).
fn gpu() -> bool {
    env!("CARGO_CRATE_NAME") == "onnx_node_gpu"
}

fn table_file() -> &'static str {
    if gpu() && binding() {
        "onnx-node-tests-gpu-bound.md"
    } else if gpu() {
        "onnx-node-tests-gpu.md"
    } else if binding() {
        TABLE_BOUND
    } else {
        TABLE
    }
}
fn expected_file() -> &'static str {
    if gpu() {
        "onnx-node-expected-pass-gpu.txt"
    } else {
        "onnx-node-expected-pass.txt"
    }
}

fn repo() -> PathBuf {
    suite_dir().parent().expect("test-suite/ has a parent").to_path_buf()
}

// ---- generating the cases -------------------------------------------------------------------

/// The generated cases, generating them first if needed; `None` (after a message) where the
/// generator or its Python is missing.
fn data_dir() -> Option<PathBuf> {
    let repo = repo();
    let script = repo.join("../shared/conformance/gen_node_tests.py");
    let python = repo.join(".venv/bin/python");
    let dir = work_root("onnx-node").join("data");
    if dir.join(MARKER).is_file() {
        return Some(dir);
    }
    if !script.is_file() {
        println!("skip: {} not found (the ONNX node tests need ../shared beside the project)", script.display());
        return None;
    }
    if !python.is_file() {
        println!("skip: {} not found (create the project's venv with onnx and numpy)", python.display());
        return None;
    }
    let dir = fresh_dir(&dir);
    let start = Instant::now();
    let o = run_command(Command::new(&python).arg(&script).arg(&dir).current_dir(&repo), Duration::from_secs(600));
    if !o.success() {
        panic!("{} {} failed: {}", python.display(), script.display(), o.summary());
    }
    std::fs::write(dir.join(MARKER), o.stdout.trim()).unwrap();
    println!("{} ({:.1} s)", o.stdout.trim(), start.elapsed().as_secs_f64());
    Some(dir)
}

fn filter() -> Option<String> {
    std::env::var("XCC_NODE_FILTER").ok().filter(|f| !f.is_empty())
}

fn list_cases(data: &Path, filter: Option<&str>) -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(data)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", data.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("test_") && data.join(n).join("model.onnx").is_file())
        .filter(|n| filter.is_none_or(|f| n.contains(f)))
        .collect();
    cases.sort();
    cases
}

// ---- one case -------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Status {
    Pass,
    Wrong,
    CompileError,
    Unsupported,
    UnsupportedType,
    LinkError,
    /// The run returned an error status for the case's inputs (a feature the run checks for
    /// and refuses, such as Dropout's training mode).
    Refused,
    Crash,
    Timeout,
    Harness,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Wrong => "wrong",
            Status::CompileError => "compile error",
            Status::Unsupported => "unsupported",
            Status::UnsupportedType => "unsupported (type)",
            Status::LinkError => "link error",
            Status::Refused => "refused at run time",
            Status::Crash => "crash",
            Status::Timeout => "timeout",
            Status::Harness => "harness error",
        }
    }
}

struct CaseResult {
    name: String,
    op: String,
    status: Status,
    /// Short, one line, without absolute paths, escaped for the table.
    detail: String,
    /// The whole first line, for grouping failures.
    message: String,
}

type Outcome = Result<(), (Status, String)>;

fn fail<T>(status: Status, detail: impl Into<String>) -> Result<T, (Status, String)> {
    Err((status, detail.into()))
}

fn type_name(code: i32) -> String {
    match DType::onnx_name(code) {
        "unknown" => format!("element type {code}"),
        n => n.to_string(),
    }
}

/// A supported element type, or a description of why the value's type is not one.
fn value_type(t: Option<&xcc_frontend_onnx::proto::TypeProto>) -> Result<DType, String> {
    match t.and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(t)) => {
            let code = t.elem_type.unwrap_or(0);
            DType::from_onnx(code).ok_or_else(|| type_name(code))
        }
        Some(type_proto::Value::SequenceType(_)) => Err("a sequence".into()),
        Some(type_proto::Value::MapType(_)) => Err("a map".into()),
        Some(type_proto::Value::OptionalType(_)) => Err("an optional".into()),
        Some(type_proto::Value::SparseTensorType(_)) => Err("a sparse tensor".into()),
        Some(type_proto::Value::OpaqueType(_)) => Err("an opaque value".into()),
        None => Err("untyped".into()),
    }
}

/// The model's first op, and an error where a graph input or output has a type xcc lacks.
fn inspect_model(path: &Path) -> (String, Outcome) {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return (String::new(), fail(Status::Harness, format!("cannot read model.onnx: {e}"))),
    };
    let model = match ModelProto::decode(&bytes[..]) {
        Ok(m) => m,
        Err(e) => return (String::new(), fail(Status::Harness, format!("cannot decode model.onnx: {e}"))),
    };
    let Some(g) = model.graph.as_ref() else { return (String::new(), Ok(())) };
    let op = g.node.first().and_then(|n| n.op_type.clone()).unwrap_or_default();
    let inits: BTreeSet<&str> = g.initializer.iter().filter_map(|t| t.name.as_deref()).collect();
    for (kind, list) in [("input", &g.input), ("output", &g.output)] {
        for v in list.iter().filter(|v| !inits.contains(v.name.as_deref().unwrap_or(""))) {
            if let Err(t) = value_type(v.r#type.as_ref()) {
                let name = v.name.as_deref().unwrap_or("");
                return (op, fail(Status::UnsupportedType, format!("{kind} '{name}' is {t}")));
            }
        }
    }
    (op, Ok(()))
}

/// `m.h`'s description of one input or output.
#[derive(Debug)]
struct Port {
    ty: String,
    /// `None` for an output whose dims the inputs' data decides (`m_output_dims` reports them).
    size: Option<usize>,
}

fn parse_header(text: &str) -> Result<(Vec<Port>, Vec<Port>), String> {
    let define = |key: &str| -> Option<String> {
        let prefix = format!("#define M_{key} ");
        text.lines()
            .find_map(|l| l.strip_prefix(prefix.as_str()))
            .map(|v| v.split("/*").next().unwrap_or("").trim().to_string())
    };
    let count = |key: &str| define(key).and_then(|v| v.parse::<usize>().ok()).ok_or(format!("m.h lacks M_{key}"));
    let ports = |kind: &str, n: usize| -> Result<Vec<Port>, String> {
        (0..n)
            .map(|i| {
                let ty = define(&format!("{kind}{i}_TYPE"))
                    .ok_or(format!("m.h lacks M_{kind}{i}_TYPE"))?
                    .trim_matches('"')
                    .to_string();
                let size = count(&format!("{kind}{i}_SIZE")).ok();
                if size.is_none() && !text.contains("m_output_dims(") {
                    return Err(format!("m.h lacks M_{kind}{i}_SIZE"));
                }
                Ok(Port { ty, size })
            })
            .collect()
    };
    Ok((ports("INPUT", count("NUM_INPUTS")?)?, ports("OUTPUT", count("NUM_OUTPUTS")?)?))
}

/// The numbered `PREFIX_k.pb` files of a data set, in order.
fn numbered(ds: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut files: Vec<(usize, PathBuf)> = std::fs::read_dir(ds)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let n = e.file_name().to_string_lossy().into_owned();
                    let k = n.strip_prefix(prefix)?.strip_suffix(".pb")?.parse().ok()?;
                    Some((k, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|(_, p)| p).collect()
}

struct Data {
    dtype: DType,
    dims: Vec<usize>,
    numel: usize,
    bytes: Vec<u8>,
}

fn decode_pb(path: &Path, ds: &Path) -> Result<Data, (Status, String)> {
    let what = format!("{}/{}", file_name(ds), file_name(path));
    let bytes = std::fs::read(path).map_err(|e| (Status::Harness, format!("cannot read {what}: {e}")))?;
    let t =
        TensorProto::decode(&bytes[..]).map_err(|e| (Status::Harness, format!("{what} is not a TensorProto: {e}")))?;
    let code = t.data_type.unwrap_or(0);
    if DType::from_onnx(code).is_none() {
        return fail(Status::UnsupportedType, format!("{what} holds {}", type_name(code)));
    }
    let t = decode_tensor(&t, ds).map_err(|e| (Status::Harness, format!("cannot decode {what}: {e}")))?;
    Ok(Data { dtype: t.ty.dtype, dims: t.ty.shape.clone(), numel: t.ty.numel(), bytes: t.data })
}

fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The C program: reads `DIR/in_j.bin`, runs the model, writes `DIR/out_j.bin`. With
/// `data_dims`, the outputs are sized by `m_output_dims`, whose dims it writes to `DIR/out_j.dims`.
fn harness(inputs: &[(usize, DType)], outputs: &[(usize, DType)], data_dims: bool) -> String {
    let mut c = String::new();
    c.push_str("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include \"m.h\"\n\n");
    c.push_str(
        "static void *buffer(size_t bytes) {\n\
         \x20   size_t n = (bytes + 63) / 64 * 64;\n\
         \x20   if (n < 64) n = 64;\n\
         \x20   void *p = aligned_alloc(64, n);\n\
         \x20   if (!p) { fprintf(stderr, \"out of memory\\n\"); exit(2); }\n\
         \x20   memset(p, 0xA5, n);\n\
         \x20   return p;\n\
         }\n\n\
         static void *load(const char *dir, const char *name, size_t bytes) {\n\
         \x20   char path[4096];\n\
         \x20   snprintf(path, sizeof path, \"%s/%s\", dir, name);\n\
         \x20   FILE *f = fopen(path, \"rb\");\n\
         \x20   if (!f) { fprintf(stderr, \"cannot open %s\\n\", path); exit(2); }\n\
         \x20   void *p = buffer(bytes);\n\
         \x20   if (bytes && fread(p, 1, bytes, f) != bytes) { fprintf(stderr, \"%s is short\\n\", path); exit(2); }\n\
         \x20   fclose(f);\n\
         \x20   return p;\n\
         }\n\n\
         static void save(const char *dir, const char *name, const void *p, size_t bytes) {\n\
         \x20   char path[4096];\n\
         \x20   snprintf(path, sizeof path, \"%s/%s\", dir, name);\n\
         \x20   FILE *f = fopen(path, \"wb\");\n\
         \x20   if (!f || (bytes && fwrite(p, 1, bytes, f) != bytes)) { fprintf(stderr, \"cannot write %s\\n\", path); exit(2); }\n\
         \x20   fclose(f);\n\
         }\n\n",
    );
    c.push_str("int main(int argc, char **argv) {\n    if (argc != 2) return 2;\n    const char *dir = argv[1];\n");
    for (j, (n, t)) in inputs.iter().enumerate() {
        let _ = writeln!(c, "    void *in{j} = load(dir, \"in_{j}.bin\", (size_t){n} * {});", t.size());
    }
    let ins: String = (0..inputs.len()).map(|j| format!("in{j}, ")).collect();
    if data_dims {
        for j in 0..outputs.len() {
            let _ = writeln!(c, "    int64_t d{j}[M_OUTPUT{j}_RANK + 1];");
        }
        let dims: Vec<String> = (0..outputs.len()).map(|j| format!("d{j}")).collect();
        let _ = writeln!(c, "    int32_t drc = m_output_dims({ins}{});", dims.join(", "));
        c.push_str(
            "    if (drc != 0) { fprintf(stderr, \"m_output_dims returned %d: %s\\n\", (int)drc, xcc_status_message(drc)); \
             return 4; }\n",
        );
        for (j, (_, t)) in outputs.iter().enumerate() {
            let _ = writeln!(
                c,
                "    size_t n{j} = 1;\n    char dims{j}[512] = \"\";\n    for (int k = 0; k < M_OUTPUT{j}_RANK; k++) {{ n{j} *= (size_t)d{j}[k]; \
                 snprintf(dims{j} + strlen(dims{j}), sizeof dims{j} - strlen(dims{j}), \"%lld \", (long long)d{j}[k]); }}\n    \
                 save(dir, \"out_{j}.dims\", dims{j}, strlen(dims{j}));\n    void *out{j} = buffer(n{j} * {});",
                t.size()
            );
        }
        let _ = writeln!(c, "    void *ws = buffer(m_workspace_size({}));", ins.trim_end_matches(", "));
    } else {
        for (j, (n, t)) in outputs.iter().enumerate() {
            let _ = writeln!(c, "    size_t n{j} = {n};\n    void *out{j} = buffer(n{j} * {});", t.size());
        }
        let size = if gpu() { "64" } else { "m_workspace_size()" };
        let _ = writeln!(c, "    void *ws = buffer({size});");
    }
    let args: Vec<String> =
        (0..inputs.len()).map(|j| format!("in{j}")).chain((0..outputs.len()).map(|j| format!("out{j}"))).collect();
    if gpu() {
        c.push_str(
            "    (void)ws;\n    m_context *ctx = 0;\n    int32_t rc = m_create(&ctx, 0);\n    \
             if (rc != 0) { fprintf(stderr, \"m_create returned %d: %s\\n\", (int)rc, m_last_error()); return 4; }\n",
        );
        let _ = writeln!(c, "    rc = m_run(ctx, {});", args.join(", "));
        c.push_str(
            "    if (rc != 0) { fprintf(stderr, \"m_run returned %d: %s %s\\n\", (int)rc, xcc_status_message(rc), \
             m_last_error()); return 4; }\n    m_destroy(&ctx);\n",
        );
        for (j, (_, t)) in outputs.iter().enumerate() {
            let _ = writeln!(c, "    save(dir, \"out_{j}.bin\", out{j}, n{j} * {});", t.size());
        }
        c.push_str("    return 0;\n}\n");
        return c;
    }
    let _ = writeln!(c, "    int32_t rc = m_run({}ws);", args.iter().map(|a| format!("{a}, ")).collect::<String>());
    c.push_str(
        "    if (rc != 0) { fprintf(stderr, \"m_run returned %d: %s\\n\", (int)rc, xcc_status_message(rc)); return 4; }\n",
    );
    for (j, (_, t)) in outputs.iter().enumerate() {
        let _ = writeln!(c, "    save(dir, \"out_{j}.bin\", out{j}, n{j} * {});", t.size());
    }
    c.push_str("    return 0;\n}\n");
    c
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let frac = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if frac == 0 {
            sign
        } else {
            // Subnormal: normalize.
            let mut e = 127 - 15 + 1;
            let mut f = frac;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            sign | (e << 23) | ((f & 0x3ff) << 13)
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (frac << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (frac << 13)
    };
    f32::from_bits(bits)
}

fn floats(d: DType, b: &[u8]) -> Vec<f64> {
    match d {
        DType::F32 => b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        DType::F64 => b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
        DType::F16 => b.chunks_exact(2).map(|c| f16_to_f32(u16::from_le_bytes(c.try_into().unwrap())) as f64).collect(),
        DType::BF16 => b
            .chunks_exact(2)
            .map(|c| f32::from_bits((u16::from_le_bytes(c.try_into().unwrap()) as u32) << 16) as f64)
            .collect(),
        _ => unreachable!(),
    }
}

/// Integer elements as i64, for messages.
fn ints(d: DType, b: &[u8]) -> Vec<i64> {
    match d {
        DType::I8 => b.iter().map(|&x| x as i8 as i64).collect(),
        DType::U8 | DType::Bool => b.iter().map(|&x| x as i64).collect(),
        DType::I16 => b.chunks_exact(2).map(|c| i16::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        DType::I32 => b.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        DType::I64 => b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect(),
        DType::U16 => b.chunks_exact(2).map(|c| u16::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        DType::U32 => b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as i64).collect(),
        // Compared bit for bit; a value past i64::MAX shows negative.
        DType::U64 => b.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect(),
        _ => unreachable!(),
    }
}

/// The shortest text that reads back as the element's value.
fn show(d: DType, x: f64) -> String {
    if d == DType::F64 {
        format!("{x}")
    } else {
        format!("{}", x as f32)
    }
}

/// Compares one output; `Err` names the first mismatch and how many elements differ.
fn compare(what: &str, d: DType, got: &[u8], want: &Data) -> Result<(), String> {
    if got.len() != want.bytes.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len() / d.size(), want.numel));
    }
    let (first, bad, n) = if let Some(f) = d.float8() {
        // Bit for bit, except that any NaN of the format matches any other (the sign of a NaN).
        let same = |a: u8, b: u8| a == b || (f.is_nan(a) && f.is_nan(b));
        let bad: Vec<usize> = (0..want.bytes.len()).filter(|&i| !same(got[i], want.bytes[i])).collect();
        let show = |b: u8| format!("{:#04x} ({})", b, f.decode(b));
        (
            bad.first().map(|&i| format!("[{i}] = {}, expected {}", show(got[i]), show(want.bytes[i]))),
            bad.len(),
            want.numel,
        )
    } else if d.is_float() {
        let (g, w) = (floats(d, got), floats(d, &want.bytes));
        let ok = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= ATOL + RTOL * b.abs();
        let bad: Vec<usize> = (0..w.len()).filter(|&i| !ok(g[i], w[i])).collect();
        (bad.first().map(|&i| format!("[{i}] = {}, expected {}", show(d, g[i]), show(d, w[i]))), bad.len(), w.len())
    } else {
        let (g, w) = (ints(d, got), ints(d, &want.bytes));
        let bad: Vec<usize> = (0..w.len()).filter(|&i| g[i] != w[i]).collect();
        (bad.first().map(|&i| format!("[{i}] = {}, expected {}", g[i], w[i])), bad.len(), w.len())
    };
    match first {
        None => Ok(()),
        Some(f) => Err(format!("{what}{f} ({bad} of {n} differ)")),
    }
}

/// The first line of a tool's message that says what went wrong, without the program's prefix.
fn first_error(text: &str) -> String {
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let pick = lines.iter().position(|l| l.contains("error") || l.contains("undefined reference")).unwrap_or(0);
    let Some(line) = lines.get(pick) else { return String::new() };
    let mut s = line.strip_prefix("xcc: error: ").unwrap_or(line).to_string();
    if let Some(rest) = s.strip_prefix("model.onnx: ") {
        s = rest.to_string();
    }
    // "the model uses N unsupported node(s):" is followed by one line per node: name the ops.
    if s.ends_with(':') {
        let ops: BTreeSet<String> = lines[pick + 1..]
            .iter()
            .filter_map(|l| l.split("(op ").nth(1).and_then(|r| r.split(',').next()))
            .map(str::to_string)
            .collect();
        if !ops.is_empty() {
            s = format!("{} {}", s, ops.into_iter().collect::<Vec<_>>().join(", "));
        } else if let Some(next) = lines.get(pick + 1) {
            s = format!("{s} {next}");
        }
    }
    s
}

fn run_case(data: &Path, work_root: &Path, name: &str) -> CaseResult {
    let case = data.join(name);
    let work = work_root.join(name);
    let (op, checked) = inspect_model(&case.join("model.onnx"));
    let outcome = checked.and_then(|()| run_checked(&case, &work));
    let (status, detail) = match outcome {
        Ok(()) => (Status::Pass, String::new()),
        Err((s, d)) => (s, d),
    };
    // No absolute paths in the report.
    let mut message = detail.replace(&work.display().to_string(), "CASE").replace(&case.display().to_string(), "CASE");
    message = message.replace(&repo().display().to_string(), ".");
    let detail = if message.chars().count() > 200 {
        format!("{}...", message.chars().take(200).collect::<String>())
    } else {
        message.clone()
    };
    let detail = detail.replace('|', "\\|");
    CaseResult { name: name.to_string(), op, status, detail, message }
}

/// The inputs of each op that decide shapes, ranks or axes (by position), which `XCC_NODE_BIND=1`
/// binds (`--bind`) to compare the static code with the code that reads them at run time. Inputs
/// that only carry values (Clip's bounds, Pad's constant_value) are passed at run time always.
const SHAPE_PARAMETERS: &[(&str, &[usize])] = &[
    ("Reshape", &[1]),
    ("Slice", &[1, 2, 3, 4]),
    ("Squeeze", &[1]),
    ("Unsqueeze", &[1]),
    ("Pad", &[1, 3]),
    ("Expand", &[1]),
    ("Tile", &[1]),
    ("Split", &[1]),
    ("ConstantOfShape", &[0]),
    ("Range", &[0, 1, 2]),
    ("Resize", &[1, 2, 3]),
    ("Upsample", &[1]),
    ("TopK", &[1]),
    ("OneHot", &[1, 2]),
    ("CumSum", &[1]),
    ("CumProd", &[1]),
    // training_mode decides what the operator means (xcc compiles inference graphs).
    ("Dropout", &[1, 2]),
    ("ReduceSum", &[1]),
    ("ReduceMean", &[1]),
    ("ReduceMax", &[1]),
    ("ReduceMin", &[1]),
    ("ReduceProd", &[1]),
    ("ReduceL1", &[1]),
    ("ReduceL2", &[1]),
    ("ReduceLogSum", &[1]),
    ("ReduceLogSumExp", &[1]),
    ("ReduceSumSquare", &[1]),
];

/// Whether shape parameters are bound (`XCC_NODE_BIND=1`, which writes its own table) or passed
/// at run time like every other input, as ONNX Runtime's runner does (the default).
fn binding() -> bool {
    std::env::var("XCC_NODE_BIND").is_ok_and(|v| v == "1")
}

fn shape_parameter_inputs(model: &Path) -> Vec<usize> {
    use prost::Message;
    let Ok(bytes) = std::fs::read(model) else { return Vec::new() };
    let Ok(m) = xcc_frontend_onnx::proto::ModelProto::decode(bytes.as_slice()) else { return Vec::new() };
    let Some(g) = m.graph else { return Vec::new() };
    let inits: std::collections::HashSet<String> = g.initializer.iter().filter_map(|t| t.name.clone()).collect();
    let params: std::collections::HashSet<String> = g
        .node
        .iter()
        .flat_map(|n| {
            let op = n.op_type.as_deref().unwrap_or("");
            let positions = SHAPE_PARAMETERS.iter().find(|(o, _)| *o == op).map_or(&[][..], |(_, p)| *p);
            positions.iter().filter_map(|&k| n.input.get(k).cloned())
        })
        .collect();
    g.input
        .iter()
        .filter(|i| !inits.contains(i.name.as_deref().unwrap_or("")))
        .enumerate()
        .filter(|(_, i)| params.contains(i.name.as_deref().unwrap_or("")))
        .map(|(k, _)| k)
        .collect()
}

fn input_name(model: &Path, k: usize) -> String {
    use prost::Message;
    let bytes = std::fs::read(model).unwrap_or_default();
    let m = xcc_frontend_onnx::proto::ModelProto::decode(bytes.as_slice()).unwrap_or_default();
    let g = m.graph.unwrap_or_default();
    let inits: std::collections::HashSet<String> = g.initializer.iter().filter_map(|t| t.name.clone()).collect();
    g.input
        .iter()
        .filter(|i| !inits.contains(i.name.as_deref().unwrap_or("")))
        .nth(k)
        .and_then(|i| i.name.clone())
        .unwrap_or_default()
}

fn run_checked(case: &Path, work: &Path) -> Outcome {
    let mut sets: Vec<PathBuf> = std::fs::read_dir(case)
        .map_err(|e| (Status::Harness, format!("cannot read the case: {e}")))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && file_name(p).starts_with("test_data_set_"))
        .collect();
    sets.sort();
    if sets.is_empty() {
        return fail(Status::Harness, "no test_data_set_*");
    }
    // Decode all the data first: an unsupported element type is the test's property, not xcc's.
    let mut data = Vec::new();
    for ds in &sets {
        let ins = numbered(ds, "input_").iter().map(|p| decode_pb(p, ds)).collect::<Result<Vec<_>, _>>()?;
        let outs = numbered(ds, "output_").iter().map(|p| decode_pb(p, ds)).collect::<Result<Vec<_>, _>>()?;
        data.push((ds, ins, outs));
    }

    // Shape parameters given as runtime inputs (Reshape's shape, Slice's starts, axes, pads...)
    // are frozen with --bind from the first data set: xcc compiles static shapes.
    let bound = if binding() { shape_parameter_inputs(&case.join("model.onnx")) } else { Vec::new() };
    let mut binds = Vec::new();
    for &k in &bound {
        let pb = numbered(sets[0].as_path(), "input_").get(k).cloned();
        if let Some(pb) = pb {
            binds.push("--bind".to_string());
            binds.push(format!("{}=@{}", input_name(&case.join("model.onnx"), k), pb.display()));
        }
    }
    for (_, ins, _) in data.iter_mut() {
        let mut j = 0;
        ins.retain(|_| {
            j += 1;
            !bound.contains(&(j - 1))
        });
    }

    let work = fresh_dir(work);
    let lib = work.join("libm.a");
    let o = run_command(
        Command::new(xcc_binary())
            .arg("model.onnx")
            .args(["--name", "m", "-O1", "-o"])
            .arg(&lib)
            .args(&binds)
            .args(if gpu() { &["--target=nvptx64", "--emulate-gpu"][..] } else { &[] })
            .current_dir(case),
        XCC_TIMEOUT,
    );
    if !o.success() {
        let text = format!("{}\n{}", o.stderr, o.stdout);
        if o.timed_out {
            return fail(Status::CompileError, format!("xcc timed out after {} s", XCC_TIMEOUT.as_secs()));
        }
        if o.code.is_none() {
            return fail(Status::CompileError, format!("xcc {}: {}", o.status(), first_error(&text)));
        }
        let unsupported = ["unsupported", "not supported", "does not support"].iter().any(|k| text.contains(k));
        let status = if unsupported && !text.contains("internal compiler error") {
            Status::Unsupported
        } else {
            Status::CompileError
        };
        return fail(status, first_error(&text));
    }
    let header = std::fs::read_to_string(work.join("m.h"))
        .map_err(|e| (Status::CompileError, format!("xcc wrote no m.h: {e}")))?;
    let (h_in, h_out) = parse_header(&header).map_err(|e| (Status::CompileError, e))?;

    // The interface must match the test data.
    let (_, ins0, outs0) = &data[0];
    if h_in.len() != ins0.len() || h_out.len() != outs0.len() {
        return fail(
            Status::Wrong,
            format!(
                "interface: m_run takes {} inputs and {} outputs, the test has {} and {}",
                h_in.len(),
                h_out.len(),
                ins0.len(),
                outs0.len()
            ),
        );
    }
    for (_, ins, outs) in &data {
        for (kind, ports, vals) in [("input", &h_in, ins), ("output", &h_out, outs)] {
            for (j, (p, v)) in ports.iter().zip(vals.iter()).enumerate() {
                if p.ty != v.dtype.name() || p.size.is_some_and(|n| n != v.numel) {
                    return fail(
                        Status::Wrong,
                        format!(
                            "interface: {kind} {j} is {} x{} in m.h, the test has {} x{}",
                            p.ty,
                            p.size.map_or("?".to_string(), |n| n.to_string()),
                            v.dtype.name(),
                            v.numel
                        ),
                    );
                }
            }
        }
    }
    let sig = |v: &[Data]| v.iter().map(|d| (d.numel, d.dtype)).collect::<Vec<_>>();
    let data_dims = header.contains("m_output_dims(");
    std::fs::write(work.join("harness.c"), harness(&sig(ins0), &sig(outs0), data_dims)).unwrap();
    let prog = work.join("prog");
    let o = run_command(
        Command::new("cc")
            .args(["-O0", "-w", "-I"])
            .arg(&work)
            .arg(work.join("harness.c"))
            .arg(&lib)
            .args(["-lm", "-lpthread", "-o"])
            .arg(&prog),
        compile_timeout(),
    );
    if !o.success() {
        return fail(Status::LinkError, first_error(&format!("{}\n{}", o.stderr, o.stdout)));
    }

    for (ds, ins, outs) in &data {
        let dir = work.join(file_name(ds));
        std::fs::create_dir_all(&dir).unwrap();
        for (j, d) in ins.iter().enumerate() {
            std::fs::write(dir.join(format!("in_{j}.bin")), &d.bytes).unwrap();
        }
        let o = run_command(Command::new(&prog).arg(&dir), run_timeout());
        if o.timed_out {
            return fail(Status::Timeout, format!("the program ran over {} s", run_timeout().as_secs()));
        }
        if !o.success() {
            let msg = o.stderr.lines().next().unwrap_or("").trim().to_string();
            let msg = if msg.is_empty() { String::new() } else { format!(": {msg}") };
            // Exit 4: the model's run refused the inputs with a status (its message follows).
            let status = if o.code == Some(4) { Status::Refused } else { Status::Crash };
            return fail(status, format!("{}{msg}", o.status()));
        }
        let set = if data.len() > 1 { format!("{}: ", file_name(ds)) } else { String::new() };
        for (j, want) in outs.iter().enumerate() {
            if data_dims {
                let text = std::fs::read_to_string(dir.join(format!("out_{j}.dims")))
                    .map_err(|e| (Status::Harness, format!("out_{j}.dims: {e}")))?;
                let got: Vec<usize> = text.split_whitespace().filter_map(|x| x.parse().ok()).collect();
                if got != want.dims {
                    return fail(Status::Wrong, format!("{set}output {j}: dims {got:?}, expected {:?}", want.dims));
                }
            }
            let got = std::fs::read(dir.join(format!("out_{j}.bin")))
                .map_err(|e| (Status::Harness, format!("out_{j}.bin: {e}")))?;
            compare(&format!("{set}output {j}"), want.dtype, &got, want).map_err(|e| (Status::Wrong, e))?;
        }
    }
    if gpu() {
        check_ptx(case, &work, &binds)?;
    }
    Ok(())
}

/// For the GPU run: the same kernels as PTX for sm_80, with nothing left external (whole-program
/// `ptxas` would refuse it) and accepted by `ptxas` where it is installed.
fn check_ptx(case: &Path, work: &Path, binds: &[String]) -> Outcome {
    let ptx = work.join("m.ptx");
    let o = run_command(
        Command::new(xcc_binary())
            .arg("model.onnx")
            .args(["--name", "m", "-O1", "--target=nvptx64", "--mcpu=sm_80", "--emit=ptx", "-o"])
            .arg(&ptx)
            .args(binds)
            .current_dir(case),
        XCC_TIMEOUT,
    );
    if !o.success() {
        return fail(Status::CompileError, format!("PTX: {}", first_error(&format!("{}\n{}", o.stderr, o.stdout))));
    }
    let text = std::fs::read_to_string(&ptx).map_err(|e| (Status::CompileError, format!("PTX: {e}")))?;
    if let Some(line) = text.lines().find(|l| l.contains(".extern")) {
        return fail(Status::CompileError, format!("PTX: an external symbol: {}", line.trim()));
    }
    if let Some(ptxas) = xcc_test_suite::ptxas() {
        let o = run_command(
            Command::new(ptxas).args(["-arch", "sm_80"]).arg(&ptx).arg("-o").arg(work.join("m.cubin")),
            compile_timeout(),
        );
        if !o.success() {
            return fail(Status::CompileError, format!("ptxas: {}", first_error(&o.stderr)));
        }
    }
    Ok(())
}

// ---- report, table and gate -----------------------------------------------------------------

/// Message text with names and numbers blanked, for grouping failures by cause.
fn normalize(detail: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut prev_digit = false;
    let mut prev_word = false;
    for ch in detail.chars() {
        // A quote opens a name only at the start of a word ("LayerNormalization's" is no name).
        if ch == '\'' && (quoted || !prev_word) {
            if !quoted {
                out.push_str("'_'");
            }
            quoted = !quoted;
            prev_word = false;
            continue;
        }
        if quoted {
            continue;
        }
        if (ch.is_ascii_digit() && !prev_word) || (prev_digit && (ch.is_ascii_digit() || ch == '.')) {
            if !prev_digit {
                out.push('N');
            }
            prev_digit = true;
            continue;
        }
        prev_digit = false;
        prev_word = ch.is_alphanumeric() || ch == '_';
        out.push(ch);
    }
    out
}

fn totals(results: &[CaseResult]) -> (String, String) {
    let count = |s: &[Status]| results.iter().filter(|r| s.contains(&r.status)).count();
    let line = format!(
        "onnx node tests: {} pass, {} wrong, {} compile error, {} unsupported, {} other",
        count(&[Status::Pass]),
        count(&[Status::Wrong]),
        count(&[Status::CompileError]),
        count(&[Status::Unsupported, Status::UnsupportedType, Status::Refused]),
        count(&[Status::LinkError, Status::Crash, Status::Timeout, Status::Harness]),
    );
    let mut by: BTreeMap<Status, usize> = BTreeMap::new();
    for r in results {
        *by.entry(r.status).or_default() += 1;
    }
    let breakdown = by.iter().map(|(s, n)| format!("{n} {}", s.label())).collect::<Vec<_>>().join(", ");
    (line, breakdown)
}

fn write_table(results: &[&CaseResult], line: &str, breakdown: &str) {
    let mut t = String::new();
    t.push_str("# ONNX backend node tests\n\n");
    t.push_str(
        "Generated by `cargo build -p xcc && cargo test -p xcc-test-suite --test onnx_node -- --include-ignored`\n",
    );
    t.push_str("(see `test-suite/README.md`);\n");
    t.push_str("each case compiled with `xcc model.onnx --name m -O1`, run through `m.h`, and compared with the reference outputs\n");
    t.push_str("(floating: `|a-b| <= 1e-7 + 1e-3*|b|`; others exact). The op is the model's first node's.\n");
    if gpu() {
        t.push_str(
            "This is the GPU run (`cargo test -p xcc-test-suite --test onnx_node_gpu`): each case compiled with\n\
             `--target=nvptx64 --emulate-gpu` (the GPU kernels, run by runtime-c's grid emulator) and run through the\n\
             header's GPU functions (`m_create`, `m_run`); a case that passes is also compiled to PTX for sm_80, which\n\
             must have no external symbol and pass `ptxas`. Models whose shapes are read from inputs at run time are\n\
             refused on GPUs for now, and so are functions without GPU code yet (f64 exp, log, pow; atan, ...).\n\n",
        );
        if binding() {
            t.push_str(
                "Graph inputs that feed shape parameters are frozen with `--bind NAME=@input_k.pb` from the first data\n\
                 set (`XCC_NODE_BIND=1`); `onnx-node-tests-gpu.md` has the run that passes every input at run time.\n\n",
            );
        }
    } else if binding() {
        t.push_str(
            "Graph inputs that feed shape parameters (Reshape's shape, Slice's starts, Reduce axes, Pad's pads,\n",
        );
        t.push_str(
            "Resize's scales, TopK's K, ...) are frozen with `--bind NAME=@input_k.pb` from the first data set\n",
        );
        t.push_str(
            "(`XCC_NODE_BIND=1`); the harness passes the remaining inputs. `onnx-node-tests.md` has the default\n",
        );
        t.push_str("run, which passes every input at run time.\n\n");
    } else {
        t.push_str("Every graph input is passed at run time, as ONNX Runtime's runner does;\n");
        t.push_str(
            "`onnx-node-tests-bound.md` has the run that binds shape parameters with `--bind` (`XCC_NODE_BIND=1`).\n\n",
        );
    }
    let _ = writeln!(t, "**{line}** ({} cases: {breakdown})\n", results.len());
    t.push_str("| test | op | status | detail |\n| --- | --- | --- | --- |\n");
    for r in results {
        let _ = writeln!(t, "| {} | {} | {} | {} |", r.name, r.op, r.status.label(), r.detail);
    }
    let path = suite_dir().join(table_file());
    std::fs::write(&path, t).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

fn read_expected() -> Vec<String> {
    std::fs::read_to_string(suite_dir().join(expected_file()))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// Prints the common causes of failure and the totals; with every case run, rewrites the table;
/// with XCC_BLESS=1, rewrites the expected-pass list from the passing cases.
fn summarize(results: &[CaseResult], all_cases: usize, expected: &[String]) {
    let mut groups: BTreeMap<(Status, String), Vec<&str>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status != Status::Pass) {
        groups.entry((r.status, normalize(&r.message))).or_default().push(&r.name);
    }
    let mut groups: Vec<_> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    if !groups.is_empty() {
        println!("\nmost common failures:");
        for ((status, msg), names) in groups.iter().take(25) {
            println!("{:5}  {:<18} {msg}   (e.g. {})", names.len(), status.label(), names[0]);
        }
    }
    let (line, breakdown) = totals(results);
    println!("\n{line}\n({} of {all_cases} cases run: {breakdown})", results.len());
    let expected_set: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    let passing: BTreeSet<&str> =
        results.iter().filter(|r| r.status == Status::Pass).map(|r| r.name.as_str()).collect();
    let newly: Vec<&str> = passing.iter().copied().filter(|n| !expected_set.contains(n)).collect();
    if !newly.is_empty() {
        println!("\n{} test(s) pass that are not in {} (XCC_BLESS=1 adds them):", newly.len(), expected_file());
        for n in &newly {
            println!("    {n}");
        }
    }
    if results.len() == all_cases {
        let mut sorted: Vec<&CaseResult> = results.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        write_table(&sorted, &line, &breakdown);
        println!("wrote {}", suite_dir().join(table_file()).display());
        if std::env::var("XCC_BLESS").is_ok_and(|v| v == "1") {
            let text: String = passing.iter().map(|n| format!("{n}\n")).collect();
            std::fs::write(suite_dir().join(expected_file()), text).unwrap();
            println!("blessed: {} test(s) in {}", passing.len(), expected_file());
        }
    }
}

/// One test per case. The cases listed in `onnx-node-expected-pass.txt` must pass; the others
/// (operators, types or modes xcc does not support yet) are ignored by default and run with
/// `-- --include-ignored`, which also rewrites `onnx-node-tests.md`. Without `../shared` or the
/// venv there is one ignored test, saying why.
pub fn main() -> std::process::ExitCode {
    let Some(data) = data_dir() else {
        let t = libtest_mimic::Trial::test("onnx-node (skipped: ../shared or the venv is missing)", || Ok(()));
        return run_trials(vec![t.with_ignored_flag(true)]);
    };
    if gpu() && xcc_test_suite::ptxas().is_none() {
        println!("skipped: ptxas on each case's PTX (no ptxas: scripts/setup.sh installs it); the PTX is still checked for external symbols");
    }
    let cases = list_cases(&data, filter().as_deref());
    let expected = read_expected();
    let expected_set: BTreeSet<String> = expected.iter().cloned().collect();
    let work = work_root(if gpu() { "onnx-node-gpu" } else { "onnx-node" }).join("work");
    std::fs::create_dir_all(&work).unwrap();
    let results: Arc<Mutex<Vec<CaseResult>>> = Arc::default();
    let trials: Vec<libtest_mimic::Trial> = cases
        .iter()
        .map(|name| {
            let (data, work, results, name) = (data.clone(), work.clone(), results.clone(), name.clone());
            let known = expected_set.contains(&name);
            libtest_mimic::Trial::test(format!("onnx-node/{name}"), move || {
                let r = run_case(&data, &work, &name);
                let outcome = match r.status {
                    Status::Pass => Ok(()),
                    s => Err(format!("{}: {}", s.label(), r.detail).into()),
                };
                results.lock().unwrap().push(r);
                outcome
            })
            .with_ignored_flag(!known)
        })
        .collect();
    let code = run_trials(trials);
    let results = std::mem::take(&mut *results.lock().unwrap());
    let all = list_cases(&data, None).len();
    summarize(&results, all, &expected);
    let missing: Vec<&String> = expected.iter().filter(|n| !cases.contains(n) && filter().is_none()).collect();
    if !missing.is_empty() {
        println!("{} test(s) in {} are not among the generated cases: {missing:?}", missing.len(), expected_file());
        return std::process::ExitCode::FAILURE;
    }
    code
}
