//! Libraries that link anywhere. Every library xcc writes carries runtime-c with weak
//! definitions, so two models (and an MLIR library) link into one shared library or one static
//! program even when each archive is linked whole; the CUDA shim goes only into libraries that
//! call it, so a CPU-only program links `-static` without a warning; an object's header says that
//! it needs an xcc runtime, and `xcc runtime` writes one. The oracle is the C program
//! `linking/two_models.c`, which checks each model's output against values it computes itself.

use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::onnx_build::{model, node, relu_model, value, FLOAT};
use xcc_test_suite::{find_tool, fresh_dir, run_command, run_timeout, suite_dir, work_root, xcc_binary};

/// The side of the square matrix `square.onnx` multiplies by itself (as in `two_models.c`).
const N: i64 = 48;

/// Runs `cmd`; its standard error on success (the linker's warnings), else an error naming `what`.
fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = run_command(cmd, run_timeout());
    if !out.success() {
        return Err(format!("{what}: {}", out.summary()));
    }
    Ok(out.stderr)
}

/// `relu.onnx` (Relu over N*N floats) and `square.onnx` (x times x, N x N) in `dir`.
fn write_models(dir: &Path) -> Result<(), String> {
    let square = model(
        vec![node("mm", "MatMul", &["x", "x"], &["y"])],
        vec![value("x", FLOAT, &[N, N])],
        vec![value("y", FLOAT, &[N, N])],
        vec![],
    );
    std::fs::write(dir.join("relu.onnx"), relu_model(N * N)).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("square.onnx"), square).map_err(|e| e.to_string())
}

/// Compiles `input` (relative to `dir`, or absolute) to `dir/output` for `target`.
fn xcc(dir: &Path, input: &Path, output: &str, target: &str) -> Result<(), String> {
    let mut cmd = Command::new(xcc_binary());
    cmd.current_dir(dir).arg(input).args(["--target", target, "-o", output]);
    run(&mut cmd, &format!("xcc {} -o {output}", input.display())).map(|_| ())
}

fn matmul_mlir() -> PathBuf {
    suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir")
}

fn program() -> PathBuf {
    suite_dir().join("linking/two_models.c")
}

/// The program's output must be `ok`.
fn expect_ok(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = run_command(cmd, run_timeout());
    if !out.success() || out.stdout.trim() != "ok" {
        return Err(format!("{what}: {}", out.summary()));
    }
    Ok(())
}

fn archive_members(archive: &Path) -> Result<Vec<String>, String> {
    let out = Command::new("ar").arg("t").arg(archive).output().map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
}

/// Two model archives, each linked whole, make one shared library that exports both models and
/// one runtime; a program linked against it runs both.
fn two_models_in_one_shared_library(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    write_models(&dir)?;
    xcc(&dir, Path::new("relu.onnx"), "librelu.a", "x86_64")?;
    xcc(&dir, Path::new("square.onnx"), "libsquare.a", "x86_64")?;
    let mut so = Command::new("cc");
    so.current_dir(&dir).args(["-shared", "-o", "libboth.so", "-Wl,--whole-archive", "librelu.a", "libsquare.a"]);
    run(so.args(["-Wl,--no-whole-archive", "-lm", "-lpthread"]), "cc -shared with both archives whole")?;
    let mut exe = Command::new("cc");
    exe.current_dir(&dir).args(["-I", "."]).arg(program());
    run(exe.args(["-L.", "-lboth", "-Wl,-rpath,$ORIGIN", "-lm", "-o", "both"]), "linking against libboth.so")?;
    expect_ok(&mut Command::new(dir.join("both")), "the program over libboth.so")
}

/// Two models and an MLIR library, every archive linked whole, in one `-static` program for
/// `target`, with the linker's warnings fatal (a `dlopen` in a static program is one), run
/// natively or under qemu.
fn static_program(work: &Path, target: &str, cc: &str, runner: Option<&str>) -> Result<(), String> {
    let dir = fresh_dir(work);
    write_models(&dir)?;
    xcc(&dir, Path::new("relu.onnx"), "librelu.a", target)?;
    xcc(&dir, Path::new("square.onnx"), "libsquare.a", target)?;
    xcc(&dir, &matmul_mlir(), "libmatmul.a", target)?;
    for lib in ["librelu.a", "libsquare.a", "libmatmul.a"] {
        if archive_members(&dir.join(lib))?.iter().any(|m| m == "xcc_cuda.o") {
            return Err(format!("{lib} carries the CUDA shim, though nothing in it launches a kernel"));
        }
    }
    let mut link = Command::new(cc);
    link.current_dir(&dir).args(["-static", "-DWITH_MATMUL", "-I", "."]).arg(program());
    link.args(["-Wl,--fatal-warnings", "-Wl,--whole-archive", "librelu.a", "libsquare.a", "libmatmul.a"]);
    let warnings =
        run(link.args(["-Wl,--no-whole-archive", "-lm", "-lpthread", "-o", "static"]), &format!("{cc} -static"))?;
    if !warnings.trim().is_empty() {
        return Err(format!("{cc} -static warned:\n{warnings}"));
    }
    let mut exe = match runner {
        Some(qemu) => {
            let mut c = Command::new(qemu);
            c.arg(dir.join("static"));
            c
        }
        None => Command::new(dir.join("static")),
    };
    expect_ok(&mut exe, &format!("the static program for {target}"))
}

