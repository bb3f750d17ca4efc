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

/// xcc's print of the file, printed again, must not change.
fn check_file(xcc: &Path, path: &Path) -> Result<(), String> {
    let dir = fresh_dir(&work_root("roundtrip").join(file_stem(path)));
    let a_path = dir.join("A.mlir");
    let a = xcc_print(xcc, path, &a_path)?;
    let b = xcc_print(xcc, &a_path, &dir.join("B.mlir"))?;
    if a != b {
        return Err(format!("A.mlir and B.mlir differ ({}): {}", dir.display(), first_difference(&a, &b)));
    }
    Ok(())
}

/// mlir-opt-22 must read the original and xcc's print of it to the same module.
fn check_upstream(xcc: &Path, opt: &Path, path: &Path) -> Result<(), String> {
    let dir = fresh_dir(&work_root("roundtrip").join(format!("{}-mlir-opt", file_stem(path))));
    let a_path = dir.join("A.mlir");
    xcc_print(xcc, path, &a_path)?;
    let orig = mlir_opt(opt, path).map_err(|e| format!("the original: {e}"))?;
    let printed = mlir_opt(opt, &a_path).map_err(|e| format!("xcc's print: {e}"))?;
    if orig != printed {
        return Err(format!(
            "mlir-opt-22 reads the original and xcc's print differently: {}",
            first_difference(&orig, &printed)
        ));
    }
    Ok(())
}

/// One test per file (`roundtrip/NAME.mlir`) and, for `// upstream` files, one through
/// mlir-opt-22 (`roundtrip/NAME.mlir/mlir-opt`, ignored without it).
fn main() -> std::process::ExitCode {
    let xcc = xcc_binary();
    let opt = find_tool("mlir-opt-22");
    if opt.is_none() {
        println!("skipped: the mlir-opt-22 comparisons (mlir-opt-22 not found)");
    }
    let mut trials = Vec::new();
    for path in files_in("roundtrip", "mlir") {
        let name = format!("roundtrip/{}", file_name(&path));
        let (x, p) = (xcc.clone(), path.clone());
        trials.push(libtest_mimic::Trial::test(name.clone(), move || Ok(check_file(&x, &p)?)));
        if std::fs::read_to_string(&path).is_ok_and(|t| has_flag(&t, "upstream")) {
            let (x, o) = (xcc.clone(), opt.clone().unwrap_or_default());
            trials.push(
                libtest_mimic::Trial::test(format!("{name}/mlir-opt"), move || Ok(check_upstream(&x, &o, &path)?))
                    .with_ignored_flag(opt.is_none()),
            );
        }
    }
    run_trials(trials)
}
