//! Round-trip tests: `xcc FILE -o A.mlir` then `xcc A.mlir -o B.mlir` must give identical A and B;
//! files marked `// upstream` must also mean the same to `mlir-opt-22` before and after. See
//! `README.md`.

use std::path::Path;
use std::process::Command;

use xcc_test_suite::*;

fn xcc_print(xcc: &Path, input: &Path, out: &Path) -> Result<String, String> {
    let o = run_command(Command::new(xcc).arg(input).arg("-o").arg(out), compile_timeout());
    if !o.success() {
        return Err(format!("xcc {} -o {} failed: {}", input.display(), file_name(out), o.summary()));
    }
    std::fs::read_to_string(out).map_err(|e| format!("cannot read {}: {e}", out.display()))
}

fn mlir_opt(opt: &Path, input: &Path) -> Result<String, String> {
    let o = run_command(Command::new(opt).arg("--allow-unregistered-dialect").arg(input), compile_timeout());
    if !o.success() {
        return Err(format!("mlir-opt-22 {} failed: {}", input.display(), o.summary()));
    }
    Ok(o.stdout)
}

fn first_difference(a: &str, b: &str) -> String {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    for i in 0..la.len().max(lb.len()) {
        if la.get(i) != lb.get(i) {
            return format!(
                "first difference at line {}:\n    - {}\n    + {}",
                i + 1,
                la.get(i).copied().unwrap_or("<end>"),
                lb.get(i).copied().unwrap_or("<end>")
            );
        }
    }
    "they differ only in line endings".into()
}

fn check_file(xcc: &Path, opt: Option<&Path>, path: &Path) -> FileResult {
    let text = std::fs::read_to_string(path).map_err(|e| vec![format!("cannot read: {e}")])?;
    let dir = fresh_dir(&work_root("roundtrip").join(file_stem(path)));
    let a_path = dir.join("A.mlir");
    let b_path = dir.join("B.mlir");
    let a = xcc_print(xcc, path, &a_path).map_err(|e| vec![e])?;
    let b = xcc_print(xcc, &a_path, &b_path).map_err(|e| vec![e])?;
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    if a != b {
        failures.push(format!("A.mlir and B.mlir differ ({}): {}", dir.display(), first_difference(&a, &b)));
    }
    if has_flag(&text, "upstream") {
        match opt {
            Some(opt) => match (mlir_opt(opt, path), mlir_opt(opt, &a_path)) {
                (Ok(orig), Ok(printed)) => {
                    if orig != printed {
                        failures.push(format!(
                            "mlir-opt-22 reads the original and xcc's print differently: {}",
                            first_difference(&orig, &printed)
                        ));
                    }
                }
                (Err(e), _) => failures.push(format!("the original: {e}")),
                (_, Err(e)) => failures.push(format!("xcc's print: {e}")),
            },
            None => notes.push("skipped the mlir-opt-22 comparison (not installed)".to_string()),
        }
    }
    if failures.is_empty() {
        Ok(notes)
    } else {
        Err(failures)
    }
}

fn main() -> std::process::ExitCode {
    let xcc = xcc_binary();
    let opt = find_tool("mlir-opt-22");
    if opt.is_none() {
        println!("note: mlir-opt-22 not found: upstream comparisons are skipped");
    }
    run_trials(file_trials("roundtrip", "mlir", move |f| check_file(&xcc, opt.as_deref(), f)))
}
