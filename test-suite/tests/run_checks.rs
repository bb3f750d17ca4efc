//! Checked runs: a compiled model validates what it is given and returns an `xcc_status`
//! (`runtime-c/c/xcc_run.h`), never garbage or a crash. The model is built here (Gather,
//! GatherElements, GatherND, ScatterND and ScatterElements, all with run-time indices);
//! `run-checks/checks.c` drives it through every check with guard pages and canaries around its
//! buffers, on one thread and two, and built with AddressSanitizer where the C compiler has it.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_frontend_onnx::proto::attribute_proto::AttributeType;
use xcc_frontend_onnx::proto::AttributeProto;
use xcc_test_suite::onnx_build::{
    floats, int64s, model, node, optional, relu_model, strings, symbolic, value, with_float, with_int, with_ints,
    with_opset, with_string, with_strings, DOUBLE, FLOAT, INT64, STRING,
};
use xcc_test_suite::{compile_timeout, run_ok, run_trials, suite_dir, xcc_binary};

/// TensorProto.DataType BOOL.
const BOOL: i32 = 9;
const UINT8: i32 = 2;
const INT32: i32 = 6;

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

/// The model `checks.c` drives (V = 64 rows of D = 512, N = 64 ids, K = 2 positions per row,
/// T = 16 index pairs, R = 4 rows to overwrite): `y = Relu(Gather(table, ids))`,
/// `z = GatherElements(table, pos, axis = 1)`, `w = GatherND(table, tuples)`,
/// `s = ScatterND(table, rows, row_updates)`,
/// `t = ScatterElements(table, pos, pos_updates, axis = 1, reduction = add)`.
fn checked_model() -> Vec<u8> {
    let attr = |name: &str, i: Option<i64>, s: Option<&str>| AttributeProto {
        name: Some(name.into()),
        r#type: Some(if i.is_some() { AttributeType::Int } else { AttributeType::String } as i32),
        i,
        s: s.map(|s| s.as_bytes().to_vec()),
        ..Default::default()
    };
    let mut pick = node("pick0", "GatherElements", &["table", "pos"], &["z"]);
    pick.attribute.push(attr("axis", Some(1), None));
    let mut add = node("scatter1", "ScatterElements", &["table", "pos", "pos_updates"], &["t"]);
    add.attribute.extend([attr("axis", Some(1), None), attr("reduction", None, Some("add"))]);
    model(
        vec![
            node("embed0", "Gather", &["table", "ids"], &["e"]),
            node("relu0", "Relu", &["e"], &["y"]),
            pick,
            node("tuples0", "GatherND", &["table", "tuples"], &["w"]),
            node("scatter0", "ScatterND", &["table", "rows", "row_updates"], &["s"]),
            add,
        ],
        vec![
            value("table", FLOAT, &[64, 512]),
            value("ids", INT64, &[64]),
            value("pos", INT64, &[64, 2]),
            value("tuples", INT64, &[16, 2]),
            value("rows", INT64, &[4, 1]),
            value("row_updates", FLOAT, &[4, 512]),
            value("pos_updates", FLOAT, &[64, 2]),
        ],
        vec![
            value("y", FLOAT, &[64, 512]),
            value("z", FLOAT, &[64, 2]),
            value("w", FLOAT, &[16]),
            value("s", FLOAT, &[64, 512]),
            value("t", FLOAT, &[64, 512]),
        ],
        vec![],
    )
}

/// A command that must succeed (compiles, links and runs here take seconds; the compile
/// timeout bounds them all).
fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    run_ok(cmd, what, compile_timeout())
}

/// Whether `cc` builds and runs a program with `flags` (AddressSanitizer needs its runtime).
fn cc_supports(dir: &Path, flags: &[&str]) -> bool {
    let src = dir.join("probe.c");
    std::fs::write(&src, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("probe");
    Command::new("cc").args(flags).arg(&src).arg("-o").arg(&exe).status().is_ok_and(|s| s.success())
        && Command::new(&exe).status().is_ok_and(|s| s.success())
}

/// The builds of a driver: plain, and with AddressSanitizer where `cc` has it (else skipped, and
/// said so).
fn builds(dir: &Path) -> Vec<(&'static str, Vec<&'static str>)> {
    let asan = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"];
    let mut builds: Vec<(&str, Vec<&str>)> = vec![("plain", vec![])];
    if cc_supports(dir, &asan) {
        builds.push(("asan", asan.to_vec()));
    } else {
        println!("AddressSanitizer build skipped: cc cannot build and run -fsanitize=address programs here");
    }
    builds
}

fn checked_runs() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks");
    std::fs::create_dir_all(&dir).unwrap();
    let onnx = dir.join("rc.onnx");
    std::fs::write(&onnx, checked_model()).unwrap();
    let lib = dir.join("librc.a");
    run(Command::new(xcc_binary()).arg(&onnx).args(["-O2", "--name", "rc", "-o"]).arg(&lib), "xcc")?;
    for (kind, flags) in builds(&dir) {
        let exe = dir.join(format!("checks_{kind}"));
        run(
            Command::new("cc")
                .args(["-O1", "-g", "-std=c11", "-D_DEFAULT_SOURCE", "-I"])
                .arg(&dir)
                .args(&flags)
                .arg(suite_dir().join("run-checks/checks.c"))
                .arg(&lib)
                .args(["-Wl,--wrap=xcc_alloc", "-lm", "-lpthread", "-o"])
                .arg(&exe),
            "cc",
        )?;
        for threads in ["1", "2"] {
            let out = run(Command::new(&exe).env("XCC_NUM_THREADS", threads), &format!("{kind}, {threads} thread(s)"))?;
            if !out.starts_with("ok") {
                return Err(format!("{kind}, {threads} thread(s):\n{out}"));
            }
            println!("{kind}, {threads} thread(s): {}", out.trim());
        }
    }
    Ok(())
}

