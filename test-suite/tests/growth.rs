//! The compiler's cost grows about linearly with its input. Each case generates an input at a
//! trivial size and at sizes n and 4n, compiles each with xcc, and measures the compile's CPU
//! time (user + system, from `wait4`, so a busy machine's waiting is not counted) and peak
//! resident memory (`xcc -v` reports it). Above the trivial input's cost, 4n may cost at most [`LIMIT`] times what n
//! costs (4 is linear; a cost that grows with the square gives 16). Costs below a floor are
//! compared as the floor, so noise in tiny costs does not decide.
//!
//! The cases are the classes of issue 53: many graph inputs and outputs, a long chain of nodes,
//! a variadic node of many inputs, a tensor of high rank, large initializers, an MLIR function
//! of many operations, one of many memref arguments, and MLIR operations on vectors of many
//! lanes. The largest sizes also run: their libraries are
//! checked against values computed here, since the compiler splits what it grows (functions,
//! fused loops, variadic nodes) only past thresholds that the small sizes do not reach.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use xcc_frontend_onnx::proto::{attribute_proto, AttributeProto};
use xcc_test_suite::onnx_build::{floats, model, node, value, FLOAT};
use xcc_test_suite::{
    discard_when_passed, fresh_dir, keep_test_files, link_c, run_ok, run_timeout, work_root, xcc_binary,
};

/// How much more 4n may cost than n, above the trivial input's cost.
const LIMIT: f64 = 10.0;
/// Costs below these are compared as these.
const TIME_FLOOR_S: f64 = 0.2;
const MEMORY_FLOOR_MB: f64 = 24.0;

struct Cost {
    cpu_s: f64,
    peak_mb: f64,
}

/// Compiles `input` to `out` and measures the compiler's cost; fails if xcc does.
fn compile_cost(input: &Path, out: &Path) -> Result<Cost, String> {
    let log = out.with_extension("log");
    let stderr = std::fs::File::create(&log).map_err(|e| e.to_string())?;
    let child = Command::new(xcc_binary())
        .arg(input)
        .arg("-v")
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot run xcc: {e}"))?;
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: waits for our own child, whose pid we hold and nothing else waits for.
    if unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) } < 0 {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        return Err(format!("xcc {} failed (status {status}):\n{text}", input.display()));
    }
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    // `-v`'s report of xcc's own peak: wait4's maximum also counts this test's memory, the
    // child's before its exec.
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let peak = text.lines().find_map(|l| l.strip_prefix("xcc: peak memory: ")?.strip_suffix(" MB")?.parse().ok());
    let peak_mb = peak.ok_or_else(|| format!("xcc -v reported no peak memory:\n{text}"))?;
    Ok(Cost { cpu_s: seconds(usage.ru_utime) + seconds(usage.ru_stime), peak_mb })
}

/// Writes the case's input of size `n` into `dir`, returning its path.
type Make = fn(usize, &Path) -> Result<PathBuf, String>;
/// Checks the library or object compiled from the largest input.
type Check = fn(usize, &Path, &Path) -> Result<(), String>;

struct Case {
    name: &'static str,
    sizes: [usize; 3],
    make: Make,
    check: Option<Check>,
}

fn run_case(case: &Case) -> Result<(), String> {
    let dir = fresh_dir(&work_root("growth").join(case.name));
    let mut costs = Vec::new();
    let mut largest = None;
    for &n in &case.sizes {
        let input = (case.make)(n, &dir)?;
        let ext = if input.extension().is_some_and(|e| e == "mlir") { "o" } else { "a" };
        let stem = input.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let out = dir.join(format!("lib{stem}.{ext}"));
        costs.push(compile_cost(&input, &out)?);
        largest = Some(out);
    }
    let [base, one, four] = &costs[..] else { unreachable!("three sizes") };
    let [_, n, n4] = case.sizes;
    println!(
        "growth/{}: n = {n}: {:.2} s, {:.0} MB; 4n = {n4}: {:.2} s, {:.0} MB (trivial input {:.2} s, {:.0} MB)",
        case.name, one.cpu_s, one.peak_mb, four.cpu_s, four.peak_mb, base.cpu_s, base.peak_mb
    );
    let ratio = |a: f64, b: f64, c: f64, floor: f64| (c - a) / (b - a).max(floor);
    let time = ratio(base.cpu_s, one.cpu_s, four.cpu_s, TIME_FLOOR_S);
    let memory = ratio(base.peak_mb, one.peak_mb, four.peak_mb, MEMORY_FLOOR_MB);
    if time > LIMIT || memory > LIMIT {
        return Err(format!(
            "{}: from n = {n} to 4n = {n4} the compile's time grew {time:.1}x and its memory {memory:.1}x above the \
             trivial input's (at most {LIMIT}x: linear is 4x)",
            case.name
        ));
    }
    match (case.check, largest) {
        (Some(check), Some(out)) => discard_when_passed(&dir, check(n4, &out, &dir)),
        _ => discard_when_passed(&dir, Ok(())),
    }
}

