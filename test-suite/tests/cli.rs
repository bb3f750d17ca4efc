//! The command line's reports: `--version` names xcc's version, the LLVM it links (checked
//! against `llvm-config-22 --version`) and the commit it is built from (checked against
//! `git rev-parse` where the source is a git checkout); `-v` prints every stage with its time;
//! `--time-passes` prints a table with every pass of the default pipeline (each a name that an
//! unknown `--passes` name lists) and their total; `--help` describes both inputs; `xcc inspect`
//! reports what a model holds, checked with onnx, and exits 1 for a model it cannot compile.

use libtest_mimic::Trial;
use std::process::Command;
use xcc_test_suite::onnx_build::{model, node, relu_model, value, FLOAT};
use xcc_test_suite::{find_tool, fresh_dir, run_trials, suite_dir, work_root, xcc_binary};

fn xcc(args: &[&str]) -> Result<(String, String), String> {
    let out = Command::new(xcc_binary()).args(args).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("xcc {args:?} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned()))
}

fn version() -> Result<(), String> {
    let (stdout, _) = xcc(&["--version"])?;
    let want = format!("xcc {} (LLVM ", env!("CARGO_PKG_VERSION"));
    if !stdout.starts_with(&want) {
        return Err(format!("--version: expected '{want}...', got {stdout}"));
    }
    if let Some(config) = find_tool("llvm-config-22") {
        let llvm = Command::new(config).arg("--version").output().map_err(|e| e.to_string())?;
        let llvm = String::from_utf8_lossy(&llvm.stdout).trim().to_string();
        if !stdout.contains(&format!("LLVM {llvm},")) {
            return Err(format!("--version does not name LLVM {llvm}: {stdout}"));
        }
    } else {
        println!("llvm-config-22 not found: the LLVM version is not compared");
    }
    let repo = suite_dir().parent().unwrap().to_path_buf();
    let git = Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(&repo).output();
    match git {
        Ok(out) if out.status.success() => {
            let commit = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if !stdout.contains(&format!("commit {commit})")) {
                return Err(format!("--version does not name commit {commit}: {stdout}"));
            }
        }
        _ => println!("not a git checkout: the commit is not compared"),
    }
    Ok(())
}

/// The MLIR example compiled with `-v --time-passes`.
fn reports() -> Result<String, String> {
    let dir = fresh_dir(&work_root("cli").join("reports"));
    let input = suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir");
    let out = dir.join("k.o");
    let (_, stderr) = xcc(&[input.to_str().unwrap(), "-v", "--time-passes", "-o", out.to_str().unwrap()])?;
    Ok(stderr)
}

fn verbose_stages() -> Result<(), String> {
    let stderr = reports()?;
    for stage in ["parse", "verify", "lower to the llvm dialect", "LLVM: translate, optimize, emit", "write"] {
        let line = format!("xcc: {stage}: ");
        let Some(at) = stderr.find(&line) else { return Err(format!("-v does not report '{stage}':\n{stderr}")) };
        let ms = stderr[at + line.len()..].split(" ms").next().unwrap_or("");
        if ms.parse::<f64>().is_err() {
            return Err(format!("-v: '{stage}' has no time in ms:\n{stderr}"));
        }
    }
    Ok(())
}

/// A model of 1000 nodes (a chain of Neg) gets `-v`'s progress line while its nodes are lowered:
/// standard error is no terminal here, so one line per tenth, ending at 1000/1000; a model of a
/// few nodes gets none.
fn verbose_progress() -> Result<(), String> {
    let dir = fresh_dir(&work_root("cli").join("progress"));
    let names: Vec<String> = (0..=1000).map(|i| format!("t{i}")).collect();
    let nodes = (0..1000).map(|i| node(&format!("neg{i}"), "Neg", &[&names[i]], &[&names[i + 1]])).collect();
    let chain = model(nodes, vec![value("t0", FLOAT, &[4])], vec![value("t1000", FLOAT, &[4])], vec![]);
    let (big, small) = (dir.join("chain.onnx"), dir.join("relu.onnx"));
    std::fs::write(&big, chain).map_err(|e| e.to_string())?;
    std::fs::write(&small, relu_model(4)).map_err(|e| e.to_string())?;
    let (_, stderr) = xcc(&[big.to_str().unwrap(), "-v", "--emit=mlir-llvm", "-o", "-"])?;
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("xcc: lowering nodes: ")).collect();
    let want: Vec<String> = (1..=10).map(|t| format!("xcc: lowering nodes: {}/1000 ({}%)", t * 100, t * 10)).collect();
    if lines != want {
        return Err(format!("-v's progress over 1000 nodes:\n{}", lines.join("\n")));
    }
    let (_, stderr) = xcc(&[small.to_str().unwrap(), "-v", "--emit=mlir-llvm", "-o", "-"])?;
    if stderr.contains("lowering nodes") {
        return Err(format!("-v prints progress for a one-node model:\n{stderr}"));
    }
    Ok(())
}

