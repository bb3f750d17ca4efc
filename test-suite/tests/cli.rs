//! The command line's reports: `--version` names xcc's version, the LLVM it links (checked
//! against `llvm-config-22 --version`) and the commit it is built from (checked against
//! `git rev-parse` where the source is a git checkout); `-v` prints every stage with its time;
//! `--time-passes` prints a table with every pass of the default pipeline (the names `--passes`
//! an unknown `--passes` name lists) and their total; `--help` describes both inputs.

use libtest_mimic::Trial;
use std::process::Command;
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

fn main() -> std::process::ExitCode {
    run_trials(vec![
        Trial::test("cli/version", || Ok(version()?)),
        Trial::test("cli/verbose-stages", || Ok(verbose_stages()?)),
        Trial::test("cli/time-passes", || Ok(time_passes()?)),
        Trial::test("cli/help", || Ok(help()?)),
    ])
}
