//! The same input and flags give byte-identical outputs: every output kind, compiled twice in
//! separate processes, compared byte for byte (MLIR input and, where ../shared is present, an
//! ONNX model with its header). The second compilation has `--jobs 1`: a library's codegen units
//! are compiled on as many threads as there are CPUs by default, and must not depend on how many.

use std::path::Path;
use std::process::Command;
use xcc_test_suite::{suite_dir, xcc_binary};

fn compile_twice(input: &Path, out_name: &str, extra: &[&str], dir: &Path) -> Result<(), String> {
    let mut outputs = Vec::new();
    for round in 0..2 {
        let d = dir.join(format!("round{round}"));
        std::fs::create_dir_all(&d).unwrap();
        let out = d.join(out_name);
        let jobs: &[&str] = if round == 1 { &["--jobs", "1"] } else { &[] };
        let st = Command::new(xcc_binary()).arg(input).args(extra).args(jobs).arg("-o").arg(&out).output().unwrap();
        if !st.status.success() {
            return Err(format!("{}: {}", input.display(), String::from_utf8_lossy(&st.stderr)));
        }
        outputs.push(d);
    }
    for entry in std::fs::read_dir(&outputs[0]).unwrap().flatten() {
        let name = entry.file_name();
        let (a, b) = (std::fs::read(entry.path()).unwrap(), std::fs::read(outputs[1].join(&name)).unwrap_or_default());
        if a != b || a.is_empty() {
            return Err(format!(
                "{} {extra:?}: {} differs between two compilations",
                input.display(),
                name.to_string_lossy()
            ));
        }
    }
    Ok(())
}

fn compile_all(cases: &[(&Path, &str, Vec<&str>)], work: &Path) -> Result<(), String> {
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(i, (input, out, extra))| compile_twice(input, out, extra, &work.join(i.to_string())).err())
        .collect();
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

/// Every output kind from MLIR input; an ONNX model's library and header (ignored without
/// ../shared, which holds the model).
fn main() -> std::process::ExitCode {
    let root = suite_dir().parent().unwrap().to_path_buf();
    let work = root.join("target/xcc-tests/determinism");
    let _ = std::fs::remove_dir_all(&work);
    let onnx = root.join("../shared/models/squeezenet1_1.onnx");
    let no_shared = !onnx.exists();
    if no_shared {
        println!("skipped: determinism/onnx-library (../shared/models is absent)");
    }
    let mlir_work = work.join("mlir");
    let mlir_root = root.clone();
    let trials = vec![
        libtest_mimic::Trial::test("determinism/mlir-outputs", move || {
            let mlir = mlir_root.join("examples/matmul/matmul.mlir");
            let gpu = suite_dir().join("gpu/matmul2d.mlir");
            let cases: Vec<(&Path, &str, Vec<&str>)> = vec![
                (&mlir, "m.o", vec![]),
                (&mlir, "m.s", vec!["-O3"]),
                (&mlir, "m.ll", vec![]),
                (&mlir, "m.bc", vec![]),
                (&mlir, "m.mlir", vec![]),
                (&mlir, "libm.a", vec!["-O3"]),
                (&mlir, "libm.a", vec!["--target=aarch64"]),
                (&gpu, "k.ptx", vec!["--target=nvptx64", "--mcpu=sm_90"]),
            ];
            Ok(compile_all(&cases, &mlir_work)?)
        }),
        libtest_mimic::Trial::test("determinism/onnx-library", move || {
            Ok(compile_all(&[(&onnx, "libsq.a", vec!["-O3"]), (&onnx, "sq.mlir", vec![])], &work.join("onnx"))?)
        })
        .with_ignored_flag(no_shared),
    ];
    xcc_test_suite::run_trials(trials)
}
