//! Run tests: each `run/NAME.mlir` is compiled by xcc into a static library, linked with a C
//! harness and executed; its output must match the file's expectations. See `README.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use xcc_test_suite::*;

struct Tools {
    xcc: PathBuf,
    aarch64: Option<(PathBuf, PathBuf)>,
    upstream: bool,
}

/// What a harness's output is checked against.
enum Expect<'a> {
    Calls(&'a xcc_ir::Module, Vec<RunCall>),
    Lines(Vec<(usize, &'a str)>),
}

impl Expect<'_> {
    fn check(&self, stdout: &str) -> Result<(), String> {
        match self {
            Expect::Calls(m, calls) => check_run_output(m, calls, stdout),
            Expect::Lines(lines) => check_stdout_lines(lines, stdout),
        }
    }
}

fn xcc_compile(tools: &Tools, input: &Path, out: &Path, extra: &[&str]) -> Result<(), String> {
    let o = run_command(Command::new(&tools.xcc).arg(input).arg("-o").arg(out).args(extra), compile_timeout());
    if !o.success() {
        return Err(format!(
            "xcc{}{} failed: {}",
            if extra.is_empty() { "" } else { " " },
            extra.join(" "),
            o.summary()
        ));
    }
    if !out.is_file() {
        return Err(format!("xcc succeeded but wrote no {}", out.display()));
    }
    Ok(())
}

fn run_program(cmd: &mut Command, what: &str) -> Result<String, String> {
    let o = run_command(cmd, run_timeout());
    if !o.success() {
        return Err(format!(
            "{what}: the program failed: {}\n  stdout so far:\n{}",
            o.summary(),
            indent(&head(&o.stdout, 10))
        ));
    }
    Ok(o.stdout)
}

fn check_file(tools: &Tools, path: &Path) -> FileResult {
    let name = file_name(path);
    let text = std::fs::read_to_string(path).map_err(|e| vec![format!("cannot read: {e}")])?;
    let dir = fresh_dir(&work_root("run").join(file_stem(path)));
    let module =
        parse_and_verify(&format!("run/{name}"), &text).map_err(|e| vec![format!("xcc-ir rejects the file:\n{e}")])?;
    let hand = path.with_extension("c");
    let (harness, expect) = if hand.is_file() {
        (hand, Expect::Lines(directives(&text, "stdout")))
    } else {
        let calls = run_calls(&text).map_err(|e| vec![e])?;
        if calls.is_empty() {
            return Err(vec!["no `// run:` lines and no C harness".into()]);
        }
        let c = generate_harness(&module, &calls).map_err(|e| vec![e])?;
        let p = dir.join("harness.c");
        std::fs::write(&p, c).map_err(|e| vec![e.to_string()])?;
        (p, Expect::Calls(&module, calls))
    };

    let mut failures = Vec::new();
    let mut notes = Vec::new();

    // Native (x86-64 host).
    let native = (|| -> Result<String, String> {
        let lib = dir.join("lib.a");
        xcc_compile(tools, path, &lib, &[])?;
        let prog = dir.join("prog");
        link_c("cc", &harness, &[&lib], &prog)?;
        let out = run_program(&mut Command::new(&prog), "native")?;
        expect.check(&out).map_err(|e| format!("native: {e}"))?;
        Ok(out)
    })();
    let native_out = match native {
        Ok(out) => Some(out),
        Err(e) => {
            failures.push(e);
            None
        }
    };

    // aarch64 under qemu.
    if let Some((gcc, qemu)) = &tools.aarch64 {
        let r = (|| -> Result<(), String> {
            let lib = dir.join("lib_aarch64.a");
            xcc_compile(tools, path, &lib, &["--target=aarch64"])?;
            let prog = dir.join("prog_aarch64");
            link_c(&gcc.to_string_lossy(), &harness, &[&lib], &prog)?;
            let out = run_program(Command::new(qemu).args(["-L", "/usr/aarch64-linux-gnu"]).arg(&prog), "aarch64")?;
            expect.check(&out).map_err(|e| format!("aarch64: {e}"))
        })();
        if let Err(e) = r {
            failures.push(e);
        }
    }

    // Upstream MLIR on the same file and harness.
    if has_flag(&text, "differential") {
        if tools.upstream {
            let r = (|| -> Result<(), String> {
                let obj = upstream_object(path, &dir)?;
                let prog = dir.join("prog_upstream");
                link_c("cc", &harness, &[&obj], &prog)?;
                let out = run_program(&mut Command::new(&prog), "upstream")?;
                expect.check(&out).map_err(|e| format!("upstream (mlir-opt-22) build: {e}"))?;
                if let Some(native) = &native_out {
                    if *native != out {
                        return Err(format!(
                            "differential: xcc and mlir-opt-22 builds print different output\n  xcc:\n{}\n  upstream:\n{}",
                            indent(native),
                            indent(&out)
                        ));
                    }
                }
                Ok(())
            })();
            if let Err(e) = r {
                failures.push(e);
            }
        } else {
            notes.push("skipped the differential check (mlir-opt-22, mlir-translate-22 or llc-22 not found)".into());
        }
    }
    if failures.is_empty() {
        Ok(notes)
    } else {
        Err(failures)
    }
}

fn main() -> std::process::ExitCode {
    let tools = Tools {
        xcc: xcc_binary(),
        aarch64: match (find_tool("aarch64-linux-gnu-gcc"), find_tool("qemu-aarch64")) {
            (Some(g), Some(q)) => Some((g, q)),
            _ => None,
        },
        upstream: upstream_tools().is_some(),
    };
    if tools.aarch64.is_none() {
        println!("note: aarch64-linux-gnu-gcc or qemu-aarch64 not found: x86-64 only");
    }
    if !tools.upstream {
        println!("note: mlir-opt-22, mlir-translate-22 or llc-22 not found: differential checks are skipped");
    }
    let tools = std::sync::Arc::new(tools);
    run_trials(file_trials("run", "mlir", move |f| check_file(&tools, f)))
}
