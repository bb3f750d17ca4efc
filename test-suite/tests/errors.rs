//! Bad-input tests: each `errors/NAME.mlir` starts with `// error: LINE:COL: MESSAGE`; xcc must
//! reject it with exactly that location and a message containing MESSAGE, without crashing and
//! without writing an output file. See `README.md`.

use std::path::Path;
use std::process::Command;

use xcc_test_suite::*;

fn check_file(xcc: &Path, path: &Path) -> FileResult {
    let text = std::fs::read_to_string(path).map_err(|e| vec![format!("cannot read: {e}")])?;
    let (line, col, msg) = error_expectation(&text).map_err(|e| vec![e])?;
    let dir = fresh_dir(&work_root("errors").join(file_stem(path)));
    let out = dir.join("out.a");
    // The path as given to xcc is what its diagnostics must start with.
    let given = format!("errors/{}", file_name(path));
    let o = run_command(Command::new(xcc).current_dir(suite_dir()).arg(&given).arg("-o").arg(&out), compile_timeout());
    let mut failures = Vec::new();
    if o.timed_out || o.spawn_error.is_some() {
        return Err(vec![format!("xcc {}", o.status())]);
    }
    match (o.code, o.signal) {
        (Some(0), _) => failures.push("xcc accepted the file (exit code 0)".to_string()),
        (Some(_), _) => {}
        (None, s) => failures.push(format!("xcc was killed by signal {s:?} instead of exiting with an error")),
    }
    let want = format!("{given}:{line}:{col}: error:");
    if !o.stderr.contains(&want) {
        failures.push(format!("stderr lacks `{want}`"));
    }
    if !o.stderr.contains(&msg) {
        failures.push(format!("stderr lacks the message `{msg}`"));
    }
    if o.stderr.contains("panicked") || o.stderr.contains("internal compiler error") {
        failures.push("xcc crashed (panic) instead of reporting an error".to_string());
    }
    if out.exists() {
        failures.push("xcc wrote the output file although it failed".to_string());
    }
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    if !leftovers.is_empty() && !out.exists() {
        failures.push(format!("xcc left files behind in the output directory: {}", leftovers.join(", ")));
    }
    if failures.is_empty() {
        Ok(Vec::new())
    } else {
        failures.push(format!("stderr was:\n{}", indent(&head(&o.stderr, 15))));
        Err(failures)
    }
}

fn main() -> std::process::ExitCode {
    let xcc = xcc_binary();
    run_trials(file_trials("errors", "mlir", move |f| check_file(&xcc, f)))
}