/// The subcommands refuse bad arguments with a message, exit status 1, nothing on standard
/// output and no file written: `xcc runtime` for a target without a runtime, an unknown target
/// or standard output; `xcc completions` for an unknown shell or none; `xcc man` without a
/// directory.
fn subcommand_errors() -> Result<(), String> {
    let dir = fresh_dir(&work_root("cli").join("subcommand-errors"));
    let lib = dir.join("libxcc_runtime.a");
    let lib = lib.to_str().unwrap();
    let cases: [(&[&str], &str); 6] = [
        (&["runtime", "--target", "nvptx64", "-o", lib], "there is no runtime for nvptx64"),
        (&["runtime", "--target", "nonsense", "-o", lib], "unknown target 'nonsense'"),
        (&["runtime", "-o", "-"], "the runtime is an archive and its headers; name a file"),
        (&["completions", "nosuch"], "no completions for 'nosuch'"),
        (&["completions"], "usage: xcc completions SHELL"),
        (&["man"], "usage: xcc man DIR"),
    ];
    for (args, want) in cases {
        let out = Command::new(xcc_binary()).args(args).output().map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(1) || !stderr.contains(want) || !out.stdout.is_empty() {
            return Err(format!("xcc {args:?}: expected exit 1 and '{want}', got {:?}: {stderr}", out.status.code()));
        }
    }
    let left: Vec<_> = std::fs::read_dir(&dir).map_err(|e| e.to_string())?.flatten().map(|e| e.file_name()).collect();
    if !left.is_empty() {
        return Err(format!("the refused commands left files behind: {left:?}"));
    }
    Ok(())
}

/// `--jobs` takes a count of threads from 1: 0, a negative number or a word is refused by the
/// argument parser (exit 2, naming the option), with no output.
fn jobs_errors() -> Result<(), String> {
    let dir = fresh_dir(&work_root("cli").join("jobs-errors"));
    let input = dir.join("k.mlir");
    std::fs::write(&input, "func.func @f(%a: i32) -> i32 {\n  return %a : i32\n}\n").map_err(|e| e.to_string())?;
    let out_path = dir.join("libk.a");
    for jobs in ["0", "-1", "many"] {
        let out =
            Command::new(xcc_binary()).arg(&input).arg(format!("--jobs={jobs}")).arg("-o").arg(&out_path).output();
        let out = out.map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(2) || !stderr.contains("--jobs") || out_path.exists() {
            return Err(format!(
                "xcc --jobs {jobs}: expected exit 2 naming --jobs and no output, got {:?}: {stderr}",
                out.status.code()
            ));
        }
    }
    Ok(())
}

