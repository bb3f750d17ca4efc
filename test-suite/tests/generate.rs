//! `examples/generate`: the C generation loop over a decoder compiled by xcc, against the same
//! loop run by ONNX Runtime (`examples/generate/reference.py`). The example's model is built by
//! its own `make_model.py` (a tiny Llama-style decoder in the default domain: opset 23's
//! Attention with a KV cache and grouped heads, RotaryEmbedding, RMSNormalization), compiled
//! with no flag; greedy decoding and seeded top-k/top-p sampling must give ONNX Runtime's tokens
//! exactly, from a prompt of several tokens and from one. Skipped, with a message, where the
//! project's venv with onnx and ONNX Runtime is absent.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::{compile_timeout, link_c, run_ok, run_trials, suite_dir, work_root, xcc_binary};

fn example() -> PathBuf {
    suite_dir().parent().unwrap().join("examples/generate")
}

fn python() -> Result<PathBuf, String> {
    let py = suite_dir().parent().unwrap().join(".venv/bin/python");
    let ok = Command::new(&py).args(["-c", "import onnx, onnxruntime"]).output().is_ok_and(|o| o.status.success());
    if ok {
        Ok(py)
    } else {
        Err(format!("{} cannot import onnx and onnxruntime (scripts/setup.sh makes it)", py.display()))
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    run_ok(cmd, what, compile_timeout())
}

/// Builds the model, compiles it and links generate.c against it: the program's path.
fn build(py: &Path, work: &Path) -> Result<PathBuf, String> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    run(Command::new(py).arg(example().join("make_model.py")).arg(work), "make_model.py")?;
    let lib = work.join("libdecoder.a");
    run(Command::new(xcc_binary()).arg(work.join("decoder.onnx")).args(["--name", "decoder", "-o"]).arg(&lib), "xcc")?;
    // Beside the header it includes.
    let source = work.join("generate.c");
    std::fs::copy(example().join("generate.c"), &source).map_err(|e| e.to_string())?;
    let prog = work.join("generate");
    link_c("cc", &source, &[&lib], &prog)?;
    Ok(prog)
}

/// The loops' arguments: greedy and sampled, from prompts of several tokens and of one.
const LOOPS: &[&[&str]] = &[
    &["greedy", "40", "1", "5", "9", "42"],
    &["greedy", "24", "17"],
    &["sample", "7", "20", "0.9", "0.8", "40", "1", "5", "9"],
    &["sample", "12345", "8", "0.6", "1.3", "40", "3"],
    &["sample", "3", "96", "1.0", "1.0", "40", "60", "61"],
];

fn check(work: &Path) -> Result<(), String> {
    let py = python()?;
    let prog = build(&py, work)?;
    let mut failures = Vec::new();
    for args in LOOPS {
        let got = run(Command::new(&prog).args(*args), "generate")?;
        let want = run(
            Command::new(&py).arg(example().join("reference.py")).arg(work.join("decoder.onnx")).args(*args),
            "reference.py",
        )?;
        if got.trim() != want.trim() || got.split_whitespace().count() < 2 {
            failures.push(format!("generate {}: {}, ONNX Runtime's loop: {}", args.join(" "), got.trim(), want.trim()));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn main() -> std::process::ExitCode {
    let work = work_root("generate");
    let trial = match python() {
        Ok(_) => Trial::test("generate/tokens-match-onnx-runtime", move || check(&work).map_err(Into::into)),
        Err(why) => {
            println!("skipped: {why}");
            Trial::test("generate/tokens-match-onnx-runtime", || Ok(())).with_ignored_flag(true)
        }
    };
    run_trials(vec![trial])
}
