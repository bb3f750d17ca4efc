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

/// An MLIR function of `n` squares in place, each spelled out: about 19 operations per square
/// once lowered, so 4,000 of them are more than one codegen unit per CPU.
fn spelled_out_squares(n: usize) -> String {
    let mut text = format!("func.func @squares(%m: memref<{n}xf32>) {{\n");
    for i in 0..n {
        text += &format!(
            "  %c{i} = arith.constant {i} : index\n  %a{i} = memref.load %m[%c{i}] : memref<{n}xf32>\n  \
             %b{i} = arith.mulf %a{i}, %a{i} : f32\n  memref.store %b{i}, %m[%c{i}] : memref<{n}xf32>\n"
        );
    }
    text + "  return\n}\n"
}

/// A library whose CPU copies are each cut into several codegen units, compiled twice (once with
/// `--jobs 1`): the same bytes, and more than one unit per CPU, so the cut is what was compared.
fn several_units_per_cpu(work: &Path) -> Result<(), String> {
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let input = work.join("squares.mlir");
    std::fs::write(&input, spelled_out_squares(4000)).map_err(|e| e.to_string())?;
    compile_twice(&input, "libsquares.a", &["-O3"], work)?;
    let members =
        Command::new("ar").arg("t").arg(work.join("round0/libsquares.a")).output().map_err(|e| e.to_string())?;
    let members = String::from_utf8_lossy(&members.stdout).into_owned();
    if !members.lines().any(|m| m == "squares.base.1.o") {
        return Err(format!("the library was not cut into several units per CPU:\n{members}"));
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
    let units_work = work.join("units");
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
        libtest_mimic::Trial::test("determinism/several-units-per-cpu", move || {
            Ok(several_units_per_cpu(&units_work)?)
        }),
        libtest_mimic::Trial::test("determinism/onnx-library", move || {
            Ok(compile_all(&[(&onnx, "libsq.a", vec!["-O3"]), (&onnx, "sq.mlir", vec![])], &work.join("onnx"))?)
        })
        .with_ignored_flag(no_shared),
    ];
    xcc_test_suite::run_trials(trials)
}
