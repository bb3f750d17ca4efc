//! Shared helpers for xcc's end-to-end test suites (see `README.md` in this crate):
//!
//! - `tests/run.rs`: every `run/*.mlir` is compiled with xcc into a static library, linked with a C
//!   harness (generated from `// run:` lines, or a hand-written `NAME.c`), executed and checked; also
//!   for aarch64 under qemu and against upstream `mlir-opt-22` for `// differential` files;
//! - `tests/errors.rs`: every `errors/*.mlir` must be rejected with the diagnostic on its first line;
//! - `tests/roundtrip.rs`: every `roundtrip/*.mlir` must print the same text after two trips through
//!   `xcc -o X.mlir`.
//!
//! The unit tests at the bottom check, without the xcc binary, that the test files themselves are
//! well formed: they parse and verify with `xcc-ir`, their directives make sense, the generated and
//! hand-written C harnesses compile, and error files fail at the line and column they claim.

pub mod filecheck;
pub mod onnx_build;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use xcc_ir::module::Module;
use xcc_ir::types::{FloatKind, FunctionType};
use xcc_ir::Type;

// ---- locations ------------------------------------------------------------------------------

/// The `test-suite/` directory.
pub fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>`, found from the running test executable (`target/<profile>/deps/NAME-HASH`).
fn profile_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    if dir.file_name().is_some_and(|n| n == "deps") {
        Some(dir.parent()?.to_path_buf())
    } else {
        Some(dir.to_path_buf())
    }
}

/// The `xcc` binary: `$XCC` if set, else `../xcc` relative to the test executable's `deps/` folder.
/// Panics with instructions when it does not exist.
pub fn xcc_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("XCC") {
        let p = PathBuf::from(p);
        if !p.is_file() {
            panic!("XCC is set to {}, which does not exist", p.display());
        }
        return p;
    }
    let dir = profile_dir().expect("cannot locate the test executable");
    let bin = dir.join(format!("xcc{}", std::env::consts::EXE_SUFFIX));
    if !bin.is_file() {
        panic!(
            "the xcc binary was not found at {}: run `cargo build -p xcc` first (or set XCC=/path/to/xcc)",
            bin.display()
        );
    }
    bin
}

/// The cargo target directory (`target/`).
pub fn target_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(d);
    }
    profile_dir()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| suite_dir().join("..").join("target"))
}

/// `target/xcc-tests/<suite>`: where the suites keep their work files.
pub fn work_root(suite: &str) -> PathBuf {
    target_dir().join("xcc-tests").join(suite)
}

/// Removes and recreates a directory.
pub fn fresh_dir(dir: &Path) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir.to_path_buf()
}

/// The files `test-suite/<sub>/*.<ext>`, sorted, narrowed by `$XCC_TEST_FILTER` (a substring of the
/// file name) when set.
pub fn files_in(sub: &str, ext: &str) -> Vec<PathBuf> {
    let dir = suite_dir().join(sub);
    let filter = std::env::var("XCC_TEST_FILTER").ok().filter(|f| !f.is_empty());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| filter.as_ref().is_none_or(|f| file_name(p).contains(f.as_str())))
        .collect();
    files.sort();
    files
}

pub fn file_name(p: &Path) -> String {
    p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

pub fn file_stem(p: &Path) -> String {
    p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// `ptxas`: the one `scripts/setup.sh` installs into the venv (nvidia-cuda-nvcc), else one on
/// `PATH`.
pub fn ptxas() -> Option<PathBuf> {
    let lib = suite_dir().parent()?.join(".venv/lib");
    let in_venv = std::fs::read_dir(lib).ok().and_then(|entries| {
        entries.flatten().map(|e| e.path().join("site-packages/nvidia/cu13/bin/ptxas")).find(|p| p.exists())
    });
    in_venv.or_else(|| find_tool("ptxas"))
}

/// Finds an executable on `PATH`.
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// A CPU target the tests cross-compile for and run under qemu-user: its `--target`, the cross
/// C compiler that links its programs, and qemu's command for them.
pub struct CrossTarget {
    pub arch: &'static str,
    pub gcc: &'static str,
    pub qemu: &'static str,
    /// qemu's arguments before the program: the CPU to emulate and the target's libraries.
    pub qemu_args: &'static [&'static str],
}

/// The targets run under qemu: AArch64 as any such CPU, RISC-V 64 with the vector extension
/// (RVV 1.0, 128-bit registers), as xcc's default riscv64 code needs.
pub const CROSS_TARGETS: [CrossTarget; 2] = [
    CrossTarget {
        arch: "aarch64",
        gcc: "aarch64-linux-gnu-gcc",
        qemu: "qemu-aarch64",
        qemu_args: &["-L", "/usr/aarch64-linux-gnu"],
    },
    CrossTarget {
        arch: "riscv64",
        gcc: "riscv64-linux-gnu-gcc",
        qemu: "qemu-riscv64",
        qemu_args: &["-cpu", "rv64,v=true,vlen=128,vext_spec=v1.0", "-L", "/usr/riscv64-linux-gnu"],
    },
];

impl CrossTarget {
    /// Whether the cross compiler and qemu are installed (`scripts/setup.sh` installs both).
    pub fn available(&self) -> bool {
        find_tool(self.gcc).is_some() && find_tool(self.qemu).is_some()
    }

    /// qemu running `program`.
    pub fn run(&self, program: &Path) -> Command {
        let mut c = Command::new(self.qemu);
        c.args(self.qemu_args).arg(program);
        c
    }
}

/// The x86-64 levels this machine runs (2, 3 with AVX2 and FMA, 4 with AVX-512, 5 with its
/// VNNI), each forced in turn through `XCC_CPU_LEVEL`; one unforced run elsewhere.
pub fn cpu_levels() -> Vec<Option<u32>> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut levels = vec![Some(2)];
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            levels.push(Some(3));
        }
        let avx512 = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("avx512dq")
            && is_x86_feature_detected!("avx512vl");
        if avx512 {
            levels.push(Some(4));
        }
        if avx512 && is_x86_feature_detected!("avx512vnni") {
            levels.push(Some(5));
        }
        levels
    }
    #[cfg(not(target_arch = "x86_64"))]
    vec![None]
}

// ---- processes ------------------------------------------------------------------------------

/// What a child process did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub spawn_error: Option<String>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// `exit code 1`, `killed by signal 11`, `timed out`, ...
    pub fn status(&self) -> String {
        if let Some(e) = &self.spawn_error {
            return format!("could not start: {e}");
        }
        if self.timed_out {
            return "timed out".into();
        }
        match (self.code, self.signal) {
            (Some(c), _) => format!("exit code {c}"),
            (None, Some(s)) => format!("killed by signal {s}"),
            _ => "unknown status".into(),
        }
    }

    /// The status and the first lines of stderr (and stdout if stderr is empty), for a report.
    pub fn summary(&self) -> String {
        let text = if self.stderr.trim().is_empty() { &self.stdout } else { &self.stderr };
        format!("{}\n{}", self.status(), indent(&head(text, 20)))
    }
}

/// The first `n` lines of `text`.
pub fn head(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines.iter().take(n).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > n {
        out.push_str(&format!("\n... ({} more lines)", lines.len() - n));
    }
    out
}

pub fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    | {l}")).collect::<Vec<_>>().join("\n")
}

/// Runs a command with stdin closed, capturing its output, killing it after `timeout`.
pub fn run_command(cmd: &mut Command, timeout: Duration) -> Outcome {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return Outcome { spawn_error: Some(format!("{:?}: {e}", cmd.get_program())), ..Default::default() },
    };
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out_pipe.read_to_end(&mut v);
        v
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err_pipe.read_to_end(&mut v);
        v
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) => {
                if start.elapsed() > timeout {
                    let _ = child.kill();
                    timed_out = true;
                    break child.wait().ok();
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&out_thread.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&err_thread.join().unwrap_or_default()).into_owned();
    let (code, signal) = match status {
        Some(s) => {
            #[cfg(unix)]
            let signal = std::os::unix::process::ExitStatusExt::signal(&s);
            #[cfg(not(unix))]
            let signal = None;
            (s.code(), signal)
        }
        None => (None, None),
    };
    Outcome { code, signal, timed_out, spawn_error: None, stdout, stderr }
}

/// Runs a command through [`run_command`] (killed after `timeout`): its stdout and stderr, or
/// an error naming `what` with how it failed and what it printed.
pub fn run_ok(cmd: &mut Command, what: &str, timeout: Duration) -> Result<String, String> {
    let o = run_command(cmd, timeout);
    if o.success() {
        Ok(format!("{}{}", o.stdout, o.stderr))
    } else {
        Err(format!("{what} failed: {}", o.summary()))
    }
}

/// Seconds a compile or link may take (`$XCC_TEST_COMPILE_TIMEOUT`, default 600): a limit for
/// hangs only, over ten times the slowest compile's normal time (about 25 s with the debug
/// build), so that a loaded machine does not fail a test.
pub fn compile_timeout() -> Duration {
    env_secs("XCC_TEST_COMPILE_TIMEOUT", 600)
}

/// Seconds a test program may run (`$XCC_TEST_RUN_TIMEOUT`, default 120): over ten times the
/// slowest program's normal time (a few seconds in the GPU emulator), for hangs only.
pub fn run_timeout() -> Duration {
    env_secs("XCC_TEST_RUN_TIMEOUT", 120)
}

fn env_secs(var: &str, default: u64) -> Duration {
    Duration::from_secs(std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default))
}

/// How much of a breadth suite runs (`$XCC_TEST_BREADTH`). The suites that repeat one check over
/// many cases (the node tests, the gallery, the Core ML models, the GPU models, the language
/// models, the shared models under qemu and the sanitizers) run all of them under `cargo test`; the README's test command (`scripts/test.sh`) runs a fixed sample of
/// each, and CI's fuller command (`scripts/test-full.sh`) the rest, so that CI covers every case
/// once between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breadth {
    All,
    /// One case in `every`, chosen by a hash of its name (the same cases on every machine).
    Sample,
    /// The cases `Sample` leaves out.
    Rest,
}

impl Breadth {
    pub fn from_env() -> Breadth {
        match std::env::var("XCC_TEST_BREADTH").as_deref() {
            Ok("sample") => Breadth::Sample,
            Ok("rest") => Breadth::Rest,
            _ => Breadth::All,
        }
    }

    /// Whether the case `name` runs, where the sample is one case in `every`.
    pub fn includes(self, name: &str, every: u64) -> bool {
        self.takes(fnv1a(name.as_bytes()).is_multiple_of(every.max(1)))
    }

    /// Whether the case at `index` of a list runs, where the sample is every `every`-th from the
    /// first (for short lists, whose every part the sample should reach).
    pub fn includes_nth(self, index: usize, every: usize) -> bool {
        self.takes(index.is_multiple_of(every.max(1)))
    }

    fn takes(self, sampled: bool) -> bool {
        match self {
            Breadth::All => true,
            Breadth::Sample => sampled,
            Breadth::Rest => !sampled,
        }
    }
}

/// The trials of a breadth suite that [`Breadth::from_env`] runs (one in `every` as the sample),
/// with a line saying how many.
pub fn sampled(trials: Vec<libtest_mimic::Trial>, every: u64) -> Vec<libtest_mimic::Trial> {
    sampled_where(trials, every, |_| true)
}

/// [`sampled`] over the trials that `is_breadth` names; the others (a suite's own checks) run
/// with the sample and not with the rest.
pub fn sampled_where(
    trials: Vec<libtest_mimic::Trial>,
    every: u64,
    is_breadth: impl Fn(&str) -> bool,
) -> Vec<libtest_mimic::Trial> {
    let breadth = Breadth::from_env();
    let all = trials.len();
    let runs = |t: &libtest_mimic::Trial| match is_breadth(t.name()) {
        true => breadth.includes(t.name(), every),
        false => breadth != Breadth::Rest,
    };
    let kept: Vec<libtest_mimic::Trial> = trials.into_iter().filter(runs).collect();
    if breadth != Breadth::All {
        println!("XCC_TEST_BREADTH={breadth:?}: {} of the {all} trials (one in {every} is the sample)", kept.len());
    }
    kept
}

/// A stamp of a case generator: a hash of the Python sources beside `script` (it and what it
/// imports from its folder). Generated cases carry it, and are made again only when it changes.
pub fn generator_stamp(script: &Path) -> String {
    let dir = script.parent().unwrap_or(Path::new("."));
    let mut sources: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "py")).collect()
        })
        .unwrap_or_default();
    sources.sort();
    let mut bytes = Vec::new();
    for source in &sources {
        bytes.extend(source.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default());
        bytes.extend(std::fs::read(source).unwrap_or_default());
    }
    format!("{:016x}", fnv1a(&bytes))
}

/// FNV-1a: a hash that is the same in every build and on every machine (std's is neither).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Worker threads for the file suites (`$XCC_TEST_JOBS`, default 2: the build machines are small).
pub fn workers() -> usize {
    std::env::var("XCC_TEST_JOBS").ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(2)
}

/// Maps `f` over `items` on `workers` threads, keeping the order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], workers: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1).min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results.into_inner().unwrap().into_iter().map(|r| r.expect("every item ran")).collect()
}

/// One file's result: `Ok(notes)` or `Err(reasons)`.
pub type FileResult = Result<Vec<String>, Vec<String>>;

/// One test per file of `test-suite/<sub>/*.<ext>` (named `<sub>/<file>`), so a single file can
/// be filtered (`cargo test --test run -- up_fact`), timed and reported; notes print with the
/// test, failures carry their reasons.
pub fn file_trials(
    sub: &str,
    ext: &str,
    check: impl Fn(&Path) -> FileResult + Send + Sync + Clone + 'static,
) -> Vec<libtest_mimic::Trial> {
    files_in(sub, ext)
        .into_iter()
        .map(|f| {
            let check = check.clone();
            libtest_mimic::Trial::test(format!("{sub}/{}", file_name(&f)), move || match check(&f) {
                Ok(notes) => {
                    for n in notes {
                        println!("note: {}: {n}", file_name(&f));
                    }
                    Ok(())
                }
                Err(reasons) => Err(reasons.join("\n").into()),
            })
        })
        .collect()
}

/// Runs trials with libtest's command line (filters, `--test-threads`, `--list`); without
/// `--test-threads`, on `$XCC_TEST_JOBS` threads (default 2), since each trial runs compilers.
pub fn run_trials(trials: Vec<libtest_mimic::Trial>) -> std::process::ExitCode {
    run_trials_then_discard(trials, &[])
}

/// [`run_trials`], then, when none failed, removes `scratch` (the suite's libraries and
/// programs); a failed run keeps them to look at. See [`keep_test_files`].
pub fn run_trials_then_discard(trials: Vec<libtest_mimic::Trial>, scratch: &[PathBuf]) -> std::process::ExitCode {
    let mut args = libtest_mimic::Arguments::from_args();
    args.test_threads = args.test_threads.or(Some(workers()));
    let conclusion = libtest_mimic::run(&args, trials);
    if conclusion.num_failed == 0 && !keep_test_files() {
        for dir in scratch {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    conclusion.exit_code()
}

/// Whether passing tests keep their work files (`XCC_KEEP_TEST_FILES=1`). By default they go: a
/// whole run's static libraries and test programs come to gigabytes, and a CI machine once ran
/// out of disk halfway through the suites.
pub fn keep_test_files() -> bool {
    std::env::var("XCC_KEEP_TEST_FILES").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// `outcome`, after removing `dir` if it passed (unless [`keep_test_files`]); a failure's files
/// stay for a look.
pub fn discard_when_passed<T, E>(dir: &Path, outcome: Result<T, E>) -> Result<T, E> {
    if outcome.is_ok() && !keep_test_files() {
        let _ = std::fs::remove_dir_all(dir);
    }
    outcome
}

/// Prints `PASS`/`FAIL` per file and a summary; panics if any file failed.
pub fn report(suite: &str, results: &[(String, FileResult)]) {
    let mut failed = Vec::new();
    for (name, r) in results {
        match r {
            Ok(notes) => {
                println!("PASS {name}");
                for n in notes {
                    println!("     note: {n}");
                }
            }
            Err(reasons) => {
                println!("FAIL {name}");
                for r in reasons {
                    println!("{}", r.lines().map(|l| format!("     {l}")).collect::<Vec<_>>().join("\n"));
                }
                failed.push(name.clone());
            }
        }
    }
    let total = results.len();
    println!("{suite}: {} passed, {} failed, {total} total", total - failed.len(), failed.len());
    if !failed.is_empty() {
        panic!("{suite}: {} of {total} file(s) failed: {}", failed.len(), failed.join(", "));
    }
}

// ---- directives -----------------------------------------------------------------------------

/// The values of `// KEY: value` comment lines, with their 1-based line numbers.
pub fn directives<'a>(text: &'a str, key: &str) -> Vec<(usize, &'a str)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("//") else { continue };
        let rest = rest.trim_start();
        if let Some(v) = rest.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
            let v = v.strip_prefix(' ').unwrap_or(v);
            out.push((i + 1, v.trim_end()));
        }
    }
    out
}

/// Whether a `// FLAG` line (nothing else on it) is present.
pub fn has_flag(text: &str, flag: &str) -> bool {
    text.lines().any(|l| l.trim().strip_prefix("//").is_some_and(|r| r.trim() == flag))
}

/// A literal in a `// run:` line.
#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Int(i128),
    Float(f64),
    Bool(bool),
}

pub fn parse_lit(s: &str) -> Result<Lit, String> {
    let s = s.trim();
    match s {
        "true" => return Ok(Lit::Bool(true)),
        "false" => return Ok(Lit::Bool(false)),
        "inf" | "+inf" => return Ok(Lit::Float(f64::INFINITY)),
        "-inf" => return Ok(Lit::Float(f64::NEG_INFINITY)),
        "nan" => return Ok(Lit::Float(f64::NAN)),
        _ => {}
    }
    if let Ok(v) = s.parse::<i128>() {
        return Ok(Lit::Int(v));
    }
    if let Some(h) = s.strip_prefix("0x") {
        if let Ok(v) = i128::from_str_radix(h, 16) {
            return Ok(Lit::Int(v));
        }
    }
    if let Ok(v) = s.parse::<f64>() {
        return Ok(Lit::Float(v));
    }
    Err(format!("'{s}' is not a literal (integer, float, true or false)"))
}

/// `// run: @NAME(ARG, ...) == EXPECTED`
#[derive(Clone, Debug)]
pub struct RunCall {
    pub line: usize,
    pub func: String,
    pub args: Vec<Lit>,
    pub expected: Lit,
}

pub fn parse_run_line(line: usize, s: &str) -> Result<RunCall, String> {
    let bad = |why: &str| format!("line {line}: malformed `// run:` line ({why}): {s}");
    let rest = s.trim().strip_prefix('@').ok_or_else(|| bad("expected '@name('"))?;
    let open = rest.find('(').ok_or_else(|| bad("expected '('"))?;
    let func = rest[..open].trim().to_string();
    let close = rest.rfind(')').ok_or_else(|| bad("expected ')'"))?;
    let args_text = &rest[open + 1..close];
    let args = if args_text.trim().is_empty() {
        Vec::new()
    } else {
        args_text.split(',').map(parse_lit).collect::<Result<Vec<_>, _>>().map_err(|e| bad(&e))?
    };
    let tail = rest[close + 1..].trim();
    let expected = tail.strip_prefix("==").ok_or_else(|| bad("expected '== VALUE'"))?;
    let expected = parse_lit(expected).map_err(|e| bad(&e))?;
    if func.is_empty()
        || !func.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || func.starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(bad("the function name must be a C identifier"));
    }
    Ok(RunCall { line, func, args, expected })
}

/// All `// run:` lines of a file.
pub fn run_calls(text: &str) -> Result<Vec<RunCall>, String> {
    directives(text, "run").into_iter().map(|(l, s)| parse_run_line(l, s)).collect()
}

// ---- C harness generation -------------------------------------------------------------------

/// How a scalar MLIR type appears in C.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CScalar {
    Bool,
    Int(u32),
    Index,
    F32,
    F64,
}

impl CScalar {
    pub fn of(t: &Type) -> Option<CScalar> {
        match t {
            Type::Integer { width: 1, .. } => Some(CScalar::Bool),
            Type::Integer { width, .. } if [8, 16, 32, 64].contains(width) => Some(CScalar::Int(*width)),
            Type::Index => Some(CScalar::Index),
            Type::Float(FloatKind::F32) => Some(CScalar::F32),
            Type::Float(FloatKind::F64) => Some(CScalar::F64),
            _ => None,
        }
    }

    /// The C type of a parameter.
    fn param(self) -> String {
        match self {
            CScalar::Bool => "_Bool".into(),
            CScalar::Int(w) => format!("int{w}_t"),
            CScalar::Index => "int64_t".into(),
            CScalar::F32 => "float".into(),
            CScalar::F64 => "double".into(),
        }
    }

    /// The C type of a result. An `i1` result is declared `uint8_t` and masked: LLVM only defines
    /// the low bit of an `i1` return value, while a C `_Bool` return is assumed to be 0 or 1.
    fn result(self) -> String {
        match self {
            CScalar::Bool => "uint8_t".into(),
            s => s.param(),
        }
    }

    fn width(self) -> u32 {
        match self {
            CScalar::Bool => 1,
            CScalar::Int(w) => w,
            CScalar::Index => 64,
            CScalar::F32 => 32,
            CScalar::F64 => 64,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, CScalar::F32 | CScalar::F64)
    }

    /// A C expression for a literal argument of this type.
    fn literal(self, lit: &Lit) -> Result<String, String> {
        let c = self.param();
        Ok(match (self, lit) {
            (CScalar::Bool, Lit::Bool(b)) => format!("(_Bool){}", *b as i32),
            (CScalar::Bool, Lit::Int(v)) if *v == 0 || *v == 1 => format!("(_Bool){v}"),
            (s, Lit::Int(v)) if !s.is_float() && s != CScalar::Bool => format!("({c})({})", c_int(*v)?),
            (s, Lit::Int(v)) if s.is_float() => format!("({c}){v}.0"),
            (s, Lit::Float(f)) if s.is_float() => format!("({c})({})", c_double(*f)),
            (s, l) => return Err(format!("literal {l:?} does not fit a parameter of C type {}", s.param())),
        })
    }
}

fn c_int(v: i128) -> Result<String, String> {
    if v == i64::MIN as i128 {
        Ok("INT64_MIN".into())
    } else if v >= i64::MIN as i128 && v <= i64::MAX as i128 {
        Ok(format!("{v}LL"))
    } else if v > 0 && v <= u64::MAX as i128 {
        Ok(format!("{v}ULL"))
    } else {
        Err(format!("integer {v} does not fit in 64 bits"))
    }
}

fn c_double(f: f64) -> String {
    if f.is_nan() {
        "__builtin_nan(\"\")".into()
    } else if f.is_infinite() {
        if f > 0.0 {
            "__builtin_inf()".into()
        } else {
            "(-__builtin_inf())".into()
        }
    } else {
        format!("{f:?}")
    }
}

/// The type of the function `@name` in a module.
pub fn function_type(module: &Module, name: &str) -> Option<FunctionType> {
    module
        .top_ops()
        .iter()
        .find(|&&op| module.sym_name(op) == Some(name))
        .and_then(|&op| module.function_type(op).cloned())
}

/// The scalar C signature of `@name`: parameter kinds and the single result kind.
pub fn c_signature(module: &Module, name: &str) -> Result<(Vec<CScalar>, CScalar), String> {
    let ft = function_type(module, name).ok_or_else(|| format!("no function @{name} in the module"))?;
    let params = ft
        .inputs
        .iter()
        .map(|t| {
            CScalar::of(t)
                .ok_or_else(|| format!("@{name}: parameter type {t} has no scalar C equivalent (write a C harness)"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if ft.results.len() != 1 {
        return Err(format!(
            "@{name} has {} results; `// run:` needs exactly one (write a C harness)",
            ft.results.len()
        ));
    }
    let result = CScalar::of(&ft.results[0]).ok_or_else(|| {
        format!("@{name}: result type {} has no scalar C equivalent (write a C harness)", ft.results[0])
    })?;
    Ok((params, result))
}

/// A C program that calls each `// run:` function and prints one result per line. It includes no
/// header that declares library functions (only `stdint.h` and `stdio.h`), so test functions may
/// share names with libm; link it with `-fno-builtin` (see [`link_c`]).
pub fn generate_harness(module: &Module, calls: &[RunCall]) -> Result<String, String> {
    let mut decls = Vec::new();
    let mut body = Vec::new();
    for call in calls {
        let (params, result) = c_signature(module, &call.func)?;
        if params.len() != call.args.len() {
            return Err(format!(
                "line {}: @{} takes {} argument(s), {} given",
                call.line,
                call.func,
                params.len(),
                call.args.len()
            ));
        }
        let decl = format!(
            "{} {}({});",
            result.result(),
            call.func,
            if params.is_empty() {
                "void".into()
            } else {
                params.iter().map(|p| p.param()).collect::<Vec<_>>().join(", ")
            }
        );
        if !decls.contains(&decl) {
            decls.push(decl);
        }
        let args = params
            .iter()
            .zip(&call.args)
            .map(|(p, a)| p.literal(a).map_err(|e| format!("line {}: {e}", call.line)))
            .collect::<Result<Vec<_>, _>>()?
            .join(", ");
        let print = match result {
            CScalar::Bool => r#"printf("%d\n", (int)(r & 1));"#.to_string(),
            CScalar::F32 => r#"printf("%.9g\n", (double)r);"#.to_string(),
            CScalar::F64 => r#"printf("%.17g\n", r);"#.to_string(),
            _ => r#"printf("%lld\n", (long long)r);"#.to_string(),
        };
        body.push(format!(
            "  {{ /* line {} */ {} r = {}({}); {} }}",
            call.line,
            result.result(),
            call.func,
            args,
            print
        ));
    }
    Ok(format!(
        "/* Generated from the `// run:` lines of the test file. */\n\
         #include <stdint.h>\n#include <stdio.h>\n\n{}\n\nint main(void) {{\n{}\n  return 0;\n}}\n",
        decls.join("\n"),
        body.join("\n")
    ))
}