/// A model that needs no workspace (`y = Relu(x)` writes its output directly) runs through
/// `NAME_run_alloc` even when every allocation fails: a workspace of 0 bytes that comes back NULL
/// is no failure (glibc's malloc(0) may return NULL).
fn run_alloc_without_a_workspace() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-no-workspace");
    std::fs::create_dir_all(&dir).unwrap();
    let onnx = dir.join("relu.onnx");
    std::fs::write(&onnx, relu_model(4)).unwrap();
    let lib = dir.join("librelu.a");
    run(Command::new(xcc_binary()).arg(&onnx).args(["--name", "relu", "-o"]).arg(&lib), "xcc")?;
    let source = dir.join("main.c");
    std::fs::write(
        &source,
        r#"#include "relu.h"
#include <stdio.h>
void *__wrap_xcc_alloc(int64_t bytes, int64_t alignment) { (void)bytes; (void)alignment; return NULL; }
int main(void) {
  float x[4] = {-1.5f, 0.0f, 2.0f, -3.0f}, y[4] = {9, 9, 9, 9};
  int32_t rc = relu_run_alloc(x, y);
  printf("workspace %zu rc %d y %g %g %g %g\n", relu_workspace_size(), rc, y[0], y[1], y[2], y[3]);
  return 0;
}
"#,
    )
    .unwrap();
    let exe = dir.join("main");
    run(
        Command::new("cc")
            .arg("-I")
            .arg(&dir)
            .arg(&source)
            .arg(&lib)
            .args(["-Wl,--wrap=xcc_alloc", "-lm", "-lpthread", "-o"])
            .arg(&exe),
        "linking",
    )?;
    let out = run(&mut Command::new(&exe), "the program")?;
    let want = "workspace 0 rc 0 y 0 0 2 0";
    if !out.contains(want) {
        return Err(format!("expected '{want}', got: {out}"));
    }
    Ok(())
}

/// Inputs that decide shapes, read at run time: `r = Reshape(x, shape)` and
/// `s = ReduceSum(x, axes, keepdims = 0)` over `x` of dims [2, 3, 4] (model `shape`); Expand,
/// integer Range, Squeeze, Unsqueeze and ConstantOfShape (model `more`); and an Expand whose
/// output dims are all fixed, so its shape input is only checked (model `fixed`).
/// `shape_inputs.c` checks the dims `NAME_output_dims` reports and the values against results
/// worked out in C, and that bad shapes and axes return `XCC_ERROR_BAD_SHAPE_INPUT` with a zero
/// workspace and the outputs untouched; plain and under AddressSanitizer.
fn shape_inputs_are_checked() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-shape-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let keepdims_0 = AttributeProto {
        name: Some("keepdims".into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(0),
        ..Default::default()
    };
    let mut sum = node("sum0", "ReduceSum", &["x", "axes"], &["s"]);
    sum.attribute.push(keepdims_0);
    let shape = model(
        vec![node("reshape0", "Reshape", &["x", "shape"], &["r"]), sum],
        vec![value("x", FLOAT, &[2, 3, 4]), value("shape", INT64, &[3]), value("axes", INT64, &[1])],
        vec![value("r", FLOAT, &[-1, -1, -1]), value("s", FLOAT, &[-1, -1])],
        vec![],
    );
    let more = model(
        vec![
            node("expand0", "Expand", &["col", "eshape"], &["e"]),
            node("range0", "Range", &["start", "limit", "delta"], &["q"]),
            node("squeeze0", "Squeeze", &["col", "saxes"], &["z"]),
            node("unsqueeze0", "Unsqueeze", &["col", "uaxes"], &["u"]),
            node("fill0", "ConstantOfShape", &["cshape"], &["c"]),
        ],
        vec![
            value("col", FLOAT, &[3, 1]),
            value("eshape", INT64, &[2]),
            value("start", INT64, &[]),
            value("limit", INT64, &[]),
            value("delta", INT64, &[]),
            value("saxes", INT64, &[1]),
            value("uaxes", INT64, &[1]),
            value("cshape", INT64, &[2]),
        ],
        vec![
            value("e", FLOAT, &[]),
            value("q", INT64, &[]),
            value("z", FLOAT, &[]),
            value("u", FLOAT, &[]),
            value("c", FLOAT, &[]),
        ],
        vec![],
    );
    // Every output dim is fixed; the shape input is only checked.
    let fixed = model(
        vec![node("expand1", "Expand", &["mat", "fshape"], &["f"])],
        vec![value("mat", FLOAT, &[3, 4]), value("fshape", INT64, &[2])],
        vec![value("f", FLOAT, &[3, 4])],
        vec![],
    );
    drive(&dir, vec![("shape", shape), ("more", more), ("fixed", fixed)], "shape_inputs")
}