/// Targets, CPUs, features and emit modes LLVM would only warn about or fail on late are refused
/// up front: exit 1, one line naming what is wrong, none of LLVM's own warnings, no output.
fn target_errors() -> Result<(), String> {
    let dir = fresh_dir(&work_root("cli").join("target-errors"));
    let input = dir.join("k.mlir");
    std::fs::write(&input, "func.func @f(%a: i32) -> i32 {\n  return %a : i32\n}\n").map_err(|e| e.to_string())?;
    let cases: [(&[&str], &str, &str); 7] = [
        (&["--mcpu=notacpu"], "k.a", "unknown CPU 'notacpu' for x86-64"),
        (&["--target=aarch64", "--mcpu=notacpu"], "k.a", "unknown CPU 'notacpu' for aarch64"),
        (&["--mattr=+nosuchfeature"], "k.o", "unknown target feature '+nosuchfeature' for x86-64"),
        (&["--target=nvptx64", "--mcpu=sm_99x"], "k.ptx", "unknown CPU 'sm_99x' for nvptx64"),
        (&["--target=nvptx64", "--emit=obj"], "k.o", "--emit=obj is not available for nvptx64"),
        (&["--target=x86_64-apple-darwin"], "k.a", "a static library for 'x86_64-apple-darwin' is not supported"),
        (&[], "k.ptx", "--emit=ptx needs --target=nvptx64"),
    ];
    for (args, output, want) in cases {
        let out_path = dir.join(output);
        let out = Command::new(xcc_binary()).arg(&input).args(args).arg("-o").arg(&out_path).output();
        let out = out.map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let one_line = stderr.trim_end().lines().count() == 1;
        if out.status.code() != Some(1) || !stderr.contains(want) || !one_line || out_path.exists() {
            return Err(format!(
                "xcc {args:?} -o {output}: expected exit 1, one line with '{want}' and no output, got {:?}, \
                 output written: {}:\n{stderr}",
                out.status.code(),
                out_path.exists()
            ));
        }
    }
    Ok(())
}

/// What a model for nvptx64 cannot be, refused up front with one line and no output: options
/// for other targets, outputs other than the library and PTX, dims known only at run time, dims
/// found by the run (NonZero's), shapes read from inputs (naming them), strings, optional inputs,
/// and math without GPU code (listed).
fn gpu_model_errors() -> Result<(), String> {
    use xcc_test_suite::onnx_build::{model, node, relu_model, symbolic, value};
    let dir = fresh_dir(&work_root("cli").join("gpu-model-errors"));
    let (fixed, open) = (dir.join("relu.onnx"), dir.join("open.onnx"));
    let counted = dir.join("nonzero.onnx");
    let nonzero = vec![node("nz", "NonZero", &["x"], &["y"])];
    std::fs::write(&counted, model(nonzero, vec![value("x", 1, &[4])], vec![value("y", 7, &[1, -1])], vec![]))
        .map_err(|e| e.to_string())?;
    std::fs::write(&fixed, relu_model(8)).map_err(|e| e.to_string())?;
    let relu = vec![node("relu", "Relu", &["x"], &["y"])];
    std::fs::write(&open, model(relu, vec![symbolic("x", 1, &["n"])], vec![symbolic("y", 1, &["n"])], vec![]))
        .map_err(|e| e.to_string())?;
    let words = dir.join("words.onnx");
    let concat = vec![node("cat", "StringConcat", &["x", "x"], &["y"])];
    std::fs::write(&words, model(concat, vec![value("x", 8, &[2])], vec![value("y", 8, &[2])], vec![]))
        .map_err(|e| e.to_string())?;
    let maybe = dir.join("maybe.onnx");
    let has = vec![node("has", "OptionalHasElement", &["x"], &["h"])];
    let x = xcc_test_suite::onnx_build::optional("x", 1, &[2]);
    std::fs::write(&maybe, model(has, vec![x], vec![value("h", 9, &[])], vec![])).map_err(|e| e.to_string())?;
    let reshaped = dir.join("reshape.onnx");
    let reshape = vec![node("reshape", "Reshape", &["x", "shape"], &["y"])];
    let inputs = vec![value("x", 1, &[2, 6]), value("shape", 7, &[2])];
    std::fs::write(&reshaped, model(reshape, inputs, vec![value("y", 1, &[3, 4])], vec![]))
        .map_err(|e| e.to_string())?;
    let cases: [(&std::path::Path, &[&str], &str, &str); 15] = [
        (&fixed, &["--gpu-gemm=tiled"], "m.a", "--gpu-gemm is for code compiled with --target=nvptx64"),
        (&fixed, &["--tf32"], "m.a", "--tf32 is for code compiled with --target=nvptx64"),
        (&fixed, &["--target=nvptx64", "--mcpu=sm_75", "--tf32"], "m.a", "--tf32 needs tensor cores with TF32, sm_80"),
        (&fixed, &["--target=nvptx64", "--tf32", "--gpu-gemm=direct"], "m.a", "--gpu-gemm=direct tiles none"),
        (&fixed, &["--target=nvptx64", "--ptxas=/nonexistent/ptxas"], "m.a", "running /nonexistent/ptxas"),
        (&fixed, &["--target=nvptx64", "--ptxas=/bin/false"], "m.a", "/bin/false refused the kernels' PTX"),
        (&fixed, &["--emulate-gpu"], "m.a", "--emulate-gpu is for ONNX models compiled with --target=nvptx64"),
        (&fixed, &["--gpu-host=aarch64"], "m.a", "--gpu-host is for ONNX models compiled with --target=nvptx64"),
        (&fixed, &["--target=nvptx64", "--emit=obj"], "m.o", "a model for nvptx64 is written as a library"),
        (&fixed, &["--target=nvptx64", "--gpu-host=mips64"], "m.a", "unknown target 'mips64'"),
        (&open, &["--target=nvptx64"], "m.a", "dims known only at run time (n) are not supported on GPUs yet"),
        (
            &counted,
            &["--target=nvptx64"],
            "m.a",
            "tensors whose size the run finds (NonZero, Compress, Unique, NonMaxSuppression) are not supported on GPUs yet",
        ),
        (&words, &["--target=nvptx64"], "m.a", "STRING tensors are not supported on GPUs"),
        (&maybe, &["--target=nvptx64"], "m.a", "optional inputs are not supported on GPUs"),
        (
            &reshaped,
            &["--target=nvptx64"],
            "m.a",
            "shapes read from inputs at run time are not supported on GPUs yet (from 'shape'): freeze those inputs",
        ),
    ];
    for (input, args, output, want) in cases {
        let out_path = dir.join(output);
        let out = Command::new(xcc_binary()).arg(input).args(args).arg("-o").arg(&out_path).output();
        let out = out.map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let one_line = stderr.trim_end().lines().count() == 1;
        let header = dir.join("m.h");
        if out.status.code() != Some(1) || !stderr.contains(want) || !one_line || out_path.exists() || header.exists() {
            return Err(format!(
                "xcc {args:?} -o {output}: expected exit 1, one line with '{want}' and no output, got {:?}:\n{stderr}",
                out.status.code()
            ));
        }
    }
    tensor_cores_before_sm_80(&dir)?;
    found_ptxas_that_fails(&dir, &fixed)
}