// ---- ONNX inputs ----------------------------------------------------------------------------

fn write(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    let path = dir.join(name);
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    Ok(path)
}

/// `n` inputs `x_i`, each through a Relu to an output `y_i`, of 4 floats each.
fn relu_pairs(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let nodes = (0..n).map(|i| node(&format!("relu{i}"), "Relu", &[&format!("x{i}")], &[&format!("y{i}")])).collect();
    let inputs = (0..n).map(|i| value(&format!("x{i}"), FLOAT, &[4])).collect();
    let outputs = (0..n).map(|i| value(&format!("y{i}"), FLOAT, &[4])).collect();
    write(dir, &format!("pairs_{n}.onnx"), &model(nodes, inputs, outputs, vec![]))
}

/// One Sum of `n` inputs of 4 floats.
fn sum_of_inputs(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let inputs = names.iter().map(|x| value(x, FLOAT, &[4])).collect();
    let sum = model(vec![node("sum", "Sum", &refs, &["y"])], inputs, vec![value("y", FLOAT, &[4])], vec![]);
    write(dir, &format!("sum_{n}.onnx"), &sum)
}

/// A chain of `n` elementwise nodes (Neg, then Abs, alternating) over 1,024 floats.
fn chain(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let names: Vec<String> = (0..=n).map(|i| format!("t{i}")).collect();
    let nodes = (0..n)
        .map(|i| node(&format!("n{i}"), if i % 2 == 0 { "Neg" } else { "Abs" }, &[&names[i]], &[&names[i + 1]]))
        .collect();
    let chain = model(nodes, vec![value("t0", FLOAT, &[1024])], vec![value(&names[n], FLOAT, &[1024])], vec![]);
    write(dir, &format!("chain_{n}.onnx"), &chain)
}

/// A Relu over a tensor of rank `n` (every dim 1 but the last, 4).
fn rank(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let (dims, turned) = rank_shapes(n);
    let mut perm: Vec<i64> = (0..n as i64).collect();
    perm.swap(0, n - 1);
    let mut transpose = node("transpose", "Transpose", &["r"], &["y"]);
    transpose.attribute.push(AttributeProto {
        name: Some("perm".into()),
        r#type: Some(attribute_proto::AttributeType::Ints as i32),
        ints: perm,
        ..Default::default()
    });
    let relu = model(
        vec![node("relu", "Relu", &["x"], &["r"]), transpose],
        vec![value("x", FLOAT, &dims)],
        vec![value("y", FLOAT, &turned)],
        vec![],
    );
    write(dir, &format!("rank_{n}.onnx"), &relu)
}

/// A rank-`n` tensor of 3 x 1 x ... x 1 x 4 (one dim of 12 at rank 1), and the shape with its
/// first and last dims swapped.
fn rank_shapes(n: usize) -> (Vec<i64>, Vec<i64>) {
    let mut dims = vec![1i64; n];
    dims[0] = 3;
    dims[n - 1] *= 4;
    let mut turned = dims.clone();
    turned.swap(0, n - 1);
    (dims, turned)
}

/// An input plus an initializer of `n` thousand floats.
fn initializer(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let len = n as i64 * 1000;
    let w: Vec<f32> = (0..len).map(|i| (i % 251) as f32).collect();
    let add = model(
        vec![node("add", "Add", &["x", "w"], &["y"])],
        vec![value("x", FLOAT, &[len])],
        vec![value("y", FLOAT, &[len])],
        vec![floats("w", &[len], &w)],
    );
    write(dir, &format!("init_{n}.onnx"), &add)
}

// ---- MLIR inputs ----------------------------------------------------------------------------