/// Checks a generated harness's output against the `// run:` expectations.
pub fn check_run_output(module: &Module, calls: &[RunCall], stdout: &str) -> Result<(), String> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut errors = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let Some(&got) = lines.get(i) else {
            errors.push(format!(
                "line {}: @{}: no output (the program printed {} line(s))",
                call.line,
                call.func,
                lines.len()
            ));
            continue;
        };
        let (_, result) = c_signature(module, &call.func)?;
        if let Err(e) = compare_value(result, &call.expected, got.trim()) {
            errors.push(format!("line {}: @{}({}) {e}", call.line, call.func, show_args(&call.args)));
        }
    }
    if lines.len() > calls.len() {
        errors.push(format!("the program printed {} extra line(s)", lines.len() - calls.len()));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

fn show_args(args: &[Lit]) -> String {
    args.iter()
        .map(|a| match a {
            Lit::Int(v) => v.to_string(),
            Lit::Float(f) => format!("{f:?}"),
            Lit::Bool(b) => b.to_string(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Integers compare exactly modulo 2^width (so `-1` and `255` agree for i8); floats to a relative
/// 1e-6 (NaN matches NaN; infinities match exactly).
pub fn compare_value(kind: CScalar, expected: &Lit, got: &str) -> Result<(), String> {
    if kind.is_float() {
        let want = match expected {
            Lit::Float(f) => *f,
            Lit::Int(v) => *v as f64,
            Lit::Bool(_) => return Err("expects a boolean from a float function".into()),
        };
        let have: f64 = match got {
            "nan" | "-nan" => f64::NAN,
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            _ => got.parse().map_err(|_| format!("printed '{got}', not a number"))?,
        };
        let ok = if want.is_nan() {
            have.is_nan()
        } else if want.is_infinite() {
            have == want
        } else {
            (have - want).abs() <= 1e-6 * want.abs().max(have.abs()) || (have - want).abs() <= 1e-30
        };
        return if ok { Ok(()) } else { Err(format!("== {want:?} expected, got {got}")) };
    }
    let want = match expected {
        Lit::Int(v) => *v,
        Lit::Bool(b) => *b as i128,
        Lit::Float(f) => return Err(format!("expects float {f} from an integer function")),
    };
    let have: i128 = got.parse().map_err(|_| format!("printed '{got}', not an integer"))?;
    let w = kind.width();
    let mask: i128 = if w >= 127 { -1 } else { (1i128 << w) - 1 };
    if (want & mask) == (have & mask) {
        Ok(())
    } else {
        Err(format!("== {want} expected, got {got}"))
    }
}

/// Compares program output with `// stdout:` lines.
pub fn check_stdout_lines(expected: &[(usize, &str)], stdout: &str) -> Result<(), String> {
    let got: Vec<&str> = stdout.lines().map(|l| l.trim_end()).collect();
    let want: Vec<&str> = expected.iter().map(|(_, l)| *l).collect();
    if got == want {
        return Ok(());
    }
    let mut msg = String::from("stdout differs from the `// stdout:` lines:\n");
    for i in 0..got.len().max(want.len()) {
        let (w, g) = (want.get(i), got.get(i));
        if w != g {
            msg.push_str(&format!(
                "  line {}: expected {:?}, got {:?}\n",
                i + 1,
                w.copied().unwrap_or("<nothing>"),
                g.copied().unwrap_or("<nothing>")
            ));
        }
    }
    Err(msg.trim_end().to_string())
}

// ---- upstream MLIR --------------------------------------------------------------------------

/// The passes that lower our upstream-spelled files to the llvm dialect with `mlir-opt-22`.
pub const UPSTREAM_PASSES: &[&str] = &[
    // math.ipowi and math.fpowi to functions (upstream has no LLVM intrinsic for ipowi).
    "--convert-math-to-funcs",
    // Transfers of more than one dim to loops of 1-D ones (which convert-vector-to-llvm lowers).
    "--convert-vector-to-scf=full-unroll=true",
    "--convert-scf-to-cf",
    "--lower-affine",
    "--convert-scf-to-cf",
    "--expand-strided-metadata",
    "--finalize-memref-to-llvm",
    "--convert-vector-to-llvm",
    "--convert-arith-to-llvm",
    "--convert-math-to-llvm",
    // What has no LLVM intrinsic (erfc) becomes a C library call.
    "--convert-math-to-libm",
    "--convert-index-to-llvm",
    "--convert-ub-to-llvm",
    "--convert-cf-to-llvm",
    "--convert-func-to-llvm",
    "--reconcile-unrealized-casts",
];

/// `mlir-opt-22`, `mlir-translate-22` and `llc-22`, if all are installed.
pub fn upstream_tools() -> Option<(PathBuf, PathBuf, PathBuf)> {
    Some((find_tool("mlir-opt-22")?, find_tool("mlir-translate-22")?, find_tool("llc-22")?))
}

/// Compiles `input` to an object with upstream MLIR and LLVM 22, in `dir`.
/// `input` lowered to the llvm dialect by mlir-opt-22 ([`UPSTREAM_PASSES`]), written to `dir`
/// in the custom form or, with `generic`, in the generic form.
pub fn upstream_lowered(input: &Path, dir: &Path, generic: bool) -> Result<PathBuf, String> {
    let (opt, _, _) = upstream_tools().ok_or("mlir-opt-22, mlir-translate-22 or llc-22 is missing")?;
    let lowered = dir.join(if generic { "upstream.generic.mlir" } else { "upstream.custom.mlir" });
    let mut cmd = Command::new(opt);
    cmd.args(UPSTREAM_PASSES).arg(input).arg("-o").arg(&lowered);
    if generic {
        cmd.arg("-mlir-print-op-generic");
    }
    let o = run_command(&mut cmd, compile_timeout());
    if !o.success() {
        return Err(format!("mlir-opt-22 failed: {}", o.summary()));
    }
    Ok(lowered)
}

pub fn upstream_object(input: &Path, dir: &Path) -> Result<PathBuf, String> {
    let (opt, translate, llc) = upstream_tools().ok_or("mlir-opt-22, mlir-translate-22 or llc-22 is missing")?;
    let lowered = dir.join("upstream.llvm.mlir");
    let ll = dir.join("upstream.ll");
    let obj = dir.join("upstream.o");
    let o = run_command(Command::new(opt).args(UPSTREAM_PASSES).arg(input).arg("-o").arg(&lowered), compile_timeout());
    if !o.success() {
        return Err(format!("mlir-opt-22 failed: {}", o.summary()));
    }
    let o = run_command(
        Command::new(translate).arg("--mlir-to-llvmir").arg(&lowered).arg("-o").arg(&ll),
        compile_timeout(),
    );
    if !o.success() {
        return Err(format!("mlir-translate-22 failed: {}", o.summary()));
    }
    let o = run_command(
        Command::new(llc).args(["-filetype=obj", "-relocation-model=pic"]).arg(&ll).arg("-o").arg(&obj),
        compile_timeout(),
    );
    if !o.success() {
        return Err(format!("llc-22 failed: {}", o.summary()));
    }
    Ok(obj)
}

/// Checks a compile that must fail cleanly: a non-zero exit (not a signal), no panic, every one
/// of `expected` in its standard error, and none of `outputs` left behind. Returns the message.
pub fn clean_failure(o: &std::process::Output, expected: &[&str], outputs: &[&Path]) -> Result<String, String> {
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    match o.status.code() {
        Some(0) => return Err("xcc succeeded".into()),
        None => return Err(format!("xcc died from a signal:\n{stderr}")),
        _ => {}
    }
    if stderr.contains("panicked") || stderr.contains("internal compiler error") {
        return Err(format!("xcc panicked:\n{stderr}"));
    }
    if let Some(e) = expected.iter().find(|e| !stderr.contains(*e)) {
        return Err(format!("the message does not mention '{e}':\n{stderr}"));
    }
    if outputs.iter().any(|p| p.exists()) {
        return Err("an output file was left behind".into());
    }
    Ok(stderr)
}

/// Links a C harness with objects or archives into `out`, with `cc` (or `compiler`).
pub fn link_c(compiler: &str, harness: &Path, inputs: &[&Path], out: &Path) -> Result<(), String> {
    let o = run_command(
        Command::new(compiler)
            // -fno-builtin: a test function named like a C library function must be called, not folded.
            .args(["-std=gnu11", "-O1", "-w", "-fno-builtin"])
            .arg(harness)
            .args(inputs)
            .args(["-lm", "-lpthread", "-o"])
            .arg(out),
        compile_timeout(),
    );
    if o.success() {
        Ok(())
    } else {
        Err(format!("linking with {compiler} failed: {}", o.summary()))
    }
}

/// The `cc` flags of sanitized builds: AddressSanitizer and UndefinedBehaviorSanitizer, every
/// report fatal.
pub const SANITIZE_FLAGS: &[&str] =
    &["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"];

/// runtime-c compiled from its source with [`SANITIZE_FLAGS`], built once per test process;
/// `Err` says why a sanitized build cannot be made here (the sanitized tests are then skipped
/// with that reason). Linked before a library, it takes the place of the library's own runtime
/// member, which the linker then does not pull in.
pub fn sanitized_runtime() -> Result<&'static Path, String> {
    static BUILT: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = work_root("sanitized-runtime").join(std::process::id().to_string());
            std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
            let probe = dir.join("probe.c");
            std::fs::write(&probe, "int main(void) { return 0; }\n").map_err(|e| e.to_string())?;
            let exe = dir.join("probe");
            let probed =
                run_command(Command::new("cc").args(SANITIZE_FLAGS).arg(&probe).arg("-o").arg(&exe), compile_timeout());
            if !probed.success() || !run_command(&mut Command::new(&exe), run_timeout()).success() {
                return Err("cc cannot build and run -fsanitize=address,undefined programs here".into());
            }
            let c = suite_dir().join("../runtime-c/c");
            let mut parts = Vec::new();
            for part in xcc_runtime_c::RUNTIME_PARTS {
                let obj = dir.join(format!("{part}.o"));
                let o = run_command(
                    Command::new("cc")
                        .args(["-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-c", "-I"])
                        .arg(&c)
                        .args(SANITIZE_FLAGS)
                        .arg(c.join(format!("{part}.c")))
                        .arg("-o")
                        .arg(&obj),
                    compile_timeout(),
                );
                if !o.success() {
                    return Err(format!("runtime-c's {part}.c does not build with the sanitizers: {}", o.summary()));
                }
                parts.push(obj);
            }
            // One object, as a library's runtime members are to the linker once pulled in.
            let obj = dir.join("xcc_runtime.o");
            let o = run_command(Command::new("ld").arg("-r").args(&parts).arg("-o").arg(&obj), compile_timeout());
            if o.success() {
                Ok(obj)
            } else {
                Err(format!("ld -r could not join runtime-c's sanitized objects: {}", o.summary()))
            }
        })
        .as_deref()
        .map_err(Clone::clone)
}

/// `cc` with [`SANITIZE_FLAGS`] and the sanitized runtime-c as its first input: the C files,
/// libraries and `-o` follow.
pub fn sanitized_cc() -> Result<Command, String> {
    let runtime = sanitized_runtime()?;
    let mut cc = Command::new("cc");
    cc.args(["-std=gnu11", "-O1", "-g", "-w", "-fno-builtin"]).args(SANITIZE_FLAGS).arg(runtime);
    Ok(cc)
}

/// [`link_c`] with [`sanitized_cc`].
pub fn link_c_sanitized(harness: &Path, inputs: &[&Path], out: &Path) -> Result<(), String> {
    let o = run_command(
        sanitized_cc()?.arg(harness).args(inputs).args(["-lm", "-lpthread", "-o"]).arg(out),
        compile_timeout(),
    );
    if o.success() {
        Ok(())
    } else {
        Err(format!("linking with the sanitizers failed: {}", o.summary()))
    }
}

// ---- checks of the test files themselves ----------------------------------------------------

/// Parses and verifies a file with xcc-ir, rendering the diagnostic on failure.
pub fn parse_and_verify(name: &str, text: &str) -> Result<Module, String> {
    let src = xcc_ir::SourceFile::new(name, text);
    let m = xcc_ir::parser::parse_module(text).map_err(|d| src.render(&d))?;
    xcc_ir::verifier::verify(&m).map_err(|d| src.render(&d))?;
    Ok(m)
}

/// `// error: LINE:COL: MESSAGE` on the first line of an error test.
pub fn error_expectation(text: &str) -> Result<(usize, usize, String), String> {
    let first = text.lines().next().unwrap_or("");
    let rest = first
        .trim()
        .strip_prefix("//")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix("error:"))
        .ok_or("the first line must be `// error: LINE:COL: MESSAGE`")?
        .trim();
    let mut parts = rest.splitn(3, ':');
    let line = parts.next().and_then(|s| s.trim().parse().ok()).ok_or("bad LINE in `// error:`")?;
    let col = parts.next().and_then(|s| s.trim().parse().ok()).ok_or("bad COL in `// error:`")?;
    let msg = parts.next().map(str::trim).filter(|m| !m.is_empty()).ok_or("missing MESSAGE in `// error:`")?;
    Ok((line, col, msg.to_string()))
}

/// A file of raw little-endian f32 values (a model's input or output).
pub fn read_f32(path: &Path) -> Result<Vec<f32>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Compares `got` with an oracle's `want`, element by element, within `abs + 1e-4 * |want|`;
/// returns the worst error as a fraction of that tolerance.
pub fn compare_f32(what: &str, got: &[f32], want: &[f32], abs: f64) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!("{what}: {} values, expected {}", got.len(), want.len()));
    }
    let mut worst: f64 = 0.0;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = (g as f64 - w as f64).abs();
        let allowed = abs + 1e-4 * (w as f64).abs();
        if d.is_nan() || d > allowed {
            return Err(format!("{what}: element {i} is {g}, expected {w}"));
        }
        worst = worst.max(d / allowed);
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(p: &Path) -> String {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    fn finish(what: &str, failures: Vec<String>) {
        if !failures.is_empty() {
            panic!("{what}: {} failure(s)\n\n{}", failures.len(), failures.join("\n\n"));
        }
    }

    /// Every run and round-trip file parses and verifies with xcc-ir.
    #[test]
    fn run_and_roundtrip_files_parse_and_verify() {
        let mut failures = Vec::new();
        let mut n = 0;
        for sub in ["run", "roundtrip"] {
            for f in files_in(sub, "mlir") {
                n += 1;
                let name = format!("{sub}/{}", file_name(&f));
                if let Err(e) = parse_and_verify(&name, &read(&f)) {
                    failures.push(e);
                }
            }
        }
        assert!(n > 0, "no test files found");
        finish("parse+verify", failures);
    }

    /// Each run file has either `// run:` lines whose functions exist with scalar signatures, or a
    /// hand-written harness and `// stdout:` lines; harnesses compile.
    #[test]
    fn run_files_have_well_formed_expectations() {
        let dir = fresh_dir(&work_root("self-check").join("harness"));
        let cc = find_tool("cc").expect("a C compiler, cc (scripts/setup.sh installs one)");
        let mut failures = Vec::new();
        for f in files_in("run", "mlir") {
            let name = file_name(&f);
            let text = read(&f);
            let Ok(module) = parse_and_verify(&name, &text) else { continue };
            let hand = f.with_extension("c");
            let calls = match run_calls(&text) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            let stdout = directives(&text, "stdout");
            let harness = if hand.is_file() {
                if stdout.is_empty() {
                    failures.push(format!("{name}: has {} but no `// stdout:` lines", file_name(&hand)));
                }
                if !calls.is_empty() {
                    failures.push(format!("{name}: has both a C harness and `// run:` lines"));
                }
                hand.clone()
            } else {
                if calls.is_empty() {
                    failures.push(format!("{name}: no `// run:` lines and no {}", file_name(&hand)));
                    continue;
                }
                if !stdout.is_empty() {
                    failures.push(format!("{name}: `// stdout:` lines need a hand-written harness"));
                }
                match generate_harness(&module, &calls) {
                    Ok(c) => {
                        let p = dir.join(format!("{}.c", file_stem(&f)));
                        std::fs::write(&p, c).unwrap();
                        p
                    }
                    Err(e) => {
                        failures.push(format!("{name}: {e}"));
                        continue;
                    }
                }
            };
            if has_flag(&text, "differential") && (text.contains("dma_start") || text.contains("dma_wait")) {
                failures.push(format!("{name}: a differential file cannot use xcc-only operations (dma)"));
            }
            let o = run_command(
                Command::new(&cc)
                    .args([
                        "-std=gnu11",
                        "-fsyntax-only",
                        "-fno-builtin",
                        "-Wall",
                        "-Werror=implicit-function-declaration",
                    ])
                    .arg(&harness),
                compile_timeout(),
            );
            if !o.success() {
                failures.push(format!("{name}: the harness {} does not compile: {}", harness.display(), o.summary()));
            }
        }
        finish("run-file expectations", failures);
    }

    /// Each error file is rejected by the parser or verifier at the line and column it names, with
    /// its message, unless it says `// stage: driver` (an error found after verification).
    #[test]
    fn error_files_fail_where_they_say() {
        let mut failures = Vec::new();
        let files = files_in("errors", "mlir");
        for f in &files {
            let name = format!("errors/{}", file_name(f));
            let text = read(f);
            let (line, col, msg) = match error_expectation(&text) {
                Ok(x) => x,
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            };
            if has_flag(&text, "stage: driver") {
                continue;
            }
            match parse_and_verify(&name, &text) {
                Ok(_) => failures.push(format!("{name}: parses and verifies, but expects `{line}:{col}: {msg}`")),
                Err(rendered) => {
                    let want = format!("{name}:{line}:{col}: error:");
                    if !rendered.contains(&want) || !rendered.contains(&msg) {
                        failures.push(format!("{name}: expected `{want}` and `{msg}`, got:\n{rendered}"));
                    }
                }
            }
        }
        assert!(!files.is_empty() || std::env::var("XCC_TEST_FILTER").is_ok(), "no error files found");
        finish("error files", failures);
    }

    /// Printing a round-trip file and parsing and printing it again gives the same text.
    #[test]
    fn roundtrip_files_print_stably_in_process() {
        let mut failures = Vec::new();
        for f in files_in("roundtrip", "mlir") {
            let name = format!("roundtrip/{}", file_name(&f));
            let Ok(m) = parse_and_verify(&name, &read(&f)) else { continue };
            let a = xcc_ir::printer::print_module(&m);
            match parse_and_verify(&format!("{name} (printed)"), &a) {
                Ok(m2) => {
                    let b = xcc_ir::printer::print_module(&m2);
                    if a != b {
                        failures.push(format!("{name}: the second print differs:\n--- first\n{a}\n--- second\n{b}"));
                    }
                }
                Err(e) => {
                    failures.push(format!("{name}: the printed text does not parse back:\n{e}\n--- printed\n{a}"))
                }
            }
        }
        finish("in-process round trip", failures);
    }

    /// Without xcc: compiles the `// differential` run files with upstream MLIR and checks the
    /// expectations, which validates the hand-computed values. Run with `--ignored`.
    #[test]
    #[ignore]
    fn differential_files_pass_with_upstream_alone() {
        // Asked for explicitly (`--ignored`): without the tools it fails rather than pass unrun.
        assert!(upstream_tools().is_some(), "cannot run: mlir-opt-22, mlir-translate-22 or llc-22 not found");
        let files: Vec<PathBuf> =
            files_in("run", "mlir").into_iter().filter(|f| has_flag(&read(f), "differential")).collect();
        let results = parallel_map(&files, workers(), |f| {
            let name = file_name(f);
            let text = read(f);
            let dir = fresh_dir(&work_root("self-check").join("upstream").join(file_stem(f)));
            let r = (|| -> Result<(), String> {
                let module = parse_and_verify(&name, &text)?;
                let calls = run_calls(&text)?;
                let hand = f.with_extension("c");
                let harness = if hand.is_file() {
                    hand
                } else {
                    let p = dir.join("harness.c");
                    std::fs::write(&p, generate_harness(&module, &calls)?).unwrap();
                    p
                };
                let obj = upstream_object(f, &dir)?;
                let prog = dir.join("prog");
                link_c("cc", &harness, &[&obj], &prog)?;
                let o = run_command(&mut Command::new(&prog), run_timeout());
                if !o.success() {
                    return Err(format!("the program failed: {}", o.summary()));
                }
                if calls.is_empty() {
                    check_stdout_lines(&directives(&text, "stdout"), &o.stdout)
                } else {
                    check_run_output(&module, &calls, &o.stdout)
                }
            })();
            (name, r.map(|_| Vec::new()).map_err(|e| vec![e]))
        });
        report("upstream-only", &results);
    }
}