/// Hand-written tensor-core code for a GPU without TF32 (sm_75) is refused at the intrinsic
/// (LLVM would abort selecting it), with the op's place, and no PTX written.
fn tensor_cores_before_sm_80(dir: &std::path::Path) -> Result<(), String> {
    let mma = suite_dir().join("conversion/gpu_to_nvvm_mma.mlir");
    let ptx = dir.join("mma.ptx");
    let out = Command::new(xcc_binary()).arg(&mma).args(["--target=nvptx64", "--mcpu=sm_75", "-o"]).arg(&ptx).output();
    let out = out.map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let want = "gpu_to_nvvm_mma.mlir:24:3: error: 'llvm.nvvm.wmma.m16n16k8.load.a.col.stride.tf32' needs tensor cores with TF32, sm_80 or newer";
    if out.status.code() != Some(1) || !stderr.contains(want) || ptx.exists() {
        return Err(format!(
            "tensor cores for sm_75: expected exit 1 with '{want}' and no PTX, got {:?}:\n{stderr}",
            out.status.code()
        ));
    }
    Ok(())
}

/// A `ptxas` found on `PATH` (not named) that fails: a warning, and the library with its PTX alone.
fn found_ptxas_that_fails(dir: &std::path::Path, model: &std::path::Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("failing-toolkit");
    std::fs::create_dir_all(&bin).map_err(|e| e.to_string())?;
    let ptxas = bin.join("ptxas");
    std::fs::write(&ptxas, "#!/bin/sh\necho 'ptxas fatal: unsupported .version' >&2\nexit 1\n")
        .map_err(|e| e.to_string())?;
    std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).map_err(|e| e.to_string())?;
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let lib = dir.join("found.a");
    let out = Command::new(xcc_binary())
        .arg(model)
        .args(["--target=nvptx64", "-o"])
        .arg(&lib)
        .env("PATH", path)
        .env_remove("XCC_PTXAS")
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warned = stderr.contains("xcc: warning:") && stderr.contains("the library carries the PTX alone");
    if !out.status.success() || !warned || !lib.exists() {
        return Err(format!(
            "a failing ptxas found on PATH: expected a warning and the library, got {:?}:\n{stderr}",
            out.status
        ));
    }
    Ok(())
}

