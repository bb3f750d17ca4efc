//! A short fuzz run in the test command: each target of `fuzz/` (cargo-fuzz and libFuzzer) runs
//! from its seed corpus for a fixed number of inputs with a fixed seed, through
//! `scripts/fuzz.sh`, after replaying `fuzz/regressions/` and, for `onnx_model`, the edge sweep
//! of the node-test models (`fuzz/seeds/edge_sweep.py`). A panic, an abort, a hang
//! (60 s for one input) or an allocation over 2 GiB fails the test and leaves a reproducer in
//! `fuzz/artifacts/TARGET/`. Longer campaigns: `scripts/fuzz.sh --time SECONDS`
//! (docs/testing.md, "Fuzzing"). Skipped, and said so, where cargo-fuzz cannot be installed.

use libtest_mimic::Trial;
use std::process::Command;
use std::time::Duration;
use xcc_test_suite::{run_command, run_trials, suite_dir, Breadth};

/// Inputs per target in the test command: seconds each, enough to pass every seed and mutate
/// them; the campaigns reported in docs/testing.md run 10^6 and more.
const RUNS: &str = "20000";

fn cargo_fuzz_available() -> bool {
    Command::new("cargo").args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success())
}

fn fuzz(target: &str) -> Result<(), libtest_mimic::Failed> {
    let repo = suite_dir().parent().expect("test-suite/ has a parent").to_path_buf();
    let o = run_command(
        Command::new("bash").arg(repo.join("scripts/fuzz.sh")).args(["--runs", RUNS, "--seed", "1", target]),
        Duration::from_secs(1200),
    );
    print!("{}", o.stdout);
    if o.success() {
        Ok(())
    } else {
        Err(format!("{}\n{}", o.summary(), o.stdout).into())
    }
}

fn main() -> std::process::ExitCode {
    let available = cargo_fuzz_available();
    if !available {
        println!("skipped: cargo-fuzz is not installed (scripts/setup.sh installs it from crates.io)");
    }
    // The fuzz build (a release build of the frontends) is the README's test command's largest
    // single cost: the command leaves the runs to CI's fuller one (scripts/test-full.sh).
    let deferred = Breadth::from_env() == Breadth::Sample;
    if deferred {
        println!("skipped: the fuzz runs (XCC_TEST_BREADTH=sample: scripts/test-full.sh runs them)");
    }
    let trials = ["mlir_text", "onnx_model"]
        .into_iter()
        .map(|t| Trial::test(format!("fuzz/{t}"), move || fuzz(t)).with_ignored_flag(!available || deferred))
        .collect();
    run_trials(trials)
}
