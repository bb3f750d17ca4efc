//! Golden pass tests, as MLIR's `test/Conversion` and `test/Dialect/*/transforms`: each
//! `conversion/NAME.mlir` (the conversions to the llvm dialect) and `transforms/NAME.mlir` (the
//! kernel level's passes) names the
//! passes to run on its first `// RUN:` line (arguments for xcc, e.g. `--passes=convert-arith-to-llvm`);
//! xcc prints the module after them (`--emit=mlir`), and the file's `// CHECK:` lines must match
//! the output in order (see `src/filecheck.rs`). A `// RUN-ERROR: MESSAGE` line instead expects
//! xcc to fail with MESSAGE on standard error.

use std::path::Path;
use std::process::Command;

use xcc_test_suite::filecheck;
use xcc_test_suite::*;

fn check_file(xcc: &Path, path: &Path) -> FileResult {
    let text = std::fs::read_to_string(path).map_err(|e| vec![format!("cannot read: {e}")])?;
    let run = directives(&text, "RUN");
    let Some(&(_, args)) = run.first() else { return Err(vec!["no `// RUN:` line".into()]) };
    let o = run_command(
        Command::new(xcc).arg(path).args(args.split_whitespace()).args(["--emit=mlir", "-o", "-"]),
        compile_timeout(),
    );
    if let Some(&(_, want)) = directives(&text, "RUN-ERROR").first() {
        return match (o.success(), o.stderr.contains(want)) {
            (false, true) if !o.stderr.contains("panicked") => Ok(Vec::new()),
            _ => Err(vec![format!("expected an error containing `{want}`; xcc {}", o.summary())]),
        };
    }
    if !o.success() {
        return Err(vec![format!("xcc {args} failed: {}", o.summary())]);
    }
    let checks = filecheck::directives(&text);
    if checks.is_empty() {
        return Err(vec!["no `// CHECK:` lines".into()]);
    }
    filecheck::check(&checks, &o.stdout)
        .map_err(|e| vec![e, format!("output was:\n{}", indent(&head(&o.stdout, 60)))])?;
    Ok(Vec::new())
}

fn main() -> std::process::ExitCode {
    let xcc = xcc_binary();
    let mut trials = file_trials("conversion", "mlir", {
        let xcc = xcc.clone();
        move |f| check_file(&xcc, f)
    });
    trials.extend(file_trials("transforms", "mlir", move |f| check_file(&xcc, f)));
    run_trials(trials)
}
