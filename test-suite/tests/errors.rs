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
    // The path as given to xcc is what its diagnostics must start with.
    let given = format!("errors/{}", file_name(path));
    rejects(xcc, &suite_dir(), &given, &dir, &format!("{given}:{line}:{col}: error:"), &msg)
}

/// Runs xcc on `given` (relative to `cwd`) with an output in `dir`: it must exit with an error
/// whose standard error contains `place` and `msg`, without a crash and without leaving files.
fn rejects(xcc: &Path, cwd: &Path, given: &str, dir: &Path, place: &str, msg: &str) -> FileResult {
    let out = dir.join("out.a");
    let o = run_command(Command::new(xcc).current_dir(cwd).arg(given).arg("-o").arg(&out), compile_timeout());
    let mut failures = Vec::new();
    if o.timed_out || o.spawn_error.is_some() {
        return Err(vec![format!("xcc {}", o.status())]);
    }
    match (o.code, o.signal) {
        (Some(0), _) => failures.push("xcc accepted the file (exit code 0)".to_string()),
        (Some(_), _) => {}
        (None, s) => failures.push(format!("xcc was killed by signal {s:?} instead of exiting with an error")),
    }
    if !o.stderr.contains(place) {
        failures.push(format!("stderr lacks `{place}`"));
    }
    if !o.stderr.contains(msg) {
        failures.push(format!("stderr lacks the message `{msg}`"));
    }
    if o.stderr.contains("panicked") || o.stderr.contains("internal compiler error") {
        failures.push("xcc crashed (panic) instead of reporting an error".to_string());
    }
    if out.exists() {
        failures.push("xcc wrote the output file although it failed".to_string());
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|name| name != "input.mlir")
                .collect()
        })
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

/// Hostile inputs too large to keep as files, generated: nesting 100,000 deep would overflow
/// the stack of a recursive parser (and of every pass after it), and a chain of 100,000 `+` is
/// an expression tree as deep. Each must be a clear error on line 1 with the message.
fn generated() -> Vec<(&'static str, String, &'static str)> {
    const N: usize = 100_000;
    let deep = |prefix: &str, open: &str, middle: &str, close: &str, suffix: &str| {
        format!("{prefix}{}{middle}{}{suffix}\n", open.repeat(N), close.repeat(N))
    };
    let nesting = "nesting deeper than 200 levels";
    let apply = "func.func @f(%a: index) -> index { %0 = affine.apply affine_map<(d0) -> (";
    let applied = ")>(%a)\n return %0 : index }";
    vec![
        ("parenthesized-types", deep("func.func @f() -> ", "(", "i32", ")", " { return }"), nesting),
        ("nested-tuple-types", deep("func.func @f(%a: ", "tuple<", "i32", ">", ") { return }"), nesting),
        (
            "nested-array-attributes",
            deep("func.func @f() { \"test.x\"() {a = ", "[", "1", "]", "} : () -> () return }"),
            nesting,
        ),
        (
            "nested-dense-literal",
            deep("func.func @f() { %0 = arith.constant dense<", "[", "1.0", "]", "> : tensor<1xf32> return }"),
            nesting,
        ),
        ("nested-regions", deep("func.func @f(%c: i1) {", " scf.if %c {", "", "}", " return }"), nesting),
        ("parenthesized-affine-expression", deep(apply, "(", "d0", ")", applied), nesting),
        ("negated-affine-expression", deep(apply, "-", "d0", "", applied), nesting),
        (
            "long-affine-sum",
            format!("{apply}{}{applied}\n", vec!["d0"; N].join(" + ")),
            "an affine map with more than 1000 operations",
        ),
    ]
}

fn generated_trials(xcc: &Path) -> Vec<libtest_mimic::Trial> {
    generated()
        .into_iter()
        .map(|(name, text, msg)| {
            let xcc = xcc.to_path_buf();
            libtest_mimic::Trial::test(format!("errors/generated/{name}"), move || {
                let dir = fresh_dir(&work_root("errors").join("generated").join(name));
                std::fs::write(dir.join("input.mlir"), &text).map_err(|e| e.to_string())?;
                rejects(&xcc, &dir, "input.mlir", &dir, "input.mlir:1:", msg)
                    .map(|_| ())
                    .map_err(|f| f.join("\n").into())
            })
        })
        .collect()
}

fn main() -> std::process::ExitCode {
    let xcc = xcc_binary();
    let mut trials = generated_trials(&xcc);
    trials.extend(file_trials("errors", "mlir", move |f| check_file(&xcc, f)));
    run_trials(trials)
}