/// `@f(%x)` computing `x + x + ... + x` (`n` additions in f32, one after the other, which LLVM
/// may not reassociate): `(n + 1) * x`, exact for small integers.
fn mlir_ops(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let mut text = String::from("func.func @f(%v0: f32) -> f32 {\n");
    for i in 0..n {
        text += &format!("  %v{} = arith.addf %v{i}, %v0 : f32\n", i + 1);
    }
    text += &format!("  return %v{n} : f32\n}}\n");
    write(dir, &format!("ops_{n}.mlir"), text.as_bytes())
}

/// `@f` over vectors of `n` lanes: a transfer read past a memref's end (masked), a division, a
/// store, an f64 `math.exp` read and written by transfers.
fn mlir_vector_lanes(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let text = format!(
        "func.func @f(%a: memref<?xi64>, %b: memref<?xi64>, %x: memref<?xf64>) {{\n  \
         %c0 = arith.constant 0 : index\n  %zero = arith.constant 0 : i64\n  %pad = arith.constant 0.0 : f64\n  \
         %v = vector.transfer_read %a[%c0], %zero : memref<?xi64>, vector<{n}xi64>\n  \
         %w = vector.load %b[%c0] : memref<?xi64>, vector<{n}xi64>\n  \
         %d = arith.divsi %v, %w : vector<{n}xi64>\n  \
         vector.store %d, %b[%c0] : memref<?xi64>, vector<{n}xi64>\n  \
         %e = vector.transfer_read %x[%c0], %pad : memref<?xf64>, vector<{n}xf64>\n  \
         %y = math.exp %e : vector<{n}xf64>\n  \
         vector.transfer_write %y, %x[%c0] : vector<{n}xf64>, memref<?xf64>\n  return\n}}\n"
    );
    write(dir, &format!("lanes_{n}.mlir"), text.as_bytes())
}

/// `@f` of `n` `memref<?xf32>` arguments, each read once and written once: `a[i+1][0] =
/// a[i][0] + 1` in order, the last writing `a[0]`.
fn mlir_memref_args(n: usize, dir: &Path) -> Result<PathBuf, String> {
    let args: Vec<String> = (0..n).map(|i| format!("%a{i}: memref<?xf32>")).collect();
    let mut text = format!(
        "func.func @f({}) {{\n  %c0 = arith.constant 0 : index\n  %one = arith.constant 1.0 : f32\n",
        args.join(", ")
    );
    for i in 0..n {
        text += &format!(
            "  %v{i} = memref.load %a{i}[%c0] : memref<?xf32>\n  %w{i} = arith.addf %v{i}, %one : f32\n  \
             memref.store %w{i}, %a{next}[%c0] : memref<?xf32>\n",
            next = (i + 1) % n
        );
    }
    text += "  return\n}\n";
    write(dir, &format!("memref_args_{n}.mlir"), text.as_bytes())
}

// ---- checks of the largest libraries --------------------------------------------------------

/// Links `program` (C) with `lib` and runs it; its output must be `ok`.
fn run_c(dir: &Path, program: &str, lib: &Path) -> Result<(), String> {
    let c = dir.join("check.c");
    std::fs::write(&c, program).map_err(|e| e.to_string())?;
    let exe = dir.join("check");
    link_c("cc", &c, &[lib], &exe)?;
    let out = run_ok(&mut Command::new(&exe), "the check program", run_timeout())?;
    if out.trim() != "ok" {
        return Err(format!("the check program printed:\n{out}"));
    }
    Ok(())
}

/// Each output of the Relu pairs is its input's Relu; a NULL among the pointers (checked by a
/// loop past 64 of them) is refused with `XCC_ERROR_NULL_TENSOR` (1).
fn check_relu_pairs(n: usize, lib: &Path, dir: &Path) -> Result<(), String> {
    let mut with_null: Vec<String> =
        (0..2 * n).map(|i| if i < n { format!("x + {}", 4 * i) } else { format!("y + {}", 4 * (i - n)) }).collect();
    with_null[n + n / 2] = "0".into();
    let params: Vec<String> =
        (0..2 * n).map(|i| if i < n { format!("x + {}", 4 * i) } else { format!("y + {}", 4 * (i - n)) }).collect();
    let program = format!(
        "#include <stdio.h>\n#include \"pairs_{n}.h\"\nstatic float x[{len}], y[{len}];\nint main(void) {{\n  \
         for (int i = 0; i < {len}; i++) x[i] = (float)(i % 7) - 3.0f;\n  \
         if (pairs_{n}_run_alloc({null_args}) != 1) {{ puts(\"a NULL output was not refused\"); return 1; }}\n  \
         if (pairs_{n}_run_alloc({args}) != 0) {{ puts(\"run failed\"); return 1; }}\n  \
         for (int i = 0; i < {len}; i++) if (y[i] != (x[i] > 0 ? x[i] : 0.0f)) {{ printf(\"y[%d] = %g\\n\", i, y[i]); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n",
        len = 4 * n,
        args = params.join(", "),
        null_args = with_null.join(", ")
    );
    run_c(dir, &program, lib)
}