/// Compiles each model into `dir` as `lib{name}.a` with `{name}.h`, then builds
/// `run-checks/{driver}.c` against them plain and under AddressSanitizer; each build must print
/// "ok".
fn drive(dir: &Path, models: Vec<(&str, Vec<u8>)>, driver: &str) -> Result<(), String> {
    let mut libs = Vec::new();
    for (name, bytes) in models {
        let onnx = dir.join(format!("{name}.onnx"));
        std::fs::write(&onnx, bytes).unwrap();
        let lib = dir.join(format!("lib{name}.a"));
        run(Command::new(xcc_binary()).arg(&onnx).args(["--name", name, "-o"]).arg(&lib), "xcc")?;
        libs.push(lib);
    }
    for (kind, flags) in builds(dir) {
        let exe = dir.join(format!("{driver}_{kind}"));
        run(
            Command::new("cc")
                .args(["-O1", "-g", "-std=c11", "-I"])
                .arg(dir)
                .args(&flags)
                .arg(suite_dir().join(format!("run-checks/{driver}.c")))
                .args(&libs)
                .args(["-lm", "-lpthread", "-o"])
                .arg(&exe),
            "cc",
        )?;
        let out = run(&mut Command::new(&exe), kind)?;
        if !out.starts_with("ok") {
            return Err(format!("{kind}:\n{out}"));
        }
        println!("{kind}: {}", out.trim());
    }
    Ok(())
}

/// Slice, Split, Pad, Tile, TopK, Resize, a float Range and Dropout with every parameter a graph
/// input (model `window`);
/// `window_inputs.c` checks the dims and values against the ONNX semantics worked out in C, and
/// that bad parameters are refused with the outputs untouched; plain and under AddressSanitizer.
fn window_inputs_are_checked() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-window-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let mut split = node("split0", "Split", &["x", "split"], &["sa", "sb"]);
    split.attribute.push(AttributeProto {
        name: Some("axis".into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(1),
        ..Default::default()
    });
    let text = |name: &str, v: &str| AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    };
    let mut resize = node("resize0", "Resize", &["x", "", "rscales"], &["rz"]);
    resize.attribute.extend([text("coordinate_transformation_mode", "asymmetric"), text("nearest_mode", "floor")]);
    let ints = |name: &str, n: i64| value(name, INT64, &[n]);
    let any2 = |name: &str, elem: i32| value(name, elem, &[-1, -1]);
    let window = model(
        vec![
            node("slice0", "Slice", &["x", "starts", "ends", "axes", "steps"], &["sl"]),
            split,
            node("pad0", "Pad", &["x", "pads"], &["p"]),
            node("tile0", "Tile", &["x", "reps"], &["t"]),
            node("topk0", "TopK", &["x", "k"], &["tv", "ti"]),
            resize,
            node("range0", "Range", &["rstart", "rlimit", "rdelta"], &["fr"]),
            node("dropout0", "Dropout", &["x", "dratio", "dtrain"], &["dy"]),
        ],
        vec![
            value("x", FLOAT, &[4, 5]),
            ints("starts", 2),
            ints("ends", 2),
            ints("axes", 2),
            ints("steps", 2),
            ints("split", 2),
            ints("pads", 4),
            ints("reps", 2),
            ints("k", 1),
            value("rscales", FLOAT, &[2]),
            value("rstart", FLOAT, &[]),
            value("rlimit", FLOAT, &[]),
            value("rdelta", FLOAT, &[]),
            value("dratio", FLOAT, &[]),
            value("dtrain", BOOL, &[]),
        ],
        vec![
            any2("sl", FLOAT),
            any2("sa", FLOAT),
            any2("sb", FLOAT),
            any2("p", FLOAT),
            any2("t", FLOAT),
            any2("tv", FLOAT),
            any2("ti", INT64),
            any2("rz", FLOAT),
            value("fr", FLOAT, &[-1]),
            value("dy", FLOAT, &[4, 5]),
        ],
        vec![],
    );
    drive(&dir, vec![("window", window)], "window_inputs")
}

/// A shape input computed by another node from inputs: `Pad(x, Div(p, d))` (model `computed`);
/// `computed_inputs.c` checks the dims and values against the ONNX semantics worked out in C
/// (integer Div rounds toward zero), and that a divisor of 0 or a crop below zero is refused
/// with the output untouched; plain and under AddressSanitizer.
fn computed_inputs_are_checked() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-computed-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let computed = model(
        vec![node("div0", "Div", &["p", "d"], &["pads"]), node("pad0", "Pad", &["x", "pads"], &["y"])],
        vec![value("x", FLOAT, &[2, 3]), value("p", INT64, &[4]), value("d", INT64, &[1])],
        vec![value("y", FLOAT, &[-1, -1])],
        vec![],
    );
    drive(&dir, vec![("computed", computed)], "computed_inputs")
}

