//! Where outputs go. A regular file is replaced atomically (a temporary file renamed into
//! place); a stream that already exists, such as `/dev/null` or a named pipe, is written in place
//! and keeps its kind (renaming over `/dev/null` as root once turned it into a regular file that
//! every later `> /dev/null` filled, and cargo fed that to rustc). A stream gets no header beside
//! it. The oracle for the bytes is the same compile written to a regular file. Files get 0666
//! less the umask; an input's language comes from `-x`, its extension or its content; a missing
//! output directory is refused before compiling; a header compiles in C and C++ whatever the
//! tensors are named, and declares an output listed twice once.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;
use xcc_test_suite::onnx_build::{model, node, relu_model, symbolic, value, FLOAT};
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
    let bytes = relu_model(4);
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

/// A one-node model, written to `dir/name`.
fn write_relu_model(dir: &Path, name: &str) -> PathBuf {
    let path = fresh_dir(dir).join(name);
    let bytes = relu_model(4);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Outputs get a compiler's permissions, 0666 less the umask (0644 under umask 022, 0600
/// under 077), the library and its header alike, not a temporary file's 0600.
fn outputs_follow_the_umask(work: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let onnx = write_relu_model(&work.join("model"), "relu.onnx");
    for (umask, want) in [("022", 0o644), ("077", 0o600)] {
        let dir = fresh_dir(&work.join(umask));
        let lib = dir.join("librelu.a");
        let script = format!("umask {umask} && exec \"$0\" \"$1\" -o \"$2\"");
        let out = Command::new("sh")
            .args(["-c", &script])
            .arg(xcc_binary())
            .arg(&onnx)
            .arg(&lib)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("umask {umask}: xcc failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        for file in [lib, dir.join("relu.h")] {
            let mode = std::fs::metadata(&file).map_err(|e| e.to_string())?.permissions().mode() & 0o777;
            if mode != want {
                return Err(format!("umask {umask}: {} has mode {mode:o}, expected {want:o}", file.display()));
            }
        }
    }
    Ok(())
}

/// The input's language comes from `-x`, else the extension, else the content: a model named
/// `model.pb` compiles as ONNX and MLIR in `matmul.txt` as MLIR (each giving the bytes its
/// usual name gives), and `-x mlir` forces a model to be read as MLIR text (refused at its first byte).
fn inputs_are_told_apart_by_content(work: &Path) -> Result<(), String> {
    let onnx = write_relu_model(&work.join("model"), "relu.onnx");
    let pb = onnx.with_file_name("relu.pb");
    std::fs::copy(&onnx, &pb).map_err(|e| e.to_string())?;
    let (onnx, pb) = (onnx.to_str().unwrap(), pb.to_str().unwrap());
    let want = compile_into_file(&fresh_dir(&work.join("by-name")), "librelu.a", &[onnx])?;
    let got = compile_into_file(&fresh_dir(&work.join("by-content")), "librelu.a", &[pb])?;
    if got != want {
        return Err("relu.pb did not compile to the library relu.onnx does".into());
    }
    let mlir = suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir");
    // The same stem: the module takes its name from it.
    let txt = fresh_dir(&work.join("text")).join("matmul.txt");
    std::fs::copy(&mlir, &txt).map_err(|e| e.to_string())?;
    let want = compile_into_file(&fresh_dir(&work.join("mlir")), "k.ll", &[mlir.to_str().unwrap()])?;
    let got = compile_into_file(&fresh_dir(&work.join("txt")), "k.ll", &[txt.to_str().unwrap()])?;
    if got != want {
        return Err("matmul.txt did not compile to the IR matmul.mlir does".into());
    }
    let forced = Command::new(xcc_binary()).args([pb, "-x", "mlir", "-o"]).arg(work.join("forced.ll")).output();
    let forced = forced.map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&forced.stderr);
    // Read as MLIR, the model's first byte is no token (or its bytes are no text).
    let at_start = format!("{pb}:1:1: error");
    if forced.status.success() || !(stderr.contains(&at_start) || stderr.contains("is not UTF-8 text")) {
        return Err(format!("-x mlir on a model: expected an MLIR error at {pb}:1:1, got: {stderr}"));
    }
    Ok(())
}