/// Objects instead of archives: each header says what else to link, linking the objects alone
/// fails on the runtime's symbols, and with `xcc runtime`'s archive the program runs.
fn objects_and_the_runtime_archive(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    write_models(&dir)?;
    xcc(&dir, Path::new("relu.onnx"), "relu.o", "x86_64")?;
    xcc(&dir, Path::new("square.onnx"), "square.o", "x86_64")?;
    let header = std::fs::read_to_string(dir.join("relu.h")).map_err(|e| e.to_string())?;
    let link_line = header.lines().nth(1).unwrap_or("");
    if !(link_line.contains("relu.o") && link_line.contains("xcc runtime -o libxcc_runtime.a")) {
        return Err(format!("relu.h does not say to link relu.o and a runtime: {link_line}"));
    }
    let mut alone = Command::new("cc");
    alone.current_dir(&dir).args(["-I", "."]).arg(program()).args(["relu.o", "square.o", "-lm", "-lpthread"]);
    let out = run_command(alone.args(["-o", "alone"]), run_timeout());
    if out.success() || !out.stderr.contains("undefined reference to `xcc_") {
        return Err(format!("the objects linked without a runtime, or failed otherwise: {}", out.summary()));
    }
    let missing = Command::new(xcc_binary()).current_dir(&dir).args(["runtime", "-o", "rt/libxcc_runtime.a"]).output();
    let missing = missing.map_err(|e| e.to_string())?;
    if missing.status.success() || !String::from_utf8_lossy(&missing.stderr).contains("the directory rt does not exist")
    {
        return Err(format!("xcc runtime into a missing directory: {}", String::from_utf8_lossy(&missing.stderr)));
    }
    run(Command::new(xcc_binary()).current_dir(&dir).args(["runtime", "-o", "libxcc_runtime.a"]), "xcc runtime")?;
    let members = archive_members(&dir.join("libxcc_runtime.a"))?;
    let expected: Vec<String> = xcc_runtime_c::RUNTIME_PARTS
        .iter()
        .map(|p| format!("{p}.o"))
        .chain(["xcc_cuda.o", "xcc_cuda_driver.o"].map(String::from))
        .collect();
    if members != expected || !dir.join("xcc_runtime.h").is_file() {
        return Err(format!("xcc runtime wrote {members:?} (and xcc_runtime.h?)"));
    }
    let mut exe = Command::new("cc");
    exe.current_dir(&dir).args(["-static", "-Wl,--fatal-warnings", "-I", "."]).arg(program());
    run(exe.args(["relu.o", "square.o", "libxcc_runtime.a", "-lm", "-lpthread", "-o", "objects"]), "linking objects")?;
    expect_ok(&mut Command::new(dir.join("objects")), "the program over objects")
}

/// An MLIR library that calls the CUDA shim carries it, and links (it loads libcuda at run time).
fn the_cuda_shim_where_it_is_called(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    let text = "func.func private @xcc_cuda_free(!llvm.ptr) -> i32\n\
                func.func @release(%p: !llvm.ptr) -> i32 {\n  \
                  %r = func.call @xcc_cuda_free(%p) : (!llvm.ptr) -> i32\n  return %r : i32\n}\n";
    std::fs::write(dir.join("release.mlir"), text).map_err(|e| e.to_string())?;
    xcc(&dir, Path::new("release.mlir"), "librelease.a", "x86_64")?;
    let members = archive_members(&dir.join("librelease.a"))?;
    if !["xcc_cuda.o", "xcc_cuda_driver.o"].iter().all(|shim| members.iter().any(|m| m == shim)) {
        return Err(format!("a library calling xcc_cuda_free lacks the shim: {members:?}"));
    }
    let main = "int release(void *);\nint main(void) { return release(0) == 0 ? 2 : 0; }\n";
    std::fs::write(dir.join("main.c"), main).map_err(|e| e.to_string())?;
    let mut link = Command::new("cc");
    run(link.current_dir(&dir).args(["main.c", "librelease.a", "-lpthread", "-ldl", "-o", "release"]), "linking")?;
    Ok(())
}