/// Dims the run computes from the dims alone: `Slice(x, 0:3)` over `x[seq]` is `min(3, seq)`
/// long, and `TopK(x, K = 2)` needs `seq >= 2` (model `dims`); `computed_dims.c` checks that the
/// size functions take the dims only, the dims and values against the ONNX semantics for seq 2
/// to 8, and that seq 1 is refused with `XCC_ERROR_BAD_DIM` and the outputs untouched; plain and
/// under AddressSanitizer.
fn dims_computed_from_dims() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-computed-dims");
    std::fs::create_dir_all(&dir).unwrap();
    let dims = model(
        vec![
            node("slice0", "Slice", &["x", "zero", "three", "zero"], &["first"]),
            node("topk0", "TopK", &["x", "two"], &["best", "where"]),
        ],
        vec![symbolic("x", FLOAT, &["seq"])],
        vec![value("first", FLOAT, &[-1]), value("best", FLOAT, &[-1]), value("where", INT64, &[-1])],
        vec![int64s("zero", &[1], &[0]), int64s("three", &[1], &[3]), int64s("two", &[1], &[2])],
    );
    drive(&dir, vec![("dims", dims)], "computed_dims")
}

/// Dims whose `dim_param`s map to one C name (`a-b` and `a_b`) are two dims, as ONNX Runtime has
/// them: `Concat(p[a-b], q[a_b])` (model `names`) runs with p and q of different lengths, and
/// `dim_names.c` checks every element and that nothing is written past y (one dim for both let
/// a caller's longer q be read past p); plain and under AddressSanitizer.
fn distinct_dim_names() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-dim-names");
    std::fs::create_dir_all(&dir).unwrap();
    let names = model(
        vec![with_int(node("cat0", "Concat", &["p", "q"], &["y"]), "axis", 0)],
        vec![symbolic("p", FLOAT, &["a-b"]), symbolic("q", FLOAT, &["a_b"])],
        vec![value("y", FLOAT, &[-1])],
        vec![],
    );
    drive(&dir, vec![("names", names)], "dim_names")
}

/// Dims the run checks for windows and scatters: `MaxPool(x, 3x3, stride 2)` over
/// `x[1, 1, height, width]` needs 3 rows and columns at least (model `pools`), and
/// `ScatterElements(data[rows, 4], indices[n, cols], axis 0)` needs `cols <= 4` (model
/// `scatter`); `image_windows.c` checks the dims and values against max pooling and the scatter
/// worked out in C, and that a height of 2 or 5 columns are refused with `XCC_ERROR_BAD_DIM` and
/// the outputs untouched; plain and under AddressSanitizer.
fn windows_and_scatters_check_their_dims() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-image-windows");
    std::fs::create_dir_all(&dir).unwrap();
    let pool =
        with_ints(with_ints(node("pool0", "MaxPool", &["x"], &["y"]), "kernel_shape", &[3, 3]), "strides", &[2, 2]);
    let pools = model(
        vec![pool],
        vec![symbolic("x", FLOAT, &["1", "1", "height", "width"])],
        vec![value("y", FLOAT, &[1, 1, -1, -1])],
        vec![],
    );
    let scatter = model(
        vec![node("scatter0", "ScatterElements", &["data", "indices", "updates"], &["y"])],
        vec![
            symbolic("data", FLOAT, &["rows", "4"]),
            symbolic("indices", INT64, &["n", "cols"]),
            symbolic("updates", FLOAT, &["n", "cols"]),
        ],
        vec![value("y", FLOAT, &[-1, 4])],
        vec![],
    );
    drive(&dir, vec![("pools", pools), ("scatter", scatter)], "image_windows")
}

/// A Reshape whose `-1` does not divide as an expression: `Reshape(x[seq, 3], [2, -1])` is
/// `[2, seq * 3 / 2]` (model `halves`); `divided.c` checks the dims and values for even seq, and
/// that odd seq is refused with `XCC_ERROR_BAD_DIM` and the output untouched; plain and under
/// AddressSanitizer.
fn reshapes_divide_at_run_time() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-divided");
    std::fs::create_dir_all(&dir).unwrap();
    let halves = model(
        vec![node("reshape0", "Reshape", &["x", "shape"], &["y"])],
        vec![symbolic("x", FLOAT, &["seq", "3"])],
        vec![value("y", FLOAT, &[2, -1])],
        vec![int64s("shape", &[2], &[2, -1])],
    );
    drive(&dir, vec![("halves", halves)], "divided")
}