/// The Relu of x, first and last dims swapped: y[j][i] = relu(x[i][j]) over the two dims that
/// are not 1.
fn check_rank(n: usize, lib: &Path, dir: &Path) -> Result<(), String> {
    let program = format!(
        "#include <stdio.h>\n#include \"rank_{n}.h\"\nstatic float x[12], y[12];\nint main(void) {{\n  \
         for (int k = 0; k < 12; k++) x[k] = (float)(k % 5) - 2.0f;\n  \
         if (rank_{n}_run_alloc(x, y) != 0) {{ puts(\"run failed\"); return 1; }}\n  \
         for (int i = 0; i < 3; i++) for (int j = 0; j < 4; j++) {{\n    \
         float want = x[i * 4 + j] > 0 ? x[i * 4 + j] : 0.0f;\n    \
         if (y[j * 3 + i] != want) {{ printf(\"y[%d][%d] = %g\\n\", j, i, y[j * 3 + i]); return 1; }}\n  }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n"
    );
    run_c(dir, &program, lib)
}

/// The Sum of its inputs, each a small integer so that every order of addition is exact.
fn check_sum(n: usize, lib: &Path, dir: &Path) -> Result<(), String> {
    let params: Vec<String> = (0..n).map(|i| format!("x + {}", 4 * i)).collect();
    let program = format!(
        "#include <stdio.h>\n#include \"sum_{n}.h\"\nstatic float x[{len}], y[4];\nint main(void) {{\n  \
         float want[4] = {{0, 0, 0, 0}};\n  \
         for (int i = 0; i < {len}; i++) {{ x[i] = (float)(i % 5); want[i % 4] += x[i]; }}\n  \
         if (sum_{n}_run_alloc({args}, y) != 0) {{ puts(\"run failed\"); return 1; }}\n  \
         for (int j = 0; j < 4; j++) if (y[j] != want[j]) {{ printf(\"y[%d] = %g, want %g\\n\", j, y[j], want[j]); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n",
        len = 4 * n,
        args = params.join(", ")
    );
    run_c(dir, &program, lib)
}

/// `n` alternating Neg and Abs: the result is |x| (-|x| after an odd count).
fn check_chain(n: usize, lib: &Path, dir: &Path) -> Result<(), String> {
    let sign = if n % 2 == 1 { "-" } else { "" };
    let program = format!(
        "#include <math.h>\n#include <stdio.h>\n#include \"chain_{n}.h\"\nstatic float x[1024], y[1024];\nint main(void) {{\n  \
         for (int i = 0; i < 1024; i++) x[i] = (float)(i % 9) - 4.0f;\n  \
         if (chain_{n}_run_alloc(x, y) != 0) {{ puts(\"run failed\"); return 1; }}\n  \
         for (int i = 1; i < 1024; i++) if (y[i] != {sign}fabsf(x[i])) {{ printf(\"y[%d] = %g\\n\", i, y[i]); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n"
    );
    run_c(dir, &program, lib)
}

/// `(n + 1) * x` for a few x.
fn check_mlir_ops(n: usize, object: &Path, dir: &Path) -> Result<(), String> {
    let program = format!(
        "#include <stdio.h>\nfloat f(float);\nint main(void) {{\n  \
         for (int x = -3; x <= 3; x++) if (f((float)x) != {k}.0f * x) {{ printf(\"f(%d) = %g\\n\", x, f((float)x)); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n",
        k = n + 1
    );
    run_c(dir, &program, object)
}