fn time_passes() -> Result<(), String> {
    let stderr = reports()?;
    // An unknown pass is refused with the list of every pass: the default pipeline's are among them.
    let listing = Command::new(xcc_binary())
        .args([suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir").to_str().unwrap()])
        .args(["--passes=nonesuch", "--emit=mlir", "-o", "-"])
        .output()
        .map_err(|e| e.to_string())?;
    let listing = String::from_utf8_lossy(&listing.stderr).into_owned();
    let table: Vec<&str> = stderr.lines().filter(|l| l.contains("%)  ")).collect();
    if !stderr.contains("pass execution timing report") || !table.last().is_some_and(|l| l.ends_with("Total")) {
        return Err(format!("--time-passes printed no report:\n{stderr}"));
    }
    for row in &table[..table.len() - 1] {
        let name = row.rsplit("%)  ").next().unwrap_or("");
        if !listing.contains(name) {
            return Err(format!("--time-passes names '{name}', which is no pass:\n{listing}"));
        }
    }
    for pass in ["kernel-to-loops", "plan-workspace", "convert-to-llvm"] {
        if !table.iter().any(|row| row.ends_with(pass)) {
            return Err(format!("--time-passes has no row for {pass}:\n{stderr}"));
        }
    }
    Ok(())
}

fn help() -> Result<(), String> {
    let (stdout, _) = xcc(&["--help"])?;
    for want in ["ONNX models and MLIR kernels", "-x <LANGUAGE>", "xcc model.onnx -o libmodel.a", "--time-passes"] {
        if !stdout.contains(want) {
            return Err(format!("--help lacks '{want}'"));
        }
    }
    Ok(())
}

/// `xcc inspect --json` on every shared model, checked by `cli/check_inspect.py` against the
/// model read with onnx (inputs, outputs, opsets, the operator histogram, parameters) and the
/// manifest's multiply-accumulates; the exit status is 0.
fn inspect_shared_models() -> Result<(), String> {
    let repo = suite_dir().parent().unwrap().to_path_buf();
    let (models, python) = (repo.parent().unwrap().join("shared/models"), repo.join(".venv/bin/python"));
    let manifest = std::fs::read_to_string(models.join("manifest.json")).map_err(|e| e.to_string())?;
    let dir = fresh_dir(&work_root("cli").join("inspect"));
    for name in ["mlp", "encoder", "mobilenet_v2", "resnet18", "squeezenet1_1"] {
        let model = models.join(format!("{name}.onnx"));
        let (report, _) = xcc(&["inspect", model.to_str().unwrap(), "--json"])?;
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, &report).map_err(|e| e.to_string())?;
        let macs = manifest_macs(&manifest, name).ok_or_else(|| format!("the manifest has no macs for {name}"))?;
        let check = Command::new(&python)
            .arg(suite_dir().join("cli/check_inspect.py"))
            .arg(&model)
            .arg(&path)
            .arg(macs.to_string())
            .output()
            .map_err(|e| e.to_string())?;
        let verdict = String::from_utf8_lossy(&check.stdout);
        if verdict.trim() != "ok" {
            return Err(format!("{name}: {verdict}{}", String::from_utf8_lossy(&check.stderr)));
        }
        println!("inspect {name}: ok");
    }
    Ok(())
}

/// The `"macs": N` of model `name` in the shared manifest.
fn manifest_macs(manifest: &str, name: &str) -> Option<u64> {
    let entry = &manifest[manifest.find(&format!("\"{name}\": {{"))?..];
    let at = entry.find("\"macs\": ")? + "\"macs\": ".len();
    entry[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

/// A model with an operator xcc does not implement: the report marks it, says why the model
/// does not compile, and the exit status is 1.
fn inspect_unsupported() -> Result<(), String> {
    use xcc_test_suite::onnx_build::{model, node, value, FLOAT};
    let dir = fresh_dir(&work_root("cli").join("unsupported"));
    let path = dir.join("m.onnx");
    let bytes = model(
        vec![node("relu0", "Relu", &["x"], &["r"]), node("mystery0", "Mystery", &["r"], &["y"])],
        vec![value("x", FLOAT, &[4])],
        vec![value("y", FLOAT, &[4])],
        vec![],
    );
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(xcc_binary()).args(["inspect"]).arg(&path).output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let marked = stdout.lines().any(|l| l.trim_end().ends_with("Mystery  x"));
    if out.status.code() != Some(1) || !marked || !stdout.contains("compiles: no:") || !stdout.contains("Mystery") {
        return Err(format!("expected exit 1, Mystery marked unsupported and why: {:?}\n{stdout}", out.status.code()));
    }
    Ok(())
}

/// A compile whose header cannot be written (its path a directory, its name too long for the
/// file system) exits 1 naming the file and leaves no library either, for a CPU and a GPU model;
/// `xcc runtime` is written whole or not at all the same way. A good compile beside them still
/// writes both.
fn nothing_left_behind() -> Result<(), String> {
    let dir = fresh_dir(&work_root("cli").join("nothing-left-behind"));
    let onnx = dir.join("relu.onnx");
    std::fs::write(&onnx, relu_model(8)).map_err(|e| e.to_string())?;
    std::fs::create_dir(dir.join("m.h")).map_err(|e| e.to_string())?;
    std::fs::create_dir(dir.join("xcc_run.h")).map_err(|e| e.to_string())?;
    let long = "n".repeat(300);
    let onnx_arg = onnx.to_str().unwrap();
    let cases: [(Vec<&str>, &str, &str); 4] = [
        (vec![onnx_arg, "--name", "m"], "libm.a", "m.h"),
        (vec![onnx_arg, "--name", "m", "--target=nvptx64", "--emulate-gpu"], "libm.a", "m.h"),
        (vec![onnx_arg, "--name", &long], "libn.a", "nnnnnnnn"),
        (vec!["runtime"], "libxcc_runtime.a", "xcc_run.h"),
    ];
    for (args, lib, named) in cases {
        let out = Command::new(xcc_binary()).current_dir(&dir).args(&args).args(["-o", lib]).output();
        let out = out.map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        let left: Vec<String> = std::fs::read_dir(&dir)
            .map_err(|e| e.to_string())?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|name| !["relu.onnx", "m.h", "xcc_run.h"].contains(&name.as_str()))
            .collect();
        if out.status.code() != Some(1)
            || !stderr.contains("cannot write")
            || !stderr.contains(named)
            || !left.is_empty()
        {
            return Err(format!("xcc {args:?} -o {lib}: expected exit 1 naming {named} and nothing written, got {:?}: {stderr}\nleft: {left:?}", out.status.code()));
        }
    }
    xcc(&[onnx_arg, "--name", "ok", "-o", dir.join("libok.a").to_str().unwrap()])?;
    if !dir.join("libok.a").is_file() || !dir.join("ok.h").is_file() {
        return Err("a good compile beside them wrote no library or header".into());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let repo = suite_dir().parent().unwrap().to_path_buf();
    let no_shared =
        !repo.parent().unwrap().join("shared/models/manifest.json").exists() || !repo.join(".venv/bin/python").exists();
    if no_shared {
        println!("skipped: cli/inspect-shared-models (../shared/models or the venv is missing)");
    }
    run_trials(vec![
        Trial::test("cli/inspect-shared-models", || Ok(inspect_shared_models()?)).with_ignored_flag(no_shared),
        Trial::test("cli/inspect-unsupported", || Ok(inspect_unsupported()?)),
        Trial::test("cli/version", || Ok(version()?)),
        Trial::test("cli/verbose-stages", || Ok(verbose_stages()?)),
        Trial::test("cli/verbose-progress", || Ok(verbose_progress()?)),
        Trial::test("cli/subcommand-errors", || Ok(subcommand_errors()?)),
        Trial::test("cli/target-errors", || Ok(target_errors()?)),
        Trial::test("cli/jobs-errors", || Ok(jobs_errors()?)),
        Trial::test("cli/gpu-model-errors", || Ok(gpu_model_errors()?)),
        Trial::test("cli/time-passes", || Ok(time_passes()?)),
        Trial::test("cli/help", || Ok(help()?)),
        Trial::test("cli/nothing-left-behind", || Ok(nothing_left_behind()?)),
    ])
}