/// Integer Div and Mod over divisors read at run time (model `division`: int32 `Div`, `Mod`,
/// `Mod` with fmod=1, a Div by a broadcast scalar, a uint8 Div); `integer_division.c` checks the
/// results against C's arithmetic with ONNX's rounding (the minimum divided by -1 wraps), and
/// that a divisor of 0 anywhere returns `XCC_ERROR_DIVISION_BY_ZERO` instead of trapping; plain
/// and under AddressSanitizer.
fn integer_division_is_checked() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-integer-division");
    std::fs::create_dir_all(&dir).unwrap();
    let mut fmod = node("fmod0", "Mod", &["a", "b"], &["f"]);
    fmod.attribute.push(AttributeProto {
        name: Some("fmod".into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(1),
        ..Default::default()
    });
    let division = model(
        vec![
            node("div0", "Div", &["a", "b"], &["q"]),
            node("mod0", "Mod", &["a", "b"], &["r"]),
            fmod,
            node("div1", "Div", &["a", "k"], &["s"]),
            node("div2", "Div", &["c", "d"], &["u"]),
        ],
        vec![
            value("a", INT32, &[8]),
            value("b", INT32, &[8]),
            value("k", INT32, &[]),
            value("c", UINT8, &[4]),
            value("d", UINT8, &[4]),
        ],
        vec![
            value("q", INT32, &[8]),
            value("r", INT32, &[8]),
            value("f", INT32, &[8]),
            value("s", INT32, &[8]),
            value("u", UINT8, &[4]),
        ],
        vec![],
    );
    drive(&dir, vec![("division", division)], "integer_division")
}

/// `xcc --sanitize=address` instruments the model's own code: a program that hands `y = Relu(x)`
/// an input one float short gets AddressSanitizer's report of the read past it, from inside the
/// model's run function, while the plain build of the same program exits normally (the
/// overflow goes unseen there).
/// (Ignored, with the reason, where `cc` cannot build sanitized programs.)
fn sanitize_address_checks_the_models_code() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-sanitize");
    std::fs::create_dir_all(&dir).unwrap();
    let onnx = dir.join("relu.onnx");
    std::fs::write(&onnx, relu_model(64)).unwrap();
    let source = dir.join("main.c");
    std::fs::write(
        &source,
        r#"#include "relu.h"
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  float *x = malloc(63 * sizeof(float)), *y = malloc(64 * sizeof(float));
  for (int i = 0; i < 63; i++) x[i] = (float)i - 30.0f;
  int32_t rc = relu_run_alloc(x, y);
  printf("rc %d\n", rc);
  free(x);
  free(y);
  return 0;
}
"#,
    )
    .unwrap();
    let mut stderr = String::new();
    for sanitized in [false, true] {
        let lib = dir.join(if sanitized { "sanitized/librelu.a" } else { "librelu.a" });
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        let mut xcc = Command::new(xcc_binary());
        xcc.arg(&onnx).args(["--name", "relu", "-o"]).arg(&lib);
        if sanitized {
            xcc.arg("--sanitize=address");
        }
        run(&mut xcc, "xcc")?;
        let exe = dir.join(if sanitized { "main_sanitized" } else { "main" });
        let mut cc = if sanitized { xcc_test_suite::sanitized_cc()? } else { Command::new("cc") };
        run(
            cc.arg("-I").arg(lib.parent().unwrap()).arg(&source).arg(&lib).args(["-lm", "-lpthread", "-o"]).arg(&exe),
            "cc",
        )?;
        let o = xcc_test_suite::run_command(&mut Command::new(&exe), compile_timeout());
        match (sanitized, o.success()) {
            (false, true) => {}
            (false, false) => return Err(format!("the plain build failed: {}", o.summary())),
            (true, true) => return Err("the sanitized build ran the short input without a report".into()),
            (true, false) => stderr = o.stderr,
        }
    }
    for want in ["AddressSanitizer: heap-buffer-overflow", "READ of size", "relu_run"] {
        if !stderr.contains(want) {
            return Err(format!("the sanitized run's report lacks '{want}':\n{stderr}"));
        }
    }
    Ok(())
}

/// Regions of interest read at run time (models `align`: `RoiAlign(x[n, 2, height, width],
/// rois[r, 4], batch_indices[r])`, 2x2 bins of 2x2 samples; `pool`: `MaxRoiPool(x, rois[r, 5])`,
/// 2x2 bins); `regions.c` checks the values on images whose samples it works out by hand
/// (a constant per channel, a ramp), and that a batch outside `[0, n)` returns
/// `XCC_ERROR_INDEX_OUT_OF_RANGE`; plain and under AddressSanitizer.
fn regions_check_their_batches() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-regions");
    std::fs::create_dir_all(&dir).unwrap();
    let mut roi_align = node("align0", "RoiAlign", &["x", "rois", "batch_indices"], &["y"]);
    roi_align = with_int(with_int(with_int(roi_align, "output_height", 2), "output_width", 2), "sampling_ratio", 2);
    let align = model(
        vec![roi_align],
        vec![
            symbolic("x", FLOAT, &["n", "2", "height", "width"]),
            symbolic("rois", FLOAT, &["r", "4"]),
            symbolic("batch_indices", INT64, &["r"]),
        ],
        vec![value("y", FLOAT, &[-1, 2, 2, 2])],
        vec![],
    );
    let pool = model(
        vec![with_ints(node("pool0", "MaxRoiPool", &["x", "rois"], &["y"]), "pooled_shape", &[2, 2])],
        vec![symbolic("x", FLOAT, &["n", "2", "height", "width"]), symbolic("rois", FLOAT, &["r", "5"])],
        vec![value("y", FLOAT, &[-1, 2, 2, 2])],
        vec![],
    );
    drive(&dir, vec![("align", align), ("pool", pool)], "regions")
}