/// An output directory that does not exist is refused before compiling, with a message naming
/// it (no temporary file's name), and nothing is written.
fn missing_output_directory(work: &Path) -> Result<(), String> {
    let onnx = write_relu_model(&work.join("model"), "relu.onnx");
    let out = work.join("absent/librelu.a");
    let run = Command::new(xcc_binary()).arg(&onnx).arg("-o").arg(&out).output().map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    let named = format!("the directory {} does not exist", work.join("absent").display());
    if run.status.success() || !stderr.contains(&named) || stderr.contains(".tmp") {
        return Err(format!("expected an error naming the missing directory, got: {stderr}"));
    }
    if work.join("absent").exists() {
        return Err("the missing directory was created".into());
    }
    // An output that is a directory, and one under a file, are refused before compiling too.
    let directory = work.join("directory.a");
    std::fs::create_dir_all(&directory).map_err(|e| e.to_string())?;
    let cases = [
        (directory, "it is a directory".to_string()),
        (onnx.join("x.a"), format!("{} is not a directory", onnx.display())),
    ];
    for (out, why) in cases {
        let run = Command::new(xcc_binary()).arg(&onnx).arg("-o").arg(&out).output().map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&run.stderr);
        if run.status.success() || !stderr.contains(&format!("cannot write {}: {why}", out.display())) {
            return Err(format!("-o {}: expected '{why}', got: {stderr}", out.display()));
        }
    }
    Ok(())
}

/// A program over a model whose tensor names are no C identifiers: `int` (a keyword), `a-b`
/// and `a_b` (one identifier apart from numbering), `x"y*/z` (which would end a comment and a
/// string). `y = Relu(int + a-b)`, with the sum `a_b` an output too.
const ODD_NAMES_PROGRAM: &str = r#"#include "odd.h"
#include <stdio.h>
#include <string.h>
int main(void) {
  const float in1[3] = {1.0f, -5.0f, 2.5f}, in2[3] = {2.0f, 1.0f, -0.5f};
  float relu[3] = {0}, sum[3] = {0};
  if (odd_run(in1, in2, relu, sum, NULL) != XCC_OK) return 1;
  for (int k = 0; k < 3; k++) {
    float s = in1[k] + in2[k];
    if (sum[k] != s || relu[k] != (s > 0 ? s : 0.0f)) { printf("element %d: %g %g\n", k, relu[k], sum[k]); return 1; }
  }
  if (strcmp(ODD_OUTPUT0_NAME, "x\"y*/z") != 0 || strcmp(ODD_INPUT0_NAME, "int") != 0) { printf("names\n"); return 1; }
  printf("ok\n");
  return 0;
}
"#;

/// A header compiles for any tensor names, in C and in C++, and its names read back as the
/// model's: C keywords get a suffix, colliding identifiers a number, and `*/` and quotes are
/// escaped in comments and strings.
fn headers_for_odd_names(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    let onnx = dir.join("odd.onnx");
    let odd = "x\"y*/z";
    let bytes = model(
        vec![node("add0", "Add", &["int", "a-b"], &["a_b"]), node("relu0", "Relu", &["a_b"], &[odd])],
        vec![value("int", FLOAT, &[3]), value("a-b", FLOAT, &[3])],
        vec![value(odd, FLOAT, &[3]), value("a_b", FLOAT, &[3])],
        vec![],
    );
    std::fs::write(&onnx, bytes).map_err(|e| e.to_string())?;
    compile_into_file(&dir, "libodd.a", &[onnx.to_str().unwrap()])?;
    for (compiler, file) in [("cc", "odd.c"), ("c++", "odd.cpp")] {
        build_and_run(&dir, compiler, file, ODD_NAMES_PROGRAM, "libodd.a")?;
    }
    Ok(())
}

