//! `scripts/install.sh` and what it installs: the man pages (every option of `--help` documented),
//! shell completions that complete (bash's run in bash), the runtime through pkg-config, and the
//! CMake package: `examples/cmake` configured against the installed prefix, built, run against
//! ONNX Runtime's output (`examples/tiny_cnn/make_model.py` writes both), rebuilt with nothing
//! to do, recompiled when the model changes, and cross-built for aarch64 and run under qemu.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use xcc_test_suite::onnx_build::relu_model;
use xcc_test_suite::{
    find_tool, fresh_dir, run_command, run_timeout, run_trials_then_discard, suite_dir, work_root, xcc_binary,
};

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

/// Runs `cmd` and returns its standard output, or an error naming `what` with what it printed.
fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = run_command(cmd, run_timeout());
    if !out.success() {
        return Err(format!("{what}: {}", out.summary()));
    }
    Ok(out.stdout)
}

/// xcc installed once, with the binary under test, into `work/prefix`.
fn prefix(work: &Path) -> Result<PathBuf, String> {
    static PREFIX: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PREFIX
        .get_or_init(|| {
            let prefix = fresh_dir(&work.join("prefix"));
            let mut install = Command::new("bash");
            install.arg(repo().join("scripts/install.sh")).arg(&prefix).env("XCC_BIN", xcc_binary());
            run(&mut install, "scripts/install.sh")?;
            Ok(prefix)
        })
        .clone()
}

/// The long options `xcc --help` lists.
fn help_options(args: &[&str]) -> Result<Vec<String>, String> {
    let help = run(Command::new(xcc_binary()).args(args), "xcc --help")?;
    let mut options: Vec<String> = help
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("--"))
        .map(|w| w.trim_end_matches([',', '.', ')']).split(['=', '[', '<']).next().unwrap_or("").to_string())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    options.sort();
    options.dedup();
    // `--help` itself, and the compile's options: a parse that found none would check nothing.
    if !options.iter().any(|o| o == "help") || options.len() < 3 {
        return Err(format!("xcc {args:?} lists too few options to check: {options:?}"));
    }
    Ok(options)
}

/// Each man page documents every long option its command's `--help` lists (roff spells `-` as `\-`).
fn man_pages(work: &Path) -> Result<(), String> {
    let man = prefix(work)?.join("share/man/man1");
    for (page, args) in [("xcc.1", vec!["--help"]), ("xcc-inspect.1", vec!["inspect", "--help"])] {
        let text = std::fs::read_to_string(man.join(page)).map_err(|e| format!("{page}: {e}"))?;
        let name = page.trim_end_matches(".1");
        if !text.contains(&format!(".TH {name} 1")) {
            return Err(format!("{page} has no .TH {name} 1 header"));
        }
        for option in help_options(&args)? {
            if !text.contains(&format!("\\-\\-{}", option.replace('-', "\\-"))) {
                return Err(format!("{page} does not document --{option}"));
            }
        }
    }
    let runtime = std::fs::read_to_string(man.join("xcc-runtime.1")).map_err(|e| e.to_string())?;
    if !runtime.contains("\\-\\-target") {
        return Err("xcc-runtime.1 does not document --target".into());
    }
    Ok(())
}

/// Bash's completion, sourced and called as bash calls it, completes options, their values and
/// the subcommands; the zsh and fish scripts parse in their shells where installed.
fn completions(work: &Path) -> Result<(), String> {
    let prefix = prefix(work)?;
    let script = prefix.join("share/bash-completion/completions/xcc");
    let complete = |words: &str| -> Result<String, String> {
        let program = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _xcc xcc \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[*]}}\"",
            script.display()
        );
        run(Command::new("bash").args(["-c", &program]), &format!("completing {words}"))
    };
    for (words, want) in [
        ("xcc --ta", "--target"),
        ("xcc model.onnx --emit ''", "mlir-llvm"),
        ("xcc insp", "inspect"),
        ("xcc r", "runtime"),
    ] {
        let got = complete(words)?;
        if !got.split_whitespace().any(|w| w == want) {
            return Err(format!("bash completes '{words}' to '{}', without {want}", got.trim()));
        }
    }
    for (shell, file) in
        [("zsh", "share/zsh/site-functions/_xcc"), ("fish", "share/fish/vendor_completions.d/xcc.fish")]
    {
        match find_tool(shell) {
            Some(_) => run(Command::new(shell).arg("-n").arg(prefix.join(file)), &format!("{shell} -n")).map(|_| ())?,
            None => println!("{shell} is not installed: its completion script is not parsed"),
        }
    }
    Ok(())
}

/// An object xcc wrote links with the installed runtime through pkg-config, and runs.
fn pkg_config_runtime(work: &Path) -> Result<(), String> {
    let prefix = prefix(work)?;
    let dir = fresh_dir(&work.join("pkg-config"));
    std::fs::write(dir.join("relu.onnx"), relu_model(5)).map_err(|e| e.to_string())?;
    run(Command::new(xcc_binary()).current_dir(&dir).args(["relu.onnx", "-o", "relu.o"]), "xcc -o relu.o")?;
    let program = "#include \"relu.h\"\n#include \"xcc_runtime.h\"\n#include <stdio.h>\n\
                   int main(void) {\n  float x[5] = {-2, -0.5f, 0, 0.5f, 2}, y[5];\n  \
                   if (relu_run(x, y, NULL) != XCC_OK) return 1;\n  \
                   for (int i = 0; i < 5; i++) if (y[i] != (x[i] > 0 ? x[i] : 0)) return 1;\n  \
                   xcc_threadpool_destroy(xcc_threadpool_create(2));\n  printf(\"ok\\n\");\n  return 0;\n}\n";
    std::fs::write(dir.join("app.c"), program).map_err(|e| e.to_string())?;
    let mut flags = Command::new("pkg-config");
    flags.env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")).args(["--cflags", "--libs", "--static", "xcc-runtime"]);
    let flags = run(&mut flags, "pkg-config xcc-runtime")?;
    let mut link = Command::new("cc");
    link.current_dir(&dir).args(["-I", ".", "app.c", "relu.o"]).args(flags.split_whitespace());
    run(link.args(["-o", "app"]), "cc app.c relu.o $(pkg-config --libs xcc-runtime)")?;
    let out = run(&mut Command::new(dir.join("app")), "the program")?;
    if out.trim() != "ok" {
        return Err(format!("the program printed {out}"));
    }
    Ok(())
}