/// Dims the run computes meeting dims it does not (model `meet`: `r = Reshape(x[6], shape)`,
/// `y = Add(r, b[2, 3])`, `c = Concat(r, b, axis 0)`): equal only when the run reads `shape`,
/// so each run checks them; `meeting_dims.c` checks the results for shape [2, 3] and that
/// [3, 2] is refused with `XCC_ERROR_BAD_DIM` and the outputs untouched; plain and under
/// AddressSanitizer.
fn computed_dims_are_checked_where_they_meet() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-meeting-dims");
    std::fs::create_dir_all(&dir).unwrap();
    let mut concat = node("concat0", "Concat", &["r", "b"], &["c"]);
    concat = with_int(concat, "axis", 0);
    let meet = model(
        vec![node("reshape0", "Reshape", &["x", "shape"], &["r"]), node("add0", "Add", &["r", "b"], &["y"]), concat],
        vec![value("x", FLOAT, &[6]), value("shape", INT64, &[2]), value("b", FLOAT, &[2, 3])],
        vec![value("y", FLOAT, &[-1, -1]), value("c", FLOAT, &[-1, -1])],
        vec![],
    );
    drive(&dir, vec![("meet", meet)], "meeting_dims")
}

/// Outputs whose dims the run finds (model `kept`: `m = Greater(x[n], t)`, `y = Compress(x, m)`,
/// `z = y * y`, `i = NonZero(m)`, `s = ReduceSum(z)`): `found_dims.c` checks the capacities,
/// the dims each run writes, the kept values in order, nothing written past them, an empty
/// result, and a NULL dims array; plain and under AddressSanitizer.
fn found_dims_are_written_by_the_run() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-found-dims");
    std::fs::create_dir_all(&dir).unwrap();
    let compress = with_int(node("compress0", "Compress", &["x", "m"], &["y"]), "axis", 0);
    let kept = model(
        vec![
            node("greater0", "Greater", &["x", "t"], &["m"]),
            compress,
            node("mul0", "Mul", &["y", "y"], &["z"]),
            node("nonzero0", "NonZero", &["m"], &["i"]),
            with_int(node("sum0", "ReduceSum", &["z"], &["s"]), "keepdims", 0),
        ],
        vec![symbolic("x", FLOAT, &["n"]), value("t", FLOAT, &[])],
        vec![value("z", FLOAT, &[-1]), value("i", INT64, &[1, -1]), value("s", FLOAT, &[])],
        vec![],
    );
    drive(&dir, vec![("kept", kept)], "found_dims")
}

/// The random operators (model `draws`: RandomUniform, RandomNormal, RandomUniformLike in
/// double, Bernoulli, Multinomial, and an unseeded RandomUniform): `random.c` checks the
/// uniforms against its own Philox4x32-10 (itself checked on the known answers), the moments
/// and frequencies of the rest, that a second run draws the same values, and that the
/// unseeded node draws another stream; plain and under AddressSanitizer.
fn random_draws_are_philox() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-random");
    std::fs::create_dir_all(&dir).unwrap();
    let seeded = |n: xcc_frontend_onnx::proto::NodeProto, seed: f32| with_float(n, "seed", seed);
    let fill = |name: &str, op: &str, out: &str, n: i64| with_ints(node(name, op, &[], &[out]), "shape", &[n]);
    let uniform =
        with_float(with_float(seeded(fill("u0", "RandomUniform", "u", 100_000), 7.0), "low", -2.0), "high", 3.0);
    let normal =
        with_float(with_float(seeded(fill("n0", "RandomNormal", "n", 100_000), 7.0), "mean", 1.0), "scale", 2.0);
    let like = seeded(with_int(node("d0", "RandomUniformLike", &["x"], &["d"]), "dtype", 11), 3.0);
    let bernoulli = seeded(node("b0", "Bernoulli", &["p"], &["b"]), 11.0);
    let multinomial = with_int(
        with_int(seeded(node("m0", "Multinomial", &["logits"], &["m"]), 5.0), "sample_size", 30_000),
        "dtype",
        7,
    );
    let unseeded = with_float(with_float(fill("v0", "RandomUniform", "v", 100_000), "low", -2.0), "high", 3.0);
    let logits: Vec<f32> = [0.2f32, 0.5, 0.3].iter().map(|p| p.ln()).collect();
    let draws = model(
        vec![uniform, normal, like, bernoulli, multinomial, unseeded],
        vec![value("p", FLOAT, &[3, 20_000]), value("x", FLOAT, &[4, 5])],
        vec![
            value("u", FLOAT, &[100_000]),
            value("n", FLOAT, &[100_000]),
            value("d", DOUBLE, &[4, 5]),
            value("b", FLOAT, &[3, 20_000]),
            value("m", INT64, &[1, 30_000]),
            value("v", FLOAT, &[100_000]),
        ],
        vec![floats("logits", &[1, 3], &logits)],
    );
    drive(&dir, vec![("draws", draws)], "random")
}