/// Names a C program may already use, or that C reserves, as a tensor's and as a dim's name: `{P}`
/// stands for the model's macro prefix (`M3_NUM_INPUTS` for model `m3`).
const HOSTILE_NAMES: &[&str] = &[
    "linux",
    "unix",
    "i386",
    "NULL",
    "EOF",
    "errno",
    "INT64_MAX",
    "UINT8_MAX",
    "SIZE_MAX",
    "INT8_C",
    "__LINE__",
    "__FILE__",
    "_Pragma",
    "__cplusplus",
    "_Bool",
    "_Static_assert",
    "xcc_run_options",
    "XCC_OK",
    "{P}_NUM_INPUTS",
    "{P}_INPUT0_SIZE",
    "{P}_WORKSPACE_SIZE",
    "{P}_NUM_DIMS",
    "{P}_DIM0_NAME",
    "dims",
    "workspace",
    "options",
    "int64_t",
    "size_t",
    "uint8_t",
    "bool",
    "true",
    "false",
    "int",
    "class",
    "restrict",
    "x",
    "a-b",
];

/// Each of [`HOSTILE_NAMES`] as an input's name and its dim's, and as a dim's and an output's
/// name: every header compiles, all of them in one translation unit, as strict C11, GNU C11 and
/// C++17 with `-Wall -Werror` (and `-pedantic` for C), with each C compiler found (gcc, clang).
fn hostile_names_compile(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    let mut includes = String::new();
    for (i, raw) in HOSTILE_NAMES.iter().enumerate() {
        for (kind, tensor_named) in [("t", true), ("d", false)] {
            let model_name = format!("m{kind}{i}");
            let name = raw.replace("{P}", &model_name.to_uppercase());
            let (input, output) =
                if tensor_named { (name.clone(), "y".to_string()) } else { ("x_in".into(), name.clone()) };
            let relu = vec![node("relu0", "Relu", &[input.as_str()], &[output.as_str()])];
            let bytes =
                model(relu, vec![symbolic(&input, FLOAT, &[&name])], vec![symbolic(&output, FLOAT, &[&name])], vec![]);
            let onnx = dir.join(format!("{model_name}.onnx"));
            std::fs::write(&onnx, bytes).map_err(|e| e.to_string())?;
            let lib = format!("lib{model_name}.a");
            compile_into_file(&dir, &lib, &[onnx.to_str().unwrap(), "--name", &model_name])?;
            includes += &format!("#include \"{model_name}.h\"\n");
        }
    }
    let program = format!("{includes}int main(void) {{ return 0; }}\n");
    std::fs::write(dir.join("all.c"), &program).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("all.cpp"), &program).map_err(|e| e.to_string())?;
    let mut modes: Vec<(&str, Vec<&str>, &str)> = Vec::new();
    for cc in ["gcc", "clang-22"] {
        if find_tool(cc).is_none() {
            println!("skipped: the headers under {cc} ({cc} is not installed)");
            continue;
        }
        modes.push((cc, vec!["-std=c11", "-pedantic"], "all.c"));
        modes.push((cc, vec!["-std=gnu11"], "all.c"));
    }
    modes.push(("c++", vec!["-std=c++17"], "all.cpp"));
    for (compiler, flags, file) in modes {
        let out = Command::new(compiler)
            .args(&flags)
            .args(["-Wall", "-Werror", "-fsyntax-only", "-I"])
            .arg(&dir)
            .arg(dir.join(file))
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            let errors = String::from_utf8_lossy(&out.stderr);
            let first: Vec<&str> = errors.lines().take(6).collect();
            return Err(format!("{compiler} {flags:?}: the headers do not compile:\n{}", first.join("\n")));
        }
    }
    Ok(())
}

