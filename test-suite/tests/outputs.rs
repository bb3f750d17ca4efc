//! Where outputs go. A regular file is replaced atomically (a temporary file renamed into
//! place); a stream that already exists, such as `/dev/null` or a named pipe, is written in place
//! and keeps its kind (renaming over `/dev/null` as root once turned it into a regular file that
//! every later `> /dev/null` filled, and cargo fed that to rustc). A stream gets no header beside
//! it. The oracle for the bytes is the same compile written to a regular file.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;
use xcc_test_suite::onnx_build::{model, node, value, FLOAT};
use xcc_test_suite::{find_tool, fresh_dir, suite_dir, work_root, xcc_binary};

/// Runs xcc with `-o pipe` while a thread reads the pipe, and returns what it read. The reader
/// is abandoned if xcc never opens the pipe (a test failure, not a hang).
fn compile_into_pipe(pipe: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let (tx, rx) = mpsc::channel();
    let reader = pipe.to_path_buf();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read(&reader));
    });
    let out = Command::new(xcc_binary()).args(args).arg("-o").arg(pipe).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("xcc {args:?} -o pipe failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let read =
        rx.recv_timeout(Duration::from_secs(60)).map_err(|_| "xcc exited without writing the pipe".to_string())?;
    read.map_err(|e| format!("reading the pipe: {e}"))
}

/// Compiles `args` to a regular file `name` in `dir` and returns its bytes.
fn compile_into_file(dir: &Path, name: &str, args: &[&str]) -> Result<Vec<u8>, String> {
    let path = dir.join(name);
    let out = Command::new(xcc_binary()).args(args).arg("-o").arg(&path).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("xcc {args:?} -o {name} failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::read(&path).map_err(|e| e.to_string())
}

/// A fresh directory holding one named pipe, `out`.
fn pipe_in(dir: &Path) -> Result<PathBuf, String> {
    let pipe = fresh_dir(dir).join("out");
    let st = Command::new("mkfifo").arg(&pipe).status().map_err(|e| e.to_string())?;
    if !st.success() {
        return Err("mkfifo failed".into());
    }
    Ok(pipe)
}

/// After writing, the pipe is still a pipe and nothing else appeared beside it (no temporary
/// file, no header).
fn pipe_untouched(pipe: &Path) -> Result<(), String> {
    let kind = std::fs::symlink_metadata(pipe).map_err(|e| e.to_string())?.file_type();
    if !kind.is_fifo() {
        return Err(format!("{} is no longer a named pipe ({kind:?})", pipe.display()));
    }
    let names: Vec<String> = std::fs::read_dir(pipe.parent().unwrap())
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    if names != ["out"] {
        return Err(format!("beside the pipe: {names:?} (only 'out' should be there)"));
    }
    Ok(())
}

fn mlir_into_pipe(work: &Path) -> Result<(), String> {
    let input = suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir");
    let input = input.to_str().unwrap();
    let pipe = pipe_in(&work.join("pipe"))?;
    let got = compile_into_pipe(&pipe, &[input, "--emit=llvm"])?;
    pipe_untouched(&pipe)?;
    let want = compile_into_file(&fresh_dir(&work.join("file")), "m.ll", &[input, "--emit=llvm"])?;
    if got != want || got.is_empty() {
        return Err(format!("the pipe got {} bytes, a file {} bytes, and they differ", got.len(), want.len()));
    }
    Ok(())
}

fn model_into_pipe(work: &Path) -> Result<(), String> {
    let onnx = fresh_dir(&work.join("model")).join("relu.onnx");
    let bytes = model(
        vec![node("relu0", "Relu", &["x"], &["y"])],
        vec![value("x", FLOAT, &[4])],
        vec![value("y", FLOAT, &[4])],
        vec![],
    );
    std::fs::write(&onnx, bytes).map_err(|e| e.to_string())?;
    let onnx = onnx.to_str().unwrap();
    let pipe = pipe_in(&work.join("pipe"))?;
    let got = compile_into_pipe(&pipe, &[onnx, "--emit=lib", "--name=relu"])?;
    pipe_untouched(&pipe)?;
    let file_dir = fresh_dir(&work.join("file"));
    let want = compile_into_file(&file_dir, "librelu.a", &[onnx, "--emit=lib", "--name=relu"])?;
    if got != want || !got.starts_with(b"!<arch>\n") {
        return Err(format!("the pipe got {} bytes, a file {} bytes, and they differ", got.len(), want.len()));
    }
    if !file_dir.join("relu.h").exists() {
        return Err("a library written to a file has no header beside it".into());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let work = work_root("outputs");
    let no_mkfifo = find_tool("mkfifo").is_none();
    if no_mkfifo {
        println!("skipped: outputs/* (mkfifo is not installed)");
    }
    let (w1, w2) = (work.join("mlir"), work.join("onnx"));
    let trials = vec![
        libtest_mimic::Trial::test("outputs/mlir-into-a-named-pipe", move || Ok(mlir_into_pipe(&w1)?))
            .with_ignored_flag(no_mkfifo),
        libtest_mimic::Trial::test("outputs/model-library-into-a-named-pipe", move || Ok(model_into_pipe(&w2)?))
            .with_ignored_flag(no_mkfifo),
    ];
    xcc_test_suite::run_trials(trials)
}