/// STRING tensors (model `words`: StringConcat with a constant, Equal to constants,
/// StringSplit at spaces, RegexFullMatch, LabelEncoder to strings and to int64s, Identity, over
/// `x: string[4]`; model `joined`: StringConcat and RegexFullMatch over `x: string[n]`; model
/// `spaces`: StringSplit at whitespace, once; model `numbers`: Cast of `x: string[3]` to float and
/// int64, and the floats back to strings; model `counted`: StringSplit and StringNormalizer over
/// `x: string[n]`, sized by the run):
/// `strings.c` checks every output against
/// the values worked out by hand, that each output string is the caller's to free (no leak, no
/// double free under AddressSanitizer, repeated runs), that a NULL string is refused with
/// the string outputs set to NULL, and that a string with no number fails the casts' run with
/// `XCC_ERROR_NOT_A_NUMBER`.
fn strings_cross_the_interface() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-strings");
    std::fs::create_dir_all(&dir).unwrap();
    let mut labels = with_strings(node("label0", "LabelEncoder", &["x"], &["l"]), "keys_strings", &["a b", "ab"]);
    labels = with_string(with_strings(labels, "values_strings", &["two words", "one word"]), "default_string", "?");
    labels.domain = Some("ai.onnx.ml".into());
    let mut ids = with_strings(node("label1", "LabelEncoder", &["x"], &["k"]), "keys_strings", &["ab", "", "a b"]);
    ids = with_ints(ids, "values_int64s", &[1, 2, 3]);
    ids.domain = Some("ai.onnx.ml".into());
    let words = model(
        vec![
            node("concat0", "StringConcat", &["x", "bang"], &["c"]),
            node("equal0", "Equal", &["x", "known"], &["e"]),
            with_string(node("split0", "StringSplit", &["x"], &["p", "n"]), "delimiter", " "),
            with_string(node("regex0", "RegexFullMatch", &["x"], &["m"]), "pattern", "[a-z]+( [a-z]+)*"),
            labels,
            ids,
            node("id0", "Identity", &["x"], &["i"]),
        ],
        vec![value("x", STRING, &[4])],
        vec![
            value("c", STRING, &[4]),
            value("e", BOOL, &[4]),
            value("p", STRING, &[4, -1]),
            value("n", INT64, &[4]),
            value("m", BOOL, &[4]),
            value("l", STRING, &[4]),
            value("k", INT64, &[4]),
            value("i", STRING, &[4]),
        ],
        vec![strings("bang", &[1], &["!"]), strings("known", &[4], &["ab", "x", "", "q"])],
    );
    let words = with_opset(&with_opset(&words, "", 20), "ai.onnx.ml", 3);
    let joined = model(
        vec![
            node("concat0", "StringConcat", &["x", "y"], &["c"]),
            with_string(node("regex0", "RegexFullMatch", &["c"], &["m"]), "pattern", r"\w+\.\w+"),
        ],
        vec![symbolic("x", STRING, &["n"]), value("y", STRING, &[1])],
        vec![symbolic("c", STRING, &["n"]), symbolic("m", BOOL, &["n"])],
        vec![],
    );
    let joined = with_opset(&joined, "", 20);
    let spaces = model(
        vec![with_int(node("split0", "StringSplit", &["x"], &["p", "n"]), "maxsplit", 1)],
        vec![value("x", STRING, &[3])],
        vec![value("p", STRING, &[3, -1]), value("n", INT64, &[3])],
        vec![],
    );
    let spaces = with_opset(&spaces, "", 20);
    let numbers = model(
        vec![
            with_int(node("cast0", "Cast", &["x"], &["v"]), "to", FLOAT as i64),
            with_int(node("cast1", "Cast", &["x"], &["k"]), "to", INT64 as i64),
            with_int(node("cast2", "Cast", &["v"], &["t"]), "to", STRING as i64),
        ],
        vec![value("x", STRING, &[3])],
        vec![value("v", FLOAT, &[3]), value("k", INT64, &[3]), value("t", STRING, &[3])],
        vec![],
    );
    let numbers = with_opset(&numbers, "", 21);
    let mut normalize = node("norm0", "StringNormalizer", &["x"], &["k"]);
    normalize = with_string(with_strings(normalize, "stopwords", &["the"]), "case_change_action", "UPPER");
    let counted = model(
        vec![with_string(node("split0", "StringSplit", &["x"], &["p", "c"]), "delimiter", " "), normalize],
        vec![symbolic("x", STRING, &["n"])],
        vec![value("p", STRING, &[-1, -1]), value("c", INT64, &[-1]), value("k", STRING, &[-1])],
        vec![],
    );
    let counted = with_opset(&counted, "", 20);
    let models =
        vec![("words", words), ("joined", joined), ("spaces", spaces), ("numbers", numbers), ("counted", counted)];
    drive(&dir, models, "strings")
}

