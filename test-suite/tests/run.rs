//! Run tests: each `run/NAME.mlir` is compiled by xcc into a static library, linked with a C
//! harness and executed; its output must match the file's expectations. See `README.md`.

use std::path::{Path, PathBuf};
use std::process::Command;

use xcc_test_suite::*;

struct Tools {
    xcc: PathBuf,
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

/// Where a file's programs are built.
#[derive(Clone, Copy)]
enum Variant {
    /// Compiled by xcc for the host and run.
    Native,
    /// Compiled by xcc for another CPU, cross-linked and run under qemu.
    Cross(&'static CrossTarget),
    /// Compiled by upstream MLIR 22 as well: both programs must print the same.
    Differential,
    /// Lowered to the llvm dialect by mlir-opt-22, printed in its custom form (or generic form),
    /// and that text compiled by xcc: upstream's spelling of every llvm op it produces must be
    /// accepted and mean the same.
    ViaMlirOpt { generic: bool },
    /// Compiled with `--sanitize=address` and linked with the harness and runtime-c built with
    /// AddressSanitizer and UndefinedBehaviorSanitizer: every access of the compiled code and
    /// the runtime is checked.
    Sanitized,
}

impl Variant {
    fn suffix(self) -> String {
        match self {
            Variant::Native => "",
            Variant::Cross(target) => return format!("/{}", target.arch),
            Variant::Differential => "/differential",
            Variant::ViaMlirOpt { generic: false } => "/via-mlir-opt",
            Variant::ViaMlirOpt { generic: true } => "/via-mlir-opt-generic",
            Variant::Sanitized => "/sanitized",
        }
        .to_string()
    }
}

/// The C harness for a file (hand-written next to it, or generated from its `// run:` lines)
/// and what its output must be.
fn harness<'m>(
    module: &'m xcc_ir::Module,
    path: &Path,
    text: &'m str,
    dir: &Path,
) -> Result<(PathBuf, Expect<'m>), String> {
    let hand = path.with_extension("c");
    if hand.is_file() {
        return Ok((hand, Expect::Lines(directives(text, "stdout"))));
    }
    let calls = run_calls(text)?;
    if calls.is_empty() {
        return Err("no `// run:` lines and no C harness".into());
    }
    let c = generate_harness(module, &calls)?;
    let p = dir.join("harness.c");
    std::fs::write(&p, c).map_err(|e| e.to_string())?;
    Ok((p, Expect::Calls(module, calls)))
}

/// xcc's native program for the file: built, run, its output checked; returns the output.
fn native(tools: &Tools, path: &Path, harness: &Path, expect: &Expect, dir: &Path) -> Result<String, String> {
    let lib = dir.join("lib.a");
    xcc_compile(tools, path, &lib, &[])?;
    let prog = dir.join("prog");
    link_c("cc", harness, &[&lib], &prog)?;
    let out = run_program(&mut Command::new(&prog), "native")?;
    expect.check(&out).map_err(|e| format!("native: {e}"))?;
    Ok(out)
}

fn sanitized(tools: &Tools, path: &Path, harness: &Path, expect: &Expect, dir: &Path) -> Result<(), String> {
    let lib = dir.join("lib_sanitized.a");
    xcc_compile(tools, path, &lib, &["--sanitize=address"])?;
    let prog = dir.join("prog_sanitized");
    link_c_sanitized(harness, &[&lib], &prog)?;
    // Leaks are not errors here: a kernel may allocate without freeing, as upstream's tests do.
    let out = run_program(Command::new(&prog).env("ASAN_OPTIONS", "detect_leaks=0"), "sanitized")?;
    expect.check(&out).map_err(|e| format!("sanitized: {e}"))
}

fn cross(
    tools: &Tools,
    target: &CrossTarget,
    (path, harness): (&Path, &Path),
    expect: &Expect,
    dir: &Path,
) -> Result<(), String> {
    let arch = target.arch;
    let lib = dir.join(format!("lib_{arch}.a"));
    xcc_compile(tools, path, &lib, &[&format!("--target={arch}")])?;
    let prog = dir.join(format!("prog_{arch}"));
    link_c(target.gcc, harness, &[&lib], &prog)?;
    let out = run_program(&mut target.run(&prog), arch)?;
    expect.check(&out).map_err(|e| format!("{arch}: {e}"))
}

/// The upstream build must meet the expectations and print exactly what xcc's build prints.
fn differential(tools: &Tools, path: &Path, harness: &Path, expect: &Expect, dir: &Path) -> Result<(), String> {
    let xcc_out = native(tools, path, harness, expect, dir)?;
    let obj = upstream_object(path, dir)?;
    let prog = dir.join("prog_upstream");
    link_c("cc", harness, &[&obj], &prog)?;
    let out = run_program(&mut Command::new(&prog), "upstream")?;
    expect.check(&out).map_err(|e| format!("upstream (mlir-opt-22) build: {e}"))?;
    if xcc_out != out {
        return Err(format!(
            "differential: xcc and mlir-opt-22 builds print different output\n  xcc:\n{}\n  upstream:\n{}",
            indent(&xcc_out),
            indent(&out)
        ));
    }
    Ok(())
}

/// xcc compiles mlir-opt-22's llvm-dialect output of the file; the program must meet the file's
/// expectations.
fn via_mlir_opt(
    tools: &Tools,
    path: &Path,
    harness: &Path,
    expect: &Expect,
    dir: &Path,
    generic: bool,
) -> Result<(), String> {
    let lowered = upstream_lowered(path, dir, generic)?;
    let lib = dir.join("lib_via_mlir_opt.a");
    xcc_compile(tools, &lowered, &lib, &[])?;
    let prog = dir.join("prog_via_mlir_opt");
    link_c("cc", harness, &[&lib], &prog)?;
    let out = run_program(&mut Command::new(&prog), "via mlir-opt-22")?;
    expect.check(&out).map_err(|e| format!("xcc on mlir-opt-22's output: {e}"))
}

fn check_file(tools: &Tools, path: &Path, variant: Variant) -> Result<(), String> {
    let name = file_name(path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read: {e}"))?;
    let dir = fresh_dir(&work_root("run").join(format!("{}{}", file_stem(path), variant.suffix().replace('/', "-"))));
    let module =
        parse_and_verify(&format!("run/{name}"), &text).map_err(|e| format!("xcc-ir rejects the file:\n{e}"))?;
    let (harness, expect) = harness(&module, path, &text, &dir)?;
    match variant {
        Variant::Native => native(tools, path, &harness, &expect, &dir).map(|_| ()),
        Variant::Cross(target) => cross(tools, target, (path, &harness), &expect, &dir),
        Variant::Differential => differential(tools, path, &harness, &expect, &dir),
        Variant::ViaMlirOpt { generic } => via_mlir_opt(tools, path, &harness, &expect, &dir, generic),
        Variant::Sanitized => sanitized(tools, path, &harness, &expect, &dir),
    }
}

/// One test per file (`run/NAME.mlir`), one more per cross target under qemu
/// (`run/NAME.mlir/aarch64`, `/riscv64`, ignored without the cross tools) and, for `// differential` files, one against upstream MLIR
/// (`run/NAME.mlir/differential`) and two on mlir-opt-22's llvm-dialect output in its custom
/// and generic forms (`/via-mlir-opt`, `/via-mlir-opt-generic`), ignored without mlir-opt-22,
/// mlir-translate-22 and llc-22; and on x86_64 one under AddressSanitizer and
/// UndefinedBehaviorSanitizer (`/sanitized`, ignored where `cc` cannot build with them).
fn main() -> std::process::ExitCode {
    let tools = Tools { xcc: xcc_binary(), upstream: upstream_tools().is_some() };
    for target in CROSS_TARGETS.iter().filter(|t| !t.available()) {
        println!("skipped: the {} runs ({} or {} not found)", target.arch, target.gcc, target.qemu);
    }
    if !tools.upstream {
        println!("skipped: the differential runs (mlir-opt-22, mlir-translate-22 or llc-22 not found)");
    }
    let sanitizers = sanitized_runtime().map_err(|why| println!("skipped: the sanitized runs ({why})")).is_ok();
    let tools = std::sync::Arc::new(tools);
    let mut trials = Vec::new();
    for path in files_in("run", "mlir") {
        let differential = std::fs::read_to_string(&path).is_ok_and(|t| has_flag(&t, "differential"));
        let crosses = CROSS_TARGETS.iter().map(|t| (Variant::Cross(t), true, t.available()));
        for (variant, wanted, runnable) in [
            (Variant::Native, true, true),
            (Variant::Differential, differential, tools.upstream),
            (Variant::ViaMlirOpt { generic: false }, differential, tools.upstream),
            (Variant::ViaMlirOpt { generic: true }, differential, tools.upstream),
            (Variant::Sanitized, cfg!(target_arch = "x86_64"), sanitizers),
        ]
        .into_iter()
        .chain(crosses.clone())
        {
            if !wanted {
                continue;
            }
            let (tools, path) = (tools.clone(), path.clone());
            let name = format!("run/{}{}", file_name(&path), variant.suffix());
            trials.push(
                libtest_mimic::Trial::test(name, move || Ok(check_file(&tools, &path, variant)?))
                    .with_ignored_flag(!runnable),
            );
        }
    }
    run_trials_then_discard(trials, &[work_root("run")])
}