/// Writes `program` to `dir/file`, builds it with `compiler` against `dir`'s header and `lib`
/// (warnings are errors), runs it, and expects it to print `ok`.
fn build_and_run(dir: &Path, compiler: &str, file: &str, program: &str, lib: &str) -> Result<(), String> {
    let source = dir.join(file);
    std::fs::write(&source, program).map_err(|e| e.to_string())?;
    let exe = dir.join(format!("{file}.{compiler}.exe"));
    let built = Command::new(compiler)
        .args(["-Wall", "-Werror", "-I"])
        .arg(dir)
        .arg(&source)
        .arg(dir.join(lib))
        .args(["-lm", "-lpthread", "-o"])
        .arg(&exe)
        .output()
        .map_err(|e| e.to_string())?;
    if !built.status.success() {
        return Err(format!("{compiler}: the header does not fit:\n{}", String::from_utf8_lossy(&built.stderr)));
    }
    let ran = Command::new(&exe).output().map_err(|e| e.to_string())?;
    if String::from_utf8_lossy(&ran.stdout).trim() != "ok" {
        return Err(format!("{compiler}: {}", String::from_utf8_lossy(&ran.stdout)));
    }
    Ok(())
}

/// A program over `y = Relu(x)` whose outputs are `y`, the input `x`, and `y` again: one
/// pointer for `y`, and the input's copy in `x_2`.
const PASSTHROUGH_PROGRAM: &str = r#"#include "pass.h"
#include <stdio.h>
int main(void) {
  const float x[2] = {-1.5f, 2.0f};
  float y[2] = {9, 9}, copy[2] = {9, 9};
  if (PASS_NUM_OUTPUTS != 2 || pass_run(x, y, copy, NULL) != XCC_OK) return 1;
  if (y[0] != 0.0f || y[1] != 2.0f || copy[0] != -1.5f || copy[1] != 2.0f) {
    printf("y = %g %g, copy = %g %g\n", y[0], y[1], copy[0], copy[1]);
    return 1;
  }
  printf("ok\n");
  return 0;
}
"#;

/// An output listed twice is declared once, and an output that is an input gets its own
/// pointer holding the input's copy: the program above builds against the header and runs.
fn outputs_listed_twice(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    let onnx = dir.join("pass.onnx");
    let bytes = model(
        vec![node("relu0", "Relu", &["x"], &["y"])],
        vec![value("x", FLOAT, &[2])],
        vec![value("y", FLOAT, &[2]), value("x", FLOAT, &[2]), value("y", FLOAT, &[2])],
        vec![],
    );
    std::fs::write(&onnx, bytes).map_err(|e| e.to_string())?;
    compile_into_file(&dir, "libpass.a", &[onnx.to_str().unwrap()])?;
    build_and_run(&dir, "cc", "pass.c", PASSTHROUGH_PROGRAM, "libpass.a")
}

fn main() -> std::process::ExitCode {
    let work = work_root("outputs");
    let no_mkfifo = find_tool("mkfifo").is_none();
    if no_mkfifo {
        println!("skipped: outputs/* (mkfifo is not installed)");
    }
    let (w1, w2, w3, w4, w5) =
        (work.join("mlir"), work.join("onnx"), work.join("umask"), work.join("language"), work.join("missing"));
    let (w6, w7, w8) = (work.join("odd-names"), work.join("listed-twice"), work.join("hostile-names"));
    let trials = vec![
        libtest_mimic::Trial::test("outputs/mlir-into-a-named-pipe", move || Ok(mlir_into_pipe(&w1)?))
            .with_ignored_flag(no_mkfifo),
        libtest_mimic::Trial::test("outputs/model-library-into-a-named-pipe", move || Ok(model_into_pipe(&w2)?))
            .with_ignored_flag(no_mkfifo),
        libtest_mimic::Trial::test("outputs/outputs-follow-the-umask", move || Ok(outputs_follow_the_umask(&w3)?)),
        libtest_mimic::Trial::test("outputs/inputs-are-told-apart-by-content", move || {
            Ok(inputs_are_told_apart_by_content(&w4)?)
        }),
        libtest_mimic::Trial::test("outputs/missing-output-directory", move || Ok(missing_output_directory(&w5)?)),
        libtest_mimic::Trial::test("outputs/headers-for-odd-names", move || Ok(headers_for_odd_names(&w6)?)),
        libtest_mimic::Trial::test("outputs/hostile-names-compile", move || Ok(hostile_names_compile(&w8)?)),
        libtest_mimic::Trial::test("outputs/outputs-listed-twice", move || Ok(outputs_listed_twice(&w7)?)),
    ];
    xcc_test_suite::run_trials(trials)
}