/// Two MLIR libraries whose kernels read a private global of the same name, too large for each
/// codegen unit to copy (so the units share it under a name of the library's own), in one
/// `-static` program: each kernel sums its own table.
fn two_libraries_with_the_same_private_global(work: &Path) -> Result<(), String> {
    let dir = fresh_dir(work);
    // 2048 floats of 1.0 and of 2.0, as the raw bytes MLIR writes a global's value in.
    for (name, value) in [("sum_a", "0000803F".repeat(2048)), ("sum_b", "00000040".repeat(2048))] {
        let text = format!(
            "memref.global \"private\" constant @table : memref<2048xf32> = dense<\"0x{value}\"> : tensor<8192xi8>\n\
             func.func @{name}(%out: memref<1xf32>) attributes {{llvm.emit_c_interface}} {{\n  \
               %t = memref.get_global @table : memref<2048xf32>\n  \
               %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  \
               %n = arith.constant 2048 : index\n  %zero = arith.constant 0.0 : f32\n  \
               %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {{\n    \
                 %x = memref.load %t[%i] : memref<2048xf32>\n    \
                 %y = arith.addf %acc, %x : f32\n    scf.yield %y : f32\n  }}\n  \
               memref.store %s, %out[%c0] : memref<1xf32>\n  return\n}}\n"
        );
        std::fs::write(dir.join(format!("{name}.mlir")), text).map_err(|e| e.to_string())?;
        xcc(&dir, Path::new(&format!("{name}.mlir")), &format!("lib{name}.a"), "x86_64")?;
    }
    let main = "#include <stdint.h>\n\
                typedef struct { float *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d;\n\
                void _mlir_ciface_sum_a(memref_1d *), _mlir_ciface_sum_b(memref_1d *);\n\
                int main(void) {\n  float a = 0, b = 0;\n  memref_1d A = {&a, &a, 0, {1}, {1}}, B = {&b, &b, 0, {1}, {1}};\n  \
                _mlir_ciface_sum_a(&A);\n  _mlir_ciface_sum_b(&B);\n  return !(a == 2048.0f && b == 4096.0f);\n}\n";
    std::fs::write(dir.join("main.c"), main).map_err(|e| e.to_string())?;
    let mut link = Command::new("cc");
    link.current_dir(&dir).args(["-static", "main.c", "-Wl,--whole-archive", "libsum_a.a", "libsum_b.a"]);
    run(link.args(["-Wl,--no-whole-archive", "-lm", "-lpthread", "-o", "sums"]), "linking both libraries")?;
    let out = run_command(&mut Command::new(dir.join("sums")), run_timeout());
    if !out.success() {
        return Err(format!("the sums of the two tables (2048 and 4096) were wrong: {}", out.summary()));
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let work = work_root("linking");
    let cross = find_tool("aarch64-linux-gnu-gcc").is_some() && find_tool("qemu-aarch64").is_some();
    if !cross {
        println!("skipped: linking/static-program-aarch64 (aarch64-linux-gnu-gcc or qemu-aarch64 is not installed)");
    }
    let (w1, w2, w3, w4, w5, w6) = (
        work.join("so"),
        work.join("static-x86_64"),
        work.join("static-aarch64"),
        work.join("objects"),
        work.join("cuda"),
        work.join("private-globals"),
    );
    let trials = vec![
        libtest_mimic::Trial::test("linking/two-models-in-one-shared-library", move || {
            Ok(two_models_in_one_shared_library(&w1)?)
        }),
        libtest_mimic::Trial::test("linking/static-program-x86_64", move || {
            Ok(static_program(&w2, "x86_64", "cc", None)?)
        }),
        libtest_mimic::Trial::test("linking/static-program-aarch64", move || {
            Ok(static_program(&w3, "aarch64", "aarch64-linux-gnu-gcc", Some("qemu-aarch64"))?)
        })
        .with_ignored_flag(!cross),
        libtest_mimic::Trial::test("linking/objects-and-the-runtime-archive", move || {
            Ok(objects_and_the_runtime_archive(&w4)?)
        }),
        libtest_mimic::Trial::test("linking/the-cuda-shim-where-it-is-called", move || {
            Ok(the_cuda_shim_where_it_is_called(&w5)?)
        }),
        libtest_mimic::Trial::test("linking/two-libraries-with-the-same-private-global", move || {
            Ok(two_libraries_with_the_same_private_global(&w6)?)
        }),
    ];
    xcc_test_suite::run_trials(trials)
}