/// The tiny CNN and ONNX Runtime's output for its input, in `dir`.
fn tiny_cnn(dir: &Path) -> Result<(), String> {
    let python = repo().join(".venv/bin/python");
    run(Command::new(python).arg(repo().join("examples/tiny_cnn/make_model.py")).arg(dir), "make_model.py").map(|_| ())
}

fn configure(work: &Path, build: &Path, model: &Path, extra: &[String]) -> Result<(), String> {
    let mut cmake = Command::new("cmake");
    cmake.arg("-S").arg(repo().join("examples/cmake")).arg("-B").arg(build);
    cmake.arg(format!("-DCMAKE_PREFIX_PATH={}", prefix(work)?.display()));
    cmake.arg(format!("-DMODEL={}", model.display())).args(extra);
    run(&mut cmake, "cmake configure").map(|_| ())
}

/// How many times a build ran xcc (its custom command's comment).
fn build(build: &Path) -> Result<usize, String> {
    let out = run(Command::new("cmake").arg("--build").arg(build), "cmake --build")?;
    Ok(out.matches("xcc: compiling").count())
}

fn classify(runner: &[&str], exe: &Path, dir: &Path) -> Result<(), String> {
    let mut cmd = Command::new(if runner.is_empty() { exe.as_os_str() } else { runner[0].as_ref() });
    if !runner.is_empty() {
        cmd.args(&runner[1..]).arg(exe);
    }
    let out = run(cmd.arg(dir.join("input.bin")).arg(dir.join("expected.bin")), "classify")?;
    if !out.contains("(ok)") {
        return Err(format!("classify against ONNX Runtime:\n{out}"));
    }
    Ok(())
}

/// The example, native: built, run, rebuilt with nothing to do, and recompiled after the model
/// changes.
fn cmake_example(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(&work.join("cmake-native"));
    tiny_cnn(&dir)?;
    let (model, out) = (dir.join("tiny_cnn.onnx"), dir.join("build"));
    configure(work, &out, &model, &[])?;
    if build(&out)? != 1 {
        return Err("the first build did not compile the model once".into());
    }
    classify(&[], &out.join("classify"), &dir)?;
    if build(&out)? != 0 {
        return Err("a build with nothing changed compiled the model again".into());
    }
    let bytes = std::fs::read(&model).map_err(|e| e.to_string())?;
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&model, bytes).map_err(|e| e.to_string())?;
    if build(&out)? != 1 {
        return Err("a build after the model changed did not compile it again".into());
    }
    classify(&[], &out.join("classify"), &dir)
}

/// The example cross-built with the aarch64 toolchain file, run under qemu.
fn cmake_example_aarch64(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(&work.join("cmake-aarch64"));
    tiny_cnn(&dir)?;
    let (model, out) = (dir.join("tiny_cnn.onnx"), dir.join("build"));
    let toolchain = repo().join("examples/cmake/aarch64-linux-gnu.cmake");
    configure(work, &out, &model, &[format!("-DCMAKE_TOOLCHAIN_FILE={}", toolchain.display())])?;
    build(&out)?;
    // ELF's e_machine, at byte 18: 183 is AArch64.
    let exe = std::fs::read(out.join("classify")).map_err(|e| e.to_string())?;
    if exe.get(18..20) != Some(&183u16.to_le_bytes()[..]) {
        return Err("the cross build is not an AArch64 executable".into());
    }
    classify(&["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"], &out.join("classify"), &dir)
}

fn main() -> std::process::ExitCode {
    let work = work_root("install");
    let no_cmake = find_tool("cmake").is_none() || !repo().join(".venv/bin/python").exists();
    let no_cross = no_cmake || find_tool("aarch64-linux-gnu-gcc").is_none() || find_tool("qemu-aarch64").is_none();
    let no_pkg_config = find_tool("pkg-config").is_none();
    if no_cmake {
        println!("skipped: install/cmake-* (cmake or the venv is missing: run scripts/setup.sh)");
    } else if no_cross {
        println!("skipped: install/cmake-example-aarch64 (aarch64-linux-gnu-gcc or qemu-aarch64 is missing)");
    }
    if no_pkg_config {
        println!("skipped: install/pkg-config-runtime (pkg-config is not installed)");
    }
    let trial = |name: &str, f: fn(&Path) -> Result<(), String>| {
        let work = work.clone();
        Trial::test(name, move || Ok(f(&work)?))
    };
    let scratch = [work.clone()];
    run_trials_then_discard(
        vec![
            trial("install/man-pages", man_pages),
            trial("install/completions", completions),
            trial("install/pkg-config-runtime", pkg_config_runtime).with_ignored_flag(no_pkg_config),
            trial("install/cmake-example", cmake_example).with_ignored_flag(no_cmake),
            trial("install/cmake-example-aarch64", cmake_example_aarch64).with_ignored_flag(no_cross),
        ],
        &scratch,
    )
}