/// ImageDecoder (model `images`: `y = ImageDecoder(x, RGB)`, `g = ImageDecoder(x, Grayscale)` over
/// `x: uint8[17]`; model `sized`: `y = ImageDecoder(x, BGR)` over `x: uint8[n]`): `images.c`
/// checks the dims read from PPM headers, the pixels, the gray values worked out by hand, images
/// of two byte counts through one library, and that bytes holding no image return
/// `XCC_ERROR_BAD_IMAGE`.
fn images_are_decoded() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-images");
    std::fs::create_dir_all(&dir).unwrap();
    let mut gray = node("decode1", "ImageDecoder", &["x"], &["g"]);
    gray = with_string(gray, "pixel_format", "Grayscale");
    let images = model(
        vec![with_string(node("decode0", "ImageDecoder", &["x"], &["y"]), "pixel_format", "RGB"), gray],
        vec![value("x", UINT8, &[17])],
        vec![value("y", UINT8, &[-1, -1, 3]), value("g", UINT8, &[-1, -1, 1])],
        vec![],
    );
    let sized = model(
        vec![with_string(node("decode0", "ImageDecoder", &["x"], &["y"]), "pixel_format", "BGR")],
        vec![symbolic("x", UINT8, &["n"])],
        vec![value("y", UINT8, &[-1, -1, 3])],
        vec![],
    );
    drive(&dir, vec![("images", with_opset(&images, "", 20)), ("sized", with_opset(&sized, "", 20))], "images")
}

/// An optional input (model `maybe`: `h = OptionalHasElement(x)`, `y = OptionalGetElement(x) *
/// 2` over `x: optional float[3]`): `optional.c` passes a tensor (h true, y doubled) and NULL
/// (h false in a run of HasElement alone; `XCC_ERROR_NULL_TENSOR` from GetElement).
fn optional_inputs_may_be_null() -> Result<(), String> {
    let dir = repo().join("target/xcc-tests/run-checks-optional");
    std::fs::create_dir_all(&dir).unwrap();
    let maybe = model(
        vec![
            node("has0", "OptionalHasElement", &["x"], &["h"]),
            node("get0", "OptionalGetElement", &["x"], &["v"]),
            node("mul0", "Mul", &["v", "two"], &["y"]),
        ],
        vec![optional("x", FLOAT, &[3])],
        vec![value("h", BOOL, &[]), value("y", FLOAT, &[3])],
        vec![floats("two", &[], &[2.0])],
    );
    let has = model(
        vec![node("has0", "OptionalHasElement", &["x"], &["h"])],
        vec![optional("x", FLOAT, &[3])],
        vec![value("h", BOOL, &[])],
        vec![],
    );
    drive(&dir, vec![("maybe", with_opset(&maybe, "", 18)), ("has", with_opset(&has, "", 18))], "optional")
}

fn main() -> std::process::ExitCode {
    let sanitizers =
        xcc_test_suite::sanitized_runtime().map_err(|why| println!("skipped: the sanitized check ({why})"));
    run_trials(vec![
        Trial::test("run-checks/sanitize-address-checks-the-models-code", || {
            Ok(sanitize_address_checks_the_models_code()?)
        })
        .with_ignored_flag(sanitizers.is_err()),
        Trial::test("run-checks/every-check-returns-its-status", || Ok(checked_runs()?)),
        Trial::test("run-checks/run-alloc-without-a-workspace", || Ok(run_alloc_without_a_workspace()?)),
        Trial::test("run-checks/shape-inputs-are-checked", || Ok(shape_inputs_are_checked()?)),
        Trial::test("run-checks/window-inputs-are-checked", || Ok(window_inputs_are_checked()?)),
        Trial::test("run-checks/computed-inputs-are-checked", || Ok(computed_inputs_are_checked()?)),
        Trial::test("run-checks/integer-division-is-checked", || Ok(integer_division_is_checked()?)),
        Trial::test("run-checks/distinct-dim-names", || Ok(distinct_dim_names()?)),
        Trial::test("run-checks/dims-computed-from-dims", || Ok(dims_computed_from_dims()?)),
        Trial::test("run-checks/reshapes-divide-at-run-time", || Ok(reshapes_divide_at_run_time()?)),
        Trial::test(
            "run-checks/windows-and-scatters-check-their-dims",
            || Ok(windows_and_scatters_check_their_dims()?),
        ),
        Trial::test("run-checks/regions-check-their-batches", || Ok(regions_check_their_batches()?)),
        Trial::test("run-checks/computed-dims-are-checked-where-they-meet", || {
            Ok(computed_dims_are_checked_where_they_meet()?)
        }),
        Trial::test("run-checks/found-dims-are-written-by-the-run", || Ok(found_dims_are_written_by_the_run()?)),
        Trial::test("run-checks/random-draws-are-philox", || Ok(random_draws_are_philox()?)),
        Trial::test("run-checks/strings-cross-the-interface", || Ok(strings_cross_the_interface()?)),
        Trial::test("run-checks/optional-inputs-may-be-null", || Ok(optional_inputs_may_be_null()?)),
        Trial::test("run-checks/images-are-decoded", || Ok(images_are_decoded()?)),
    ])
}