/// Each memref a one-float buffer `x + i`: after the chain `x[k] = x[0] + k` for k >= 1 and
/// `x[0]` grew by `n`.
fn check_memref_args(n: usize, object: &Path, dir: &Path) -> Result<(), String> {
    let params = vec!["float *, float *, int64_t, int64_t, int64_t"; n].join(", ");
    let args: Vec<String> = (0..n).map(|i| format!("x + {i}, x + {i}, 0, 1, 1")).collect();
    let program = format!(
        "#include <stdint.h>\n#include <stdio.h>\nvoid f({params});\nstatic float x[{n}];\nint main(void) {{\n  \
         for (int k = 0; k < {n}; k++) x[k] = -7.0f;\n  x[0] = 5.0f;\n  f({args});\n  \
         if (x[0] != 5.0f + {n}) {{ printf(\"x[0] = %g\\n\", x[0]); return 1; }}\n  \
         for (int k = 1; k < {n}; k++) if (x[k] != 5.0f + k) {{ printf(\"x[%d] = %g\\n\", k, x[k]); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n",
        args = args.join(", ")
    );
    run_c(dir, &program, object)
}

/// `b = a / b` lane by lane, `a` read as 0 past its length (3 short of the vector's), and
/// `x = exp(x)` against the C library's (within 1e-15 relative: LLVM may call it or fold it).
fn check_vector_lanes(n: usize, object: &Path, dir: &Path) -> Result<(), String> {
    let program = format!(
        "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n\
         void f(int64_t *, int64_t *, int64_t, int64_t, int64_t, int64_t *, int64_t *, int64_t, int64_t, int64_t,\n\
         double *, double *, int64_t, int64_t, int64_t);\n\
         static int64_t a[{n}], b[{n}];\nstatic double x[{n}];\nint main(void) {{\n  \
         for (int k = 0; k < {n}; k++) {{ a[k] = 13LL * k - 5000; b[k] = k % 7 - 3 ? k % 7 - 3 : 5; x[k] = k * 0.001 - 2; }}\n  \
         f(a, a, 0, {n} - 3, 1, b, b, 0, {n}, 1, x, x, 0, {n}, 1);\n  \
         for (int k = 0; k < {n}; k++) {{\n    \
         int64_t want = k < {n} - 3 ? (13LL * k - 5000) / (k % 7 - 3 ? k % 7 - 3 : 5) : 0;\n    \
         if (b[k] != want) {{ printf(\"b[%d] = %lld, want %lld\\n\", k, (long long)b[k], (long long)want); return 1; }}\n    \
         double e = exp(k * 0.001 - 2);\n    \
         if (fabs(x[k] - e) > 1e-15 * e) {{ printf(\"x[%d] = %.17g, want %.17g\\n\", k, x[k], e); return 1; }}\n  }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n"
    );
    run_c(dir, &program, object)
}

fn cases() -> Vec<Case> {
    vec![
        Case { name: "onnx-inputs-to-outputs", sizes: [1, 100, 400], make: relu_pairs, check: Some(check_relu_pairs) },
        Case { name: "onnx-sum-of-inputs", sizes: [2, 125, 500], make: sum_of_inputs, check: Some(check_sum) },
        Case { name: "onnx-chain-of-nodes", sizes: [1, 1000, 4000], make: chain, check: Some(check_chain) },
        Case { name: "onnx-rank", sizes: [1, 2500, 10000], make: rank, check: Some(check_rank) },
        Case { name: "onnx-initializer-bytes", sizes: [1, 2000, 8000], make: initializer, check: None },
        Case { name: "mlir-operations", sizes: [1, 10000, 40000], make: mlir_ops, check: Some(check_mlir_ops) },
        Case {
            name: "mlir-memref-arguments",
            sizes: [1, 1000, 4000],
            make: mlir_memref_args,
            check: Some(check_memref_args),
        },
        Case {
            name: "mlir-vector-lanes",
            sizes: [16, 4096, 16384],
            make: mlir_vector_lanes,
            check: Some(check_vector_lanes),
        },
    ]
}

/// One case at a time: each measures a compiler that may use much of the machine's memory.
fn main() -> std::process::ExitCode {
    let trials = cases()
        .into_iter()
        .map(|case| Trial::test(format!("growth/{}", case.name), move || Ok(run_case(&case)?)))
        .collect();
    let mut args = libtest_mimic::Arguments::from_args();
    args.test_threads = Some(1);
    let conclusion = libtest_mimic::run(&args, trials);
    if conclusion.num_failed == 0 && !keep_test_files() {
        let _ = std::fs::remove_dir_all(work_root("growth"));
    }
    conclusion.exit_code()
}
