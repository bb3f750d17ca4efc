//! ONNX models compiled for GPUs (`--target=nvptx64`):
//! - `emulated`: the library built with `--emulate-gpu` (the kernels xcc writes for the GPU,
//!   compiled for this CPU and run by runtime-c's grid emulator), linked from C and C++ through
//!   the model's header (`gpu/model_harness.c.in`: run from host memory, run on device buffers,
//!   refusals), compared with the reference output and with ONNX Runtime run now (1e-4 relative
//!   plus 1e-5 absolute);
//! - `ptx-sm_80`, `ptx-sm_90`: the kernels' PTX accepted by `ptxas -v` in whole-program mode,
//!   every `.entry` compiled and nothing left external but the launch-sized shared memory;
//! - `cubin-sm_80`, `cubin-sm_90` (tiny_cnn): the library built with `--ptxas` carries exactly
//!   the cubin `ptxas` makes of its PTX, and its weights and the cubin are read-only data;
//! - `gpu`: the CUDA library on the GPU, where `nvidia-smi` works (else ignored, saying so);
//! - `tf32/emulated`, `tf32/gpu`, `tf32/ptx-sm_80`, `tf32/ptx-sm_90`: the same with every GEMM
//!   tiled on tensor cores (`--gpu-gemm=tiled --tf32`), within 1% of the output's largest
//!   magnitude of ONNX Runtime's f32 run ([`TF32_TOLERANCE`]), the PTX with its `wmma` products;
//! - `no-driver`: the CUDA library where there is no driver: creating a context is refused with
//!   a message, nothing crashes (ignored where a driver is present);
//! - `profile`: `XCC_GPU_PROFILE=1` lists every kernel of the PTX, each called;
//! - `aarch64-host`: the host code (and emulated kernels) for aarch64, run under qemu; and the
//!   CUDA library for aarch64 there, refusing to create a context without a driver;
//! - `two-models-concurrent`: two models in one program, three contexts run from three threads
//!   at once (`gpu/two_models.c`), emulated and, where there is one, on the GPU;
//! - `out-of-memory`: a context limited to a byte less than it needs at creation, then at a run
//!   (`gpu/out_of_memory.c`): refused with `XCC_ERROR_OUT_OF_MEMORY` and a sentence, nothing
//!   leaked, and the run done once the limit allows it; emulated and on the GPU;
//! - `edge/index_out_of_range`: a Gather's index outside its dim, found by a kernel, reported by
//!   `NAME_run` and `NAME_run_device_status` as `XCC_ERROR_INDEX_OUT_OF_RANGE`, the next run
//!   with good indices right (`gpu/index_out_of_range.c`); emulated and on the GPU;
//! - `used-after-destroy`: every call through a copy of a destroyed context's pointer refused
//!   (`gpu/used_after_destroy.c`), without reading the freed context (AddressSanitizer);
//! - `wrong-stream`: a run on device memory with a stream that is not the model's
//!   (`gpu/wrong_stream.c`): refused with `XCC_ERROR_GPU` and a sentence, the context running as
//!   before afterwards; emulated and on the GPU;
//! - kernel edge cases built here (one element, sizes that are not multiples of a block,
//!   broadcasting, more elements than one grid covers), against values computed here.
//!
//! The shared models are skipped where `../shared` is absent; `examples/tiny_cnn` always runs
//! (it needs the venv, which `scripts/setup.sh` makes).

use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::onnx_build::{model, node, pseudo_random, value};
use xcc_test_suite::{compare_f32, read_f32, run_trials_then_discard, suite_dir, xcc_binary};

const SHARED: [&str; 5] = ["mlp", "squeezenet1_1", "mobilenet_v2", "resnet18", "encoder"];

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

fn work() -> PathBuf {
    repo().join("target/xcc-tests/gpu-models")
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!("{what} failed ({}):\n{text}", out.status));
    }
    Ok(text)
}

/// A model's files: the ONNX file, an input, and the expected output (None: ONNX Runtime's,
/// computed when needed).
struct Case {
    name: String,
    onnx: PathBuf,
    input: PathBuf,
    expected: Option<PathBuf>,
}

fn shared(name: &str) -> Case {
    let models = repo().join("../shared/models");
    Case {
        name: name.to_string(),
        onnx: models.join(format!("{name}.onnx")),
        input: models.join(format!("{name}.input.bin")),
        expected: Some(models.join(format!("{name}.output.bin"))),
    }
}

/// `examples/tiny_cnn`, written by its script (with ONNX Runtime's output) once per test run.
fn tiny_cnn() -> Result<Case, String> {
    let dir = work().join("tiny_cnn_model");
    if !dir.join("expected.bin").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        run(
            Command::new(repo().join(".venv/bin/python")).arg(repo().join("examples/tiny_cnn/make_model.py")).arg(&dir),
            "examples/tiny_cnn/make_model.py",
        )?;
    }
    Ok(Case {
        name: "tiny_cnn".into(),
        onnx: dir.join("tiny_cnn.onnx"),
        input: dir.join("input.bin"),
        expected: Some(dir.join("expected.bin")),
    })
}

/// ONNX Runtime's output for the case's input, computed now.
fn onnxruntime(case: &Case, out: &Path) -> Result<Vec<f32>, String> {
    let script = format!(
        "import numpy as np, onnxruntime as ort\n\
         s = ort.InferenceSession('{}', providers=['CPUExecutionProvider'])\n\
         i = s.get_inputs()[0]\n\
         x = np.fromfile('{}', dtype=np.float32).reshape(i.shape)\n\
         s.run(None, {{i.name: x}})[0].astype(np.float32).tofile('{}')\n",
        case.onnx.display(),
        case.input.display(),
        out.display()
    );
    run(Command::new(repo().join(".venv/bin/python")).arg("-c").arg(script), "onnxruntime")?;
    read_f32(out)
}

/// Compiles the case for nvptx64 (`extra` flags), links the harness from C and C++, runs both;
/// returns the C program's output.
fn build_and_run(case: &Case, dir: &Path, extra: &[&str]) -> Result<Vec<f32>, String> {
    std::fs::create_dir_all(dir).unwrap();
    let n = &case.name;
    let lib = dir.join(format!("lib{n}.a"));
    run(
        Command::new(xcc_binary()).arg(&case.onnx).args(["--target=nvptx64", "-O2"]).args(extra).arg("-o").arg(&lib),
        "xcc",
    )?;
    let template = std::fs::read_to_string(suite_dir().join("gpu/model_harness.c.in")).unwrap();
    let harness = template.replace("@NAME@", n).replace("@UP@", &n.to_uppercase());
    let mut outputs = Vec::new();
    for (compiler, file) in [("cc", "harness.c"), ("c++", "harness.cpp")] {
        std::fs::write(dir.join(file), &harness).unwrap();
        let exe = dir.join(format!("run_{compiler}").replace('+', "x"));
        run(
            Command::new(compiler)
                .args(["-O1", "-I"])
                .arg(dir)
                .arg(dir.join(file))
                .arg(&lib)
                .args(["-lm", "-lpthread", "-ldl", "-o"])
                .arg(&exe),
            &format!("{compiler} link"),
        )?;
        let out = dir.join(format!("out_{compiler}.bin").replace('+', "x"));
        run(Command::new(&exe).arg(&case.input).arg(&out), &format!("the {compiler} program"))?;
        outputs.push(read_f32(&out)?);
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    if bits(&outputs[0]) != bits(&outputs[1]) {
        return Err("the C and C++ programs' outputs differ".into());
    }
    Ok(outputs.swap_remove(0))
}

/// The run compared with the expected output and with ONNX Runtime now.
fn check(case: &Case, dir: &Path, got: &[f32]) -> Result<String, String> {
    let ort = onnxruntime(case, &dir.join("ort.bin"))?;
    let w2 = compare_f32("vs onnxruntime", got, &ort, 1e-5)?;
    let w1 = match &case.expected {
        Some(p) => compare_f32("vs the reference output", got, &read_f32(p)?, 1e-5)?,
        None => w2,
    };
    Ok(format!("{}: worst error {w1:.2} (reference), {w2:.2} (live onnxruntime) of the tolerance", case.name))
}

fn emulated(case: &Case) -> Result<(), String> {
    let dir = work().join(&case.name).join("emulated");
    let got = build_and_run(case, &dir, &["--emulate-gpu"])?;
    println!("{} (emulated GPU)", check(case, &dir, &got)?);
    Ok(())
}

/// How far a run with `--tf32` may be from ONNX Runtime's f32 run: 1% of the output's largest
/// magnitude. TF32 keeps 10 bits of mantissa (a product's inputs off by up to 2^-11 relative
/// each), and a model's layers carry it on; the shared models and tiny_cnn measure 0.02-0.14% (see
/// `tf32_emulated`'s output).
pub const TF32_TOLERANCE: f64 = 1e-2;

/// Every GEMM tiled on tensor cores (`--gpu-gemm=tiled --tf32`), emulated, against ONNX Runtime
/// within [`TF32_TOLERANCE`] of the output's scale.
fn tf32_emulated(case: &Case) -> Result<(), String> {
    tf32_run(case, "tf32-emulated", &["--emulate-gpu"])
}

/// [`tf32_emulated`] on the GPU.
fn tf32_on_gpu(case: &Case) -> Result<(), String> {
    tf32_run(case, "tf32-gpu", &["--mcpu=sm_80"])
}

fn tf32_run(case: &Case, folder: &str, flags: &[&str]) -> Result<(), String> {
    let dir = work().join(&case.name).join(folder);
    let flags: Vec<&str> = flags.iter().chain(&["--gpu-gemm=tiled", "--tf32"]).copied().collect();
    let got = build_and_run(case, &dir, &flags)?;
    let ort = onnxruntime(case, &dir.join("ort.bin"))?;
    let error = scaled_error(&got, &ort)?;
    println!("{} ({folder}): error {error:.2e} of the output's largest magnitude", case.name);
    if error > TF32_TOLERANCE {
        return Err(format!("{}: TF32 error {error:.2e} is past {TF32_TOLERANCE:e}", case.name));
    }
    Ok(())
}

/// The largest difference over the largest magnitude of `want`.
fn scaled_error(got: &[f32], want: &[f32]) -> Result<f64, String> {
    if got.len() != want.len() || got.iter().any(|v| !v.is_finite()) {
        return Err(format!(
            "{} values (finite: {}), expected {}",
            got.len(),
            got.iter().all(|v| v.is_finite()),
            want.len()
        ));
    }
    let scale = want.iter().fold(0f64, |m, &w| m.max((w as f64).abs())).max(f64::MIN_POSITIVE);
    Ok(got.iter().zip(want).fold(0f64, |m, (&g, &w)| m.max((g as f64 - w as f64).abs())) / scale)
}

fn on_gpu(case: &Case) -> Result<(), String> {
    let dir = work().join(&case.name).join("gpu");
    let got = build_and_run(case, &dir, &["--mcpu=sm_80"])?;
    println!("{} (GPU)", check(case, &dir, &got)?);
    Ok(())
}

/// The PTX for `arch` through `ptxas -v` (whole program: an external symbol is an error).
/// `tf32`: every GEMM tiled on tensor cores (`--gpu-gemm=tiled --tf32`), and the PTX must have
/// their `wmma` products and the rounding to TF32.
fn ptx(case: &Case, arch: &str, ptxas: &Path, tf32: bool) -> Result<(), String> {
    let dir = work().join(&case.name).join(if tf32 { format!("{arch}-tf32") } else { arch.to_string() });
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{}.ptx", case.name));
    let tensor_cores: &[&str] = if tf32 { &["--gpu-gemm=tiled", "--tf32"] } else { &[] };
    run(
        Command::new(xcc_binary())
            .arg(&case.onnx)
            .args(["--target=nvptx64", "--emit=ptx", "--mcpu", arch])
            .args(tensor_cores)
            .arg("-o")
            .arg(&file),
        "xcc --emit=ptx",
    )?;
    let text = std::fs::read_to_string(&file).unwrap();
    let products = text.matches("wmma.mma.sync.aligned.col.row.m16n16k8.f32.tf32.tf32.f32").count();
    if tf32 && (products == 0 || !text.contains("cvt.rna.tf32.f32")) {
        return Err(format!("{products} tensor-core products in the PTX, or no rounding to TF32"));
    }
    // The fragments are staged in shared memory: a generic wmma load or store would convert
    // each address (cvta) and miss the shared form.
    let generic =
        text.lines().filter(|l| l.contains("wmma.load") || l.contains("wmma.store")).find(|l| !l.contains(".shared."));
    if let Some(line) = generic {
        return Err(format!("a wmma load or store without .shared: {}", line.trim()));
    }
    // The one extern a kernel module may have is its dynamic shared memory, which each launch
    // sizes.
    if text.lines().any(|l| l.contains(".extern") && !l.contains(".extern .shared")) {
        return Err("the PTX has external symbols".into());
    }
    let entries = text.lines().filter(|l| l.contains(".entry")).count();
    let log =
        run(Command::new(ptxas).args(["-v", "-arch", arch]).arg(&file).arg("-o").arg(dir.join("k.cubin")), "ptxas")?;
    let compiled = log.lines().filter(|l| l.contains("Compiling entry function")).count();
    if entries == 0 || compiled != entries {
        return Err(format!("{entries} kernels in the PTX, ptxas compiled {compiled}:\n{log}"));
    }
    let tensor_cores = if tf32 { format!(" ({products} tensor-core products)") } else { String::new() };
    println!("{} {arch}: {entries} kernels{tensor_cores}, all accepted by ptxas", case.name);
    Ok(())
}

/// The CUDA library with `--ptxas`: it carries, after its size, exactly the cubin `ptxas` makes of
/// the kernels' PTX for `arch` (which the driver loads where it fits the device).
fn embedded_cubin(case: &Case, arch: &str, ptxas: &Path) -> Result<(), String> {
    let dir = work().join(&case.name).join(format!("cubin-{arch}"));
    std::fs::create_dir_all(&dir).unwrap();
    let (lib, ptx, cubin) = (dir.join("libm.a"), dir.join("m.ptx"), dir.join("m.cubin"));
    let xcc = |emit: &str, out: &Path| {
        let mut c = Command::new(xcc_binary());
        c.arg(&case.onnx).args(["--target=nvptx64", "--name", "m", "--mcpu", arch, emit, "--ptxas"]).arg(ptxas);
        c.arg("-o").arg(out);
        c
    };
    run(&mut xcc("--emit=lib", &lib), "xcc --ptxas")?;
    run(&mut xcc("--emit=ptx", &ptx), "xcc --emit=ptx")?;
    run(Command::new(ptxas).arg(format!("-arch={arch}")).arg(&ptx).arg("-o").arg(&cubin), "ptxas")?;
    let (archive, cubin) = (std::fs::read(&lib).unwrap(), std::fs::read(&cubin).unwrap());
    let sized: Vec<u8> = (cubin.len() as u64).to_le_bytes().iter().chain(&cubin).copied().collect();
    if !archive.windows(sized.len()).any(|w| w == sized.as_slice()) {
        return Err(format!("the library does not carry ptxas's {} bytes of cubin for {arch}", cubin.len()));
    }
    let weights = read_only_weights(&lib, "m")?;
    println!("{} {arch}: a cubin of {} bytes embedded, {weights} weights in read-only data", case.name, cubin.len());
    Ok(())
}

/// The weights (`NAME_wK`, `NAME_wK_packed`) and the cubin in the library are read-only data
/// (`nm`'s `r`): the host's copies the context uploads, never written. Returns the weights'
/// count.
fn read_only_weights(lib: &Path, name: &str) -> Result<usize, String> {
    let listing = run(Command::new("nm").arg(lib), "nm")?;
    let mut weights = 0;
    for line in listing.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [_, kind, symbol] = fields.as_slice() else { continue };
        let is_weight =
            symbol.strip_prefix(&format!("{name}_w")).is_some_and(|k| k.starts_with(|c: char| c.is_ascii_digit()));
        let is_image = *symbol == format!("{name}_compute_cubin");
        if (is_weight || is_image) && !matches!(*kind, "r" | "R") {
            return Err(format!("{symbol} is not read-only data ({kind}):\n{listing}"));
        }
        weights += usize::from(is_weight);
    }
    if weights == 0 {
        return Err(format!("no weights ({name}_wK) in the library:\n{listing}"));
    }
    Ok(weights)
}

/// The emulated library's f64 Erf (its own series and continued fraction) against the C
/// library's `erf`, in units in the last place, over 20,001 points from -6.5 to 6.5, the split at
/// 2 and its neighbours, 0, -0, a subnormal and the infinities: at most 8 ulp.
fn erf_f64_ulps() -> Result<(), String> {
    let dir = work().join("edge").join("erf_f64_ulps");
    std::fs::create_dir_all(&dir).unwrap();
    let n = 20_001i64 + 8;
    let bytes =
        model(vec![node("erf", "Erf", &["x"], &["y"])], vec![value("x", 11, &[n])], vec![value("y", 11, &[n])], vec![]);
    std::fs::write(dir.join("m.onnx"), bytes).unwrap();
    let lib = dir.join("libm.a");
    run(
        Command::new(xcc_binary()).arg(dir.join("m.onnx")).args(["--target=nvptx64", "--emulate-gpu", "-o"]).arg(&lib),
        "xcc",
    )?;
    let program = format!(
        r#"#include "m.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {{
  enum {{ N = {n} }};
  static double x[N], y[N];
  for (int i = 0; i < 20001; i++) x[i] = -6.5 + 13.0 * i / 20000.0;
  double extra[8] = {{2.0, nextafter(2.0, 0.0), nextafter(2.0, 3.0), 0.0, -0.0, 4.9e-324, INFINITY, -INFINITY}};
  for (int i = 0; i < 8; i++) x[20001 + i] = extra[i];
  m_context *c;
  if (m_create(&c, 0) != 0 || m_run(c, x, y) != 0) return 2;
  m_destroy(&c);
  double worst = 0, at = 0;
  for (int i = 0; i < N; i++) {{
    double want = erf(x[i]);
    if (signbit(want) != signbit(y[i])) {{ printf("sign of erf(%g): %g\n", x[i], y[i]); return 1; }}
    double ulp = want == 0 ? 4.9e-324 : nextafter(fabs(want), INFINITY) - fabs(want);
    double err = fabs(y[i] - want) / ulp;
    if (!(err <= worst)) {{ worst = err; at = x[i]; }}
  }}
  printf("%.1f %.17g\n", worst, at);
  return worst <= 8 ? 0 : 1;
}}
"#
    );
    std::fs::write(dir.join("erf.c"), program).unwrap();
    let exe = dir.join("erf");
    run(
        Command::new("cc")
            .args(["-O1", "-I"])
            .arg(&dir)
            .arg(dir.join("erf.c"))
            .arg(&lib)
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&exe),
        "cc",
    )?;
    let out = Command::new(&exe).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("f64 erf beyond 8 ulp of the C library's (worst ulp, at): {text}"));
    }
    println!("erf f64: worst {} ulp", text.split_whitespace().next().unwrap_or("?"));
    Ok(())
}

/// `gpu/two_models.c`: tiny_cnn compiled twice (`a`, `b`) into one program, three contexts run
/// concurrently from three threads, one destroyed while the others go on.
fn two_models(case: &Case, dir_name: &str, extra: &[&str]) -> Result<(), String> {
    let dir = work().join(&case.name).join(dir_name);
    std::fs::create_dir_all(&dir).unwrap();
    for n in ["a", "b"] {
        run(
            Command::new(xcc_binary())
                .arg(&case.onnx)
                .args(["--target=nvptx64", "-O2", "--name", n])
                .args(extra)
                .arg("-o")
                .arg(dir.join(format!("lib{n}.a"))),
            "xcc",
        )?;
    }
    let exe = dir.join("two_models");
    run(
        Command::new("cc")
            .args(["-O1", "-I"])
            .arg(&dir)
            .arg(suite_dir().join("gpu/two_models.c"))
            .arg(dir.join("liba.a"))
            .arg(dir.join("libb.a"))
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&exe),
        "link",
    )?;
    let out = run(Command::new(&exe).arg(&case.input), "the program")?;
    if !out.contains("ok") {
        return Err(out);
    }
    Ok(())
}

/// A failure-path program of `gpu/` (`out_of_memory.c`, `wrong_stream.c`, `used_after_destroy.c`
/// over tiny_cnn compiled as `m`, `index_out_of_range.c` over a Gather as `g`; `extra`:
/// `--emulate-gpu` or not), run with `args`: it prints "ok" or why not.
/// Emulated, it is built with `-DXCC_TEST_EMULATED` and AddressSanitizer, runtime-c's emulator
/// included (compiled from source), so that a read of freed memory or any leak fails the run
/// (libcuda is not built for it, so the GPU's programs go without).
fn failure_path(onnx: &Path, (name, program): (&str, &str), extra: &[&str], args: &[&Path]) -> Result<(), String> {
    let emulated = extra.contains(&"--emulate-gpu");
    let dir = work().join("failure-paths").join(format!("{program}-{}", if emulated { "emulated" } else { "gpu" }));
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join(format!("lib{name}.a"));
    run(
        Command::new(xcc_binary())
            .arg(onnx)
            .args(["--target=nvptx64", "-O2", "--name", name])
            .args(extra)
            .arg("-o")
            .arg(&lib),
        "xcc",
    )?;
    let mut cc = Command::new("cc");
    cc.args(["-O1", "-I"]).arg(&dir).arg(suite_dir().join(format!("gpu/{program}.c")));
    if emulated {
        // runtime-c's emulator from source, instrumented too: linked before the library, its
        // definitions are the ones used (runtime-c's are all weak, and the first one the linker
        // sees wins), so that its reads and writes are checked.
        let runtime = repo().join("runtime-c/c");
        cc.args(["-DXCC_TEST_EMULATED", "-DXCC_GPU_EMULATE=1", "-fsanitize=address", "-g", "-I"])
            .arg(&runtime)
            .arg(runtime.join("xcc_gpu.c"));
    }
    let exe = dir.join(program);
    run(cc.arg(&lib).args(["-lm", "-lpthread", "-ldl", "-o"]).arg(&exe), "link")?;
    let out = run(Command::new(&exe).args(args).env("ASAN_OPTIONS", "detect_leaks=1"), program)?;
    if !out.starts_with("ok") {
        return Err(out);
    }
    println!("{program}: {}", out.trim());
    Ok(())
}

/// `gpu/index_out_of_range.c`'s model: one Gather of data [4, 3] by int64 indices [2], written
/// to the work folder.
fn gather_model() -> PathBuf {
    let bytes = model(
        vec![node("gather", "Gather", &["data", "indices"], &["y"])],
        vec![value("data", 1, &[4, 3]), value("indices", 7, &[2])],
        vec![value("y", 1, &[2, 3])],
        vec![],
    );
    let path = work().join("failure-paths").join("gather.onnx");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The library with its host code for aarch64 (`--gpu-host=aarch64 --emulate-gpu`: the emulated
/// kernels run there too), linked with the cross compiler and run under qemu, against ONNX
/// Runtime's output.
/// Without `emulate`, the CUDA library for aarch64, whose run under qemu (no libcuda there) must
/// refuse to create a context, naming the driver.
fn aarch64_host(case: &Case, emulate: bool) -> Result<(), String> {
    let dir = work().join(&case.name).join(if emulate { "aarch64-host" } else { "aarch64-host-cuda" });
    std::fs::create_dir_all(&dir).unwrap();
    let n = &case.name;
    let lib = dir.join(format!("lib{n}.a"));
    run(
        Command::new(xcc_binary())
            .arg(&case.onnx)
            .args(["--target=nvptx64", "--gpu-host=aarch64", "-O2", "-o"])
            .arg(&lib)
            .args(if emulate { &["--emulate-gpu"][..] } else { &[] }),
        "xcc --gpu-host=aarch64",
    )?;
    let template = std::fs::read_to_string(suite_dir().join("gpu/model_harness.c.in")).unwrap();
    std::fs::write(dir.join("harness.c"), template.replace("@NAME@", n).replace("@UP@", &n.to_uppercase())).unwrap();
    let exe = dir.join("harness");
    run(
        Command::new("aarch64-linux-gnu-gcc")
            .args(["-O1", "-I"])
            .arg(&dir)
            .arg(dir.join("harness.c"))
            .arg(&lib)
            .args(["-lm", "-lpthread", "-ldl", "-o"])
            .arg(&exe),
        "aarch64 link",
    )?;
    let out = dir.join("out.bin");
    let ran = run(
        Command::new("qemu-aarch64").args(["-L", "/usr/aarch64-linux-gnu"]).arg(&exe).arg(&case.input).arg(&out),
        "qemu",
    );
    if !emulate {
        return match ran {
            Err(e) if e.contains("create returned 11") && e.contains("libcuda") => Ok(()),
            Err(e) => Err(format!("expected XCC_ERROR_GPU_UNAVAILABLE naming libcuda, got:\n{e}")),
            Ok(_) => Err("ran without a driver".into()),
        };
    }
    ran?;
    println!("{} (aarch64 host, emulated GPU)", check(case, &dir, &read_f32(&out)?)?);
    Ok(())
}

/// `XCC_GPU_PROFILE=1`: the emulated run prints a table with one line per kernel the model's PTX
/// has, each called at least once.
fn profile(case: &Case) -> Result<(), String> {
    let dir = work().join(&case.name).join("profile");
    build_and_run(case, &dir, &["--emulate-gpu"])?;
    let ptx = dir.join("k.ptx");
    run(Command::new(xcc_binary()).arg(&case.onnx).args(["--target=nvptx64", "--emit=ptx", "-o"]).arg(&ptx), "xcc")?;
    let entries = std::fs::read_to_string(&ptx).unwrap().lines().filter(|l| l.contains(".entry")).count();
    let out = Command::new(dir.join("run_cc"))
        .env("XCC_GPU_PROFILE", "1")
        .arg(&case.input)
        .arg(dir.join("profiled.bin"))
        .output()
        .map_err(|e| e.to_string())?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("{}_compute_kernel", case.name);
    let header = format!("xcc GPU profile ({prefix}*, emulated):");
    let rows: Vec<&str> = stderr.lines().filter(|l| l.trim_start().starts_with(&prefix)).collect();
    let called =
        rows.iter().all(|r| r.split_whitespace().nth(1).and_then(|c| c.parse::<u64>().ok()).is_some_and(|c| c > 0));
    if !out.status.success()
        || !stderr.contains(&header)
        || !stderr.contains(&format!("in {entries} kernels"))
        || rows.len() != entries
        || !called
    {
        return Err(format!("expected a profile of {entries} kernels, each called:\n{stderr}"));
    }
    Ok(())
}

/// The CUDA library where libcuda cannot be loaded: create refuses with a sentence.
fn no_driver(case: &Case) -> Result<(), String> {
    let dir = work().join(&case.name).join("no-driver");
    match build_and_run(case, &dir, &[]) {
        Err(e) if e.contains("create returned 11") && e.contains("libcuda") => Ok(()),
        Err(e) => Err(format!("expected XCC_ERROR_GPU_UNAVAILABLE naming libcuda, got:\n{e}")),
        Ok(_) => Err("ran without a driver".into()),
    }
}

/// One-element tensors through a matmul, a convolution (these two first: [`tiled_cases`] takes
/// them), a softmax and a reduction (the GEMM, convolution and row kernels, whose grids and
/// chunks are then one thread): `2.5 x`, `-3 x`, 1 and `x`.
fn one_element_ops() -> Vec<EdgeCase> {
    use xcc_test_suite::onnx_build::floats;
    let x = vec![0.75f32];
    let one = |name: &str, op: &str, dims: &[i64], weight: Option<(&[i64], f32)>, want: f32| {
        let inputs: &[&str] = if weight.is_some() { &["x", "w"] } else { &["x"] };
        let inits = weight.map(|(d, v)| vec![floats("w", d, &[v])]).unwrap_or_default();
        let bytes =
            model(vec![node(op, op, inputs, &["y"])], vec![value("x", 1, dims)], vec![value("y", 1, dims)], inits);
        (format!("one_element_{name}"), bytes, x.clone(), vec![want])
    };
    vec![
        one("matmul", "MatMul", &[1, 1], Some((&[1, 1], 2.5)), 2.5 * x[0]),
        one("conv", "Conv", &[1, 1, 1, 1], Some((&[1, 1, 1, 1], -3.0)), -3.0 * x[0]),
        one("softmax", "Softmax", &[1, 1], None, 1.0),
        one("reduce_sum", "ReduceSum", &[1, 1], None, x[0]),
    ]
}

/// A one-node model with values computed here: name, model bytes, input, expected output.
type EdgeCase = (String, Vec<u8>, Vec<f32>, Vec<f32>);

fn edge_cases() -> Vec<EdgeCase> {
    let mut out = Vec::new();
    let relu = |name: &str, dims: &[i64]| {
        let n: i64 = dims.iter().product();
        let x = pseudo_random(n as usize, 7);
        let y = x.iter().map(|v| v.max(0.0)).collect();
        let bytes = model(
            vec![node("relu", "Relu", &["x"], &["y"])],
            vec![value("x", 1, dims)],
            vec![value("y", 1, dims)],
            vec![],
        );
        (name.to_string(), bytes, x, y)
    };
    out.push(relu("one_element", &[1]));
    out.extend(one_element_ops());
    out.push(relu("not_a_multiple_of_a_block", &[3, 7, 13]));
    // 16,777,216 + 1 elements: one more than 65,535 blocks of 256 threads cover in one pass.
    out.push(relu("more_than_one_grid", &[65_535 * 256 + 1]));
    let (a, b) = (pseudo_random(3 * 5, 1), pseudo_random(4 * 5, 2));
    let mut sum = Vec::new();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                sum.push(a[i * 5 + k] + b[j * 5 + k]);
            }
        }
    }
    let bytes = model(
        vec![node("add", "Add", &["a", "b"], &["y"])],
        vec![value("a", 1, &[3, 1, 5])],
        vec![value("y", 1, &[3, 4, 5])],
        vec![xcc_test_suite::onnx_build::floats("b", &[1, 4, 5], &b)],
    );
    out.push(("broadcasting".to_string(), bytes, a, sum));
    out.push(chunked_rows("softmax_rows_in_chunks", "Softmax"));
    out.push(chunked_rows("layer_norm_rows_in_chunks", "LayerNormalization"));
    out.extend(device_math());
    out.extend(derived_math());
    out.push(split_gemm());
    out.push(split_conv("conv_split_over_channels", 1));
    out.push(split_conv("grouped_conv_split_over_channels", 2));
    out
}

/// Softmax or LayerNormalization (scale and bias) over rows of 37 elements, which GPU code
/// reduces in chunks of 16 (the last one short), with a row of large values, whose exponentials
/// need the row's max. Expected values computed here in f64.
fn chunked_rows(name: &str, op: &str) -> EdgeCase {
    let (rows, row) = (4usize, 37usize);
    let mut x = pseudo_random(rows * row, 11);
    for v in &mut x[row..2 * row] {
        *v = *v * 50.0 + 300.0;
    }
    let (scale, bias) = (pseudo_random(row, 12), pseudo_random(row, 13));
    let mut y = Vec::new();
    for r in x.chunks(row) {
        let r: Vec<f64> = r.iter().map(|&v| v as f64).collect();
        if op == "Softmax" {
            let mx = r.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = r.iter().map(|v| (v - mx).exp()).sum();
            y.extend(r.iter().map(|v| ((v - mx).exp() / sum) as f32));
        } else {
            let mean = r.iter().sum::<f64>() / row as f64;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / row as f64;
            let inv = 1.0 / (var + 1e-5).sqrt();
            y.extend(r.iter().enumerate().map(|(q, v)| ((v - mean) * inv * scale[q] as f64 + bias[q] as f64) as f32));
        }
    }
    let (inputs, inits) = if op == "Softmax" {
        (vec!["x"], vec![])
    } else {
        let t = |n: &str, v: &[f32]| xcc_test_suite::onnx_build::floats(n, &[row as i64], v);
        (vec!["x", "scale", "bias"], vec![t("scale", &scale), t("bias", &bias)])
    };
    let n = xcc_test_suite::onnx_build::with_int(node("n", op, &inputs, &["y"]), "axis", -1);
    let dims = [rows as i64, row as i64];
    let bytes = model(vec![n], vec![value("x", 1, &dims)], vec![value("y", 1, &dims)], inits);
    (name.to_string(), bytes, x, y)
}

/// Log, Sin, Cos, Tan, Atan and Pow, which GPU code computes with xcc's own polynomials, over
/// sweeps of 20,001 inputs (Log from subnormals to 1e30 and its special values, Sin and Cos over
/// [-100, 100], Tan over [-1.5, 1.5] (up to its poles), Atan over +-1e4 and the infinities, Pow of bases over [-8, 8] to the exponents -3 .. 3 in steps of 0.5, so negative
/// bases meet integer and non-integer exponents); expected values from Rust's f64 functions.
fn device_math() -> Vec<EdgeCase> {
    let n = 20_001usize;
    let unary = |name: &str, op: &str, x: Vec<f32>, f: fn(f64) -> f64| {
        let y = x.iter().map(|&v| f(v as f64) as f32).collect();
        let dims = [x.len() as i64];
        let bytes =
            model(vec![node("f", op, &["x"], &["y"])], vec![value("x", 1, &dims)], vec![value("y", 1, &dims)], vec![]);
        (name.to_string(), bytes, x, y)
    };
    let mut logs: Vec<f32> = (0..n).map(|i| 10f64.powf(-40.0 + 70.0 * i as f64 / (n - 1) as f64) as f32).collect();
    logs.extend([0.0, -0.0, -1.0, f32::INFINITY, f32::NAN, 1.0, f32::MIN_POSITIVE, 1e-45]);
    let angles: Vec<f32> = (0..n).map(|i| (-100.0 + 200.0 * i as f64 / (n - 1) as f64) as f32).collect();
    let mut out = vec![
        unary("log_sweep", "Log", logs, f64::ln),
        unary("sin_sweep", "Sin", angles.clone(), f64::sin),
        unary("cos_sweep", "Cos", angles, f64::cos),
        unary("tan_sweep", "Tan", (0..n).map(|i| (-1.5 + 3.0 * i as f64 / (n - 1) as f64) as f32).collect(), f64::tan),
    ];
    let mut slopes: Vec<f32> =
        (0..n).map(|i| -4.0 + 8.0 * i as f64 / (n - 1) as f64).map(|e| 10f64.powf(e) as f32).collect();
    slopes.extend(slopes.clone().iter().map(|v| -v));
    slopes.extend([0.0, 1.0, -1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN]);
    out.push(unary("atan_sweep", "Atan", slopes, f64::atan));
    let base: Vec<f32> = (0..n).map(|i| (-8.0 + 16.0 * i as f64 / (n - 1) as f64) as f32).collect();
    let exponents: Vec<f32> = (0..13).map(|k| -3.0 + 0.5 * k as f32).collect();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &e in &exponents {
        for &b in &base {
            xs.push(b);
            ys.push((b as f64).powf(e as f64) as f32);
        }
    }
    let (rows, cols) = (exponents.len() as i64, base.len() as i64);
    let bytes = model(
        vec![node("pow", "Pow", &["x", "e"], &["y"])],
        vec![value("x", 1, &[rows, cols])],
        vec![value("y", 1, &[rows, cols])],
        vec![xcc_test_suite::onnx_build::floats("e", &[rows, 1], &exponents)],
    );
    out.push(("pow_sweep".to_string(), bytes, xs, ys));
    out
}

/// A sweep's name, ONNX op, inputs and the f64 function it computes.
type Sweep = (&'static str, &'static str, Vec<f32>, fn(f64) -> f64);

/// erf by Simpson's rule over `2/sqrt(pi) exp(-t^2)` from 0 (4,000 intervals up to 6, past
/// which erf is 1 in f32): an oracle independent of the series the GPU code sums.
fn erf_by_simpson(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let to = x.abs().min(6.0);
    let n = 4_000;
    let h = to / n as f64;
    let f = |t: f64| (-t * t).exp();
    let inner: f64 = (1..n).map(|i| f(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 }).sum();
    let integral = h / 3.0 * (f(0.0) + inner + f(to));
    (std::f64::consts::FRAC_2_SQRT_PI * integral).copysign(x)
}

/// The functions GPU code derives from exp, log, atan and sqrt (Sinh, Cosh, Asinh, Acosh, Atanh,
/// Asin, Acos) over sweeps of 4,001 inputs with their domains' edges and NaN; then every
/// function with device code again in f64, between a Cast to double and one back (so f64's own
/// exp, log, sin, cos, atan and erf run; the comparison sees their results rounded to f32).
/// Expected values from Rust's f64 functions, erf's from [`erf_by_simpson`].
fn derived_math() -> Vec<EdgeCase> {
    let n = 4_001usize;
    let sweep = |from: f64, to: f64| -> Vec<f32> {
        (0..n).map(|i| (from + (to - from) * i as f64 / (n - 1) as f64) as f32).collect()
    };
    let logs = |from: f64, to: f64| -> Vec<f32> {
        let mut v: Vec<f32> = sweep(from, to).iter().map(|&e| 10f64.powf(e as f64) as f32).collect();
        v.extend(v.clone().iter().map(|x| -x));
        v
    };
    let with = |mut v: Vec<f32>, extra: &[f32]| {
        v.extend_from_slice(extra);
        v
    };
    let nan = f32::NAN;
    let cases: Vec<Sweep> = vec![
        ("sinh", "Sinh", with(sweep(-30.0, 30.0), &[1e-6, -1e-20, 0.0, 89.0, nan]), f64::sinh),
        ("cosh", "Cosh", with(sweep(-30.0, 30.0), &[1e-6, 0.0, -89.0, nan]), f64::cosh),
        ("asinh", "Asinh", with(logs(-6.0, 12.0), &[0.0, f32::INFINITY, nan]), f64::asinh),
        ("acosh", "Acosh", with(logs(0.0, 12.0), &[1.0, 1.0000001, 0.5, nan]), f64::acosh),
        ("atanh", "Atanh", with(sweep(-0.9999, 0.9999), &[1e-7, 1.0, -1.0, 2.0, nan]), f64::atanh),
        ("asin", "Asin", with(sweep(-1.0, 1.0), &[1e-7, 1.5, nan]), f64::asin),
        ("acos", "Acos", with(sweep(-1.0, 1.0), &[1e-7, -1.5, nan]), f64::acos),
        ("exp", "Exp", with(sweep(-100.0, 100.0), &[1e-8, 0.0, nan]), f64::exp),
        ("log", "Log", with(logs(-40.0, 38.0), &[0.0, 1.0, f32::INFINITY, nan]), f64::ln),
        ("sin", "Sin", sweep(-100.0, 100.0), f64::sin),
        ("cos", "Cos", sweep(-100.0, 100.0), f64::cos),
        ("tan", "Tan", sweep(-1.5, 1.5), f64::tan),
        ("atan", "Atan", with(logs(-4.0, 4.0), &[0.0, f32::INFINITY, nan]), f64::atan),
        ("tanh", "Tanh", with(sweep(-30.0, 30.0), &[1e-7, nan]), f64::tanh),
        ("erf", "Erf", with(sweep(-7.0, 7.0), &[1e-30, -1e-7, f32::INFINITY, -f32::INFINITY, nan]), erf_by_simpson),
    ];
    let mut out = Vec::new();
    for (name, op, x, f) in cases {
        let y: Vec<f32> = x.iter().map(|&v| f(v as f64) as f32).collect();
        let dims = [x.len() as i64];
        let cast = |n: &str, from: &str, to: &str, ty: i64| {
            xcc_test_suite::onnx_build::with_int(node(n, "Cast", &[from], &[to]), "to", ty)
        };
        if !matches!(op, "Exp" | "Log" | "Sin" | "Cos" | "Tan" | "Atan" | "Tanh" | "Erf") {
            let bytes = model(
                vec![node("f", op, &["x"], &["y"])],
                vec![value("x", 1, &dims)],
                vec![value("y", 1, &dims)],
                vec![],
            );
            out.push((format!("{name}_sweep"), bytes, x.clone(), y.clone()));
        }
        let nodes = vec![cast("up", "x", "d", 11), node("f", op, &["d"], &["e"]), cast("down", "e", "y", 1)];
        let bytes = model(nodes, vec![value("x", 1, &dims)], vec![value("y", 1, &dims)], vec![]);
        out.push((format!("{name}_f64_sweep"), bytes, x, y));
    }
    out
}

/// Gemm (B transposed, a bias) of 15 outputs over K = 256: few outputs, so GPU code splits the
/// sums over runs of K. Expected values summed here in f64.
fn split_gemm() -> EdgeCase {
    let (m, n, k) = (3usize, 5usize, 256usize);
    let (x, w, bias) = (pseudo_random(m * k, 21), pseudo_random(n * k, 22), pseudo_random(n, 23));
    let mut y = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k).map(|q| x[i * k + q] as f64 * w[j * k + q] as f64).sum();
            y.push((dot + bias[j] as f64) as f32);
        }
    }
    let gemm = xcc_test_suite::onnx_build::with_int(node("gemm", "Gemm", &["x", "w", "b"], &["y"]), "transB", 1);
    let bytes = model(
        vec![gemm],
        vec![value("x", 1, &[m as i64, k as i64])],
        vec![value("y", 1, &[m as i64, n as i64])],
        vec![
            xcc_test_suite::onnx_build::floats("w", &[n as i64, k as i64], &w),
            xcc_test_suite::onnx_build::floats("b", &[n as i64], &bias),
        ],
    );
    ("gemm_split_over_k".to_string(), bytes, x, y)
}

/// A 3x3 convolution (padding 1, bias) of 64 input channels onto a 5x5 plane: few outputs and
/// many channels, so the GPU code splits its sums over runs of channels. Expected values summed
/// here in f64.
fn split_conv(name: &str, group: usize) -> EdgeCase {
    let (ic, oc, hw) = (64usize, 8usize, 5usize);
    let icg = ic / group;
    let x = pseudo_random(ic * hw * hw, 3);
    let w = pseudo_random(oc * icg * 9, 4);
    let bias = pseudo_random(oc, 5);
    let mut y = Vec::new();
    for o in 0..oc {
        let g = o / (oc / group);
        for i in 0..hw {
            for j in 0..hw {
                let mut acc = bias[o] as f64;
                for c in 0..icg {
                    for (ki, kj) in (0..9).map(|k| (k / 3, k % 3)) {
                        let (r, q) = (i as i64 + ki as i64 - 1, j as i64 + kj as i64 - 1);
                        if (0..hw as i64).contains(&r) && (0..hw as i64).contains(&q) {
                            let xv = x[((g * icg + c) * hw + r as usize) * hw + q as usize] as f64;
                            acc += xv * w[((o * icg + c) * 3 + ki) * 3 + kj] as f64;
                        }
                    }
                }
                y.push(acc as f32);
            }
        }
    }
    let conv = node("conv", "Conv", &["x", "w", "b"], &["y"]);
    let conv = xcc_test_suite::onnx_build::with_ints(conv, "pads", &[1, 1, 1, 1]);
    let conv = xcc_test_suite::onnx_build::with_int(conv, "group", group as i64);
    let bytes = model(
        vec![conv],
        vec![value("x", 1, &[1, ic as i64, hw as i64, hw as i64])],
        vec![value("y", 1, &[1, oc as i64, hw as i64, hw as i64])],
        vec![
            xcc_test_suite::onnx_build::floats("w", &[oc as i64, icg as i64, 3, 3], &w),
            xcc_test_suite::onnx_build::floats("b", &[oc as i64], &bias),
        ],
    );
    (name.to_string(), bytes, x, y)
}

/// GEMMs tiled through shared memory (`--gpu-gemm=tiled` for the small ones; in the emulator a
/// block's threads run as coroutines that meet at its barriers): sizes past whole 64 x 64 tiles
/// and 16-deep slices, a batch sharing B, transposes with alpha, beta and a bias, convolutions
/// as implicit GEMMs, and a matmul and a convolution large enough to be tiled by default.
/// Expected values summed here in f64.
fn tiled_cases() -> Vec<(EdgeCase, &'static [&'static str])> {
    let tiled: &[&str] = &["--gpu-gemm=tiled"];
    let mut out = Vec::new();
    out.push((ragged_matmul("tiled_matmul_batch_ragged", pseudo_random, &|v| v), tiled));
    out.push((transposed_gemm("tiled_gemm_transposed_bias", pseudo_random), tiled));
    // 16 x 8 = 128 tiles over K = 64: tiled without being asked.
    let (m, n, k) = (1024usize, 512usize, 64usize);
    let (a, b) = (pseudo_random(m * k, 36), pseudo_random(k * n, 37));
    let y = gemm_reference(&a, &b, (m, n, k), (false, false));
    let bytes = matmul_model(&[], (m, n, k), &b);
    out.push((("tiled_matmul_by_default".to_string(), bytes, a, y), &[][..]));
    // Convolutions as implicit GEMMs: two groups of 12 output channels over 2 images, strided,
    // dilated and unevenly padded, with a bias and a fused Relu; and a 3x3 one of 64 channels
    // over 2 images of 64x64 (128 tiles of 64 positions, K = 288), tiled without being asked.
    out.push((conv_case("tiled_conv_grouped_strided_dilated", &GROUPED, true, pseudo_random), tiled));
    let shape = ConvShape {
        batch: 2,
        ic: 32,
        oc: 64,
        group: 1,
        hw: (64, 64),
        kernel: (3, 3),
        stride: (1, 1),
        dilation: (1, 1),
        pads: [1, 1, 1, 1],
    };
    out.push((conv_case("tiled_conv_by_default", &shape, false, pseudo_random), &[][..]));
    // One element through the tiles (one tile, almost all of it past the edges), on FMA units
    // and on tensor cores (0.75, 2.5 and -3 are exact in TF32).
    let tensor_cores: &[&str] = &["--gpu-gemm=tiled", "--tf32"];
    for (suffix, flags) in [("tiled", tiled), ("tf32", tensor_cores)] {
        for (name, bytes, x, y) in one_element_ops().into_iter().take(2) {
            out.push(((format!("{name}_{suffix}"), bytes, x, y), flags));
        }
    }
    out
}

/// MatMul of an input A (`batch` x m x k) by a constant B (k x n).
fn matmul_model(batch: &[usize], (m, n, k): (usize, usize, usize), b: &[f32]) -> Vec<u8> {
    let dims = |last: [usize; 2]| batch.iter().chain(&last).map(|&d| d as i64).collect::<Vec<i64>>();
    model(
        vec![node("matmul", "MatMul", &["a", "b"], &["y"])],
        vec![value("a", 1, &dims([m, k]))],
        vec![value("y", 1, &dims([m, n]))],
        vec![xcc_test_suite::onnx_build::floats("b", &[k as i64, n as i64], b)],
    )
}

/// Inputs of `n` elements from a seed.
type Values = fn(usize, u64) -> Vec<f32>;

/// A MatMul of 2 matrices of 70 x 37 (sharing B) by 37 x 130: past whole 64 x 64 tiles and
/// 16-deep slices. `seen` is what the product sees of an input (TF32 rounds it).
fn ragged_matmul(name: &str, values: Values, seen: &dyn Fn(f32) -> f32) -> EdgeCase {
    let (batch, m, n, k) = (2usize, 70usize, 130usize, 37usize);
    let (a, b) = (values(batch * m * k, 31), values(k * n, 32));
    let (a_seen, b_seen): (Vec<f32>, Vec<f32>) =
        (a.iter().map(|&v| seen(v)).collect(), b.iter().map(|&v| seen(v)).collect());
    let mut y = Vec::new();
    for p in 0..batch {
        y.extend(gemm_reference(&a_seen[p * m * k..(p + 1) * m * k], &b_seen, (m, n, k), (false, false)));
    }
    let bytes = matmul_model(&[batch], (m, n, k), &b);
    (name.to_string(), bytes, a, y)
}

/// Gemm: y = 0.5 A' B' + 2 bias, A given K x M and B given N x K.
fn transposed_gemm(name: &str, values: Values) -> EdgeCase {
    let (m, n, k) = (65usize, 33usize, 17usize);
    let (a, b, bias) = (values(k * m, 33), values(n * k, 34), pseudo_random(n, 35));
    let y: Vec<f32> = gemm_reference(&a, &b, (m, n, k), (true, true))
        .iter()
        .enumerate()
        .map(|(at, &v)| (0.5 * v as f64 + 2.0 * bias[at % n] as f64) as f32)
        .collect();
    let gemm = node("gemm", "Gemm", &["a", "b", "c"], &["y"]);
    let gemm = xcc_test_suite::onnx_build::with_int(gemm, "transA", 1);
    let gemm = xcc_test_suite::onnx_build::with_int(gemm, "transB", 1);
    let gemm = xcc_test_suite::onnx_build::with_float(gemm, "alpha", 0.5);
    let gemm = xcc_test_suite::onnx_build::with_float(gemm, "beta", 2.0);
    let bytes = model(
        vec![gemm],
        vec![value("a", 1, &[k as i64, m as i64])],
        vec![value("y", 1, &[m as i64, n as i64])],
        vec![
            xcc_test_suite::onnx_build::floats("b", &[n as i64, k as i64], &b),
            xcc_test_suite::onnx_build::floats("c", &[n as i64], &bias),
        ],
    );
    (name.to_string(), bytes, a, y)
}

/// `v` rounded to TF32 (10 bits of mantissa) to nearest, ties away from zero, as
/// `cvt.rna.tf32.f32`: by f64 arithmetic on the value (f64's `round` takes ties away from zero).
fn tf32_rounded(v: f32) -> f32 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let x = v as f64;
    let quantum = 2f64.powi(x.abs().log2().floor() as i32 - 10);
    ((x / quantum).round() * quantum) as f32
}

/// [`pseudo_random`] values that TF32 holds exactly.
fn tf32_exact(n: usize, seed: u64) -> Vec<f32> {
    pseudo_random(n, seed).into_iter().map(tf32_rounded).collect()
}

/// The tiled GEMMs on tensor cores (`--tf32`; emulated, each warp's fragments spread over its
/// threads, which multiply them together at a barrier). Inputs that TF32 holds exactly leave only
/// the f32 sums' rounding (a fragment element read from or written to the wrong place is off by
/// far more): a ragged matmul, a transposed Gemm with a bias, a grouped, strided and dilated
/// convolution, a matmul tiled without `--gpu-gemm=tiled`, and more tiles than the grid has
/// blocks (a block's next tile must not copy its slices over the sums that its threads are still
/// reading: this one fails without the barrier after the reads). Inputs that TF32 rounds are
/// checked against sums of the inputs rounded to nearest (ties away from zero).
fn tf32_cases() -> Vec<(EdgeCase, &'static [&'static str])> {
    let tiled: &[&str] = &["--gpu-gemm=tiled", "--tf32"];
    let mut out = vec![
        (ragged_matmul("tf32_matmul_batch_ragged", tf32_exact, &|v| v), tiled),
        (transposed_gemm("tf32_gemm_transposed_bias", tf32_exact), tiled),
        (ragged_matmul("tf32_matmul_rounded_inputs", pseudo_random, &tf32_rounded), tiled),
    ];
    out.push((conv_case("tf32_conv_grouped_strided_dilated", &GROUPED, true, tf32_exact), tiled));
    // 16 x 8 = 128 tiles over K = 64: tiled without being asked.
    let (m, n, k) = (1024usize, 512usize, 64usize);
    let (a, b) = (tf32_exact(m * k, 36), tf32_exact(k * n, 37));
    let y = gemm_reference(&a, &b, (m, n, k), (false, false));
    let bytes = matmul_model(&[], (m, n, k), &b);
    out.push((("tf32_matmul_by_default".to_string(), bytes, a, y), &["--tf32"][..]));
    // 65,537 tiles (products of 3 x 5 by 5 x 2): more than the grid has blocks, so a block goes on
    // to a second tile, whose slices lie over the first one's sums.
    let (batch, m, n, k) = (65_537usize, 3usize, 2usize, 5usize);
    let (a, b) = (tf32_exact(batch * m * k, 38), tf32_exact(k * n, 39));
    let mut y = Vec::new();
    for p in 0..batch {
        y.extend(gemm_reference(&a[p * m * k..(p + 1) * m * k], &b, (m, n, k), (false, false)));
    }
    let bytes = matmul_model(&[batch], (m, n, k), &b);
    out.push((("tf32_matmul_more_tiles_than_blocks".to_string(), bytes, a, y), tiled));
    out
}

/// Two groups of 12 output channels over 2 images, strided, dilated and unevenly padded.
const GROUPED: ConvShape = ConvShape {
    batch: 2,
    ic: 6,
    oc: 24,
    group: 2,
    hw: (9, 11),
    kernel: (3, 2),
    stride: (2, 1),
    dilation: (1, 2),
    pads: [1, 0, 2, 1],
};

/// A 2-D convolution's sizes.
struct ConvShape {
    batch: usize,
    ic: usize,
    oc: usize,
    group: usize,
    hw: (usize, usize),
    kernel: (usize, usize),
    stride: (usize, usize),
    dilation: (usize, usize),
    /// Top, left, bottom, right.
    pads: [usize; 4],
}

/// Conv (with a bias; `relu`: followed by Relu) of `values` (input and weights), its output
/// summed here in f64.
fn conv_case(name: &str, s: &ConvShape, relu: bool, values: Values) -> EdgeCase {
    let (icg, ocg) = (s.ic / s.group, s.oc / s.group);
    let (h, w) = s.hw;
    let out_side = |size: usize, k: usize, stride: usize, dil: usize, lo: usize, hi: usize| {
        (size + lo + hi - dil * (k - 1) - 1) / stride + 1
    };
    let oh = out_side(h, s.kernel.0, s.stride.0, s.dilation.0, s.pads[0], s.pads[2]);
    let ow = out_side(w, s.kernel.1, s.stride.1, s.dilation.1, s.pads[1], s.pads[3]);
    let x = values(s.batch * s.ic * h * w, 41);
    let wt = values(s.oc * icg * s.kernel.0 * s.kernel.1, 42);
    let bias = pseudo_random(s.oc, 43);
    let mut y = Vec::with_capacity(s.batch * s.oc * oh * ow);
    for n in 0..s.batch {
        for o in 0..s.oc {
            let g = o / ocg;
            for i in 0..oh {
                for j in 0..ow {
                    let mut acc = bias[o] as f64;
                    for c in 0..icg {
                        for ki in 0..s.kernel.0 {
                            for kj in 0..s.kernel.1 {
                                let r = (i * s.stride.0 + ki * s.dilation.0) as i64 - s.pads[0] as i64;
                                let q = (j * s.stride.1 + kj * s.dilation.1) as i64 - s.pads[1] as i64;
                                if (0..h as i64).contains(&r) && (0..w as i64).contains(&q) {
                                    let xv = x[((n * s.ic + g * icg + c) * h + r as usize) * w + q as usize] as f64;
                                    acc += xv * wt[((o * icg + c) * s.kernel.0 + ki) * s.kernel.1 + kj] as f64;
                                }
                            }
                        }
                    }
                    y.push(if relu { acc.max(0.0) as f32 } else { acc as f32 });
                }
            }
        }
    }
    use xcc_test_suite::onnx_build::{floats, with_int, with_ints};
    let k = |a: usize, b: usize| [a as i64, b as i64];
    let conv = node("conv", "Conv", &["x", "w", "b"], &[if relu { "c" } else { "y" }]);
    let conv = with_ints(conv, "kernel_shape", &k(s.kernel.0, s.kernel.1));
    let conv = with_ints(conv, "strides", &k(s.stride.0, s.stride.1));
    let conv = with_ints(conv, "dilations", &k(s.dilation.0, s.dilation.1));
    let conv = with_ints(conv, "pads", &s.pads.map(|p| p as i64));
    let mut nodes = vec![with_int(conv, "group", s.group as i64)];
    if relu {
        nodes.push(node("relu", "Relu", &["c"], &["y"]));
    }
    let bytes = model(
        nodes,
        vec![value("x", 1, &[s.batch as i64, s.ic as i64, h as i64, w as i64])],
        vec![value("y", 1, &[s.batch as i64, s.oc as i64, oh as i64, ow as i64])],
        vec![
            floats("w", &[s.oc as i64, icg as i64, s.kernel.0 as i64, s.kernel.1 as i64], &wt),
            floats("b", &[s.oc as i64], &bias),
        ],
    );
    (name.to_string(), bytes, x, y)
}

/// `A B` in f64, rounded to f32: A is m x k (k x m if `ta`), B k x n (n x k if `tb`).
fn gemm_reference(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize), (ta, tb): (bool, bool)) -> Vec<f32> {
    let mut y = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let dot: f64 = (0..k)
                .map(|q| {
                    let av = if ta { a[q * m + i] } else { a[i * k + q] };
                    let bv = if tb { b[j * k + q] } else { b[q * n + j] };
                    av as f64 * bv as f64
                })
                .sum();
            y.push(dot as f32);
        }
    }
    y
}

fn edge_case(name: &str, bytes: &[u8], input: &[f32], want: &[f32], extra: &[&str]) -> Result<(), String> {
    let dir = work().join("edge").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let onnx = dir.join("m.onnx");
    std::fs::write(&onnx, bytes).unwrap();
    let input_file = dir.join("input.bin");
    std::fs::write(&input_file, input.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let case = Case { name: "m".into(), onnx, input: input_file, expected: None };
    let flags: Vec<&str> = ["--emulate-gpu"].iter().chain(extra).copied().collect();
    let got = build_and_run(&case, &dir, &flags)?;
    // Infinities and NaN must match exactly (compare_f32 takes equal infinities as a NaN gap).
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if (w.is_nan() || w.is_infinite()) && !(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan())) {
            return Err(format!("{name}: element {i} is {g}, expected {w}"));
        }
    }
    let finite: Vec<(f32, f32)> = got.iter().zip(want).filter(|(_, w)| w.is_finite()).map(|(&g, &w)| (g, w)).collect();
    let (g, w): (Vec<f32>, Vec<f32>) = finite.into_iter().unzip();
    let worst = compare_f32(name, &g, &w, 1e-5)?;
    println!("{name}: worst error {worst:.3} of the tolerance");
    Ok(())
}

fn gpu_present() -> bool {
    Command::new("nvidia-smi").arg("-L").output().is_ok_and(|o| o.status.success())
}

fn main() -> std::process::ExitCode {
    let has_shared = repo().join("../shared/models/manifest.json").exists();
    let has_venv = repo().join(".venv/bin/python").exists();
    let (ptxas, gpu) = (xcc_test_suite::ptxas(), gpu_present());
    if !has_shared {
        println!("skipped: the shared models (../shared/models is absent: a user's clone has no shared/)");
    }
    if !gpu {
        println!("skipped: the runs on a GPU (nvidia-smi finds none here); the emulated runs and ptxas stand in");
    }
    if ptxas.is_none() {
        println!("skipped: the PTX checks (no ptxas: scripts/setup.sh installs it into .venv)");
    }
    let mut trials = Vec::new();
    let cases: Vec<(String, bool)> = std::iter::once(("tiny_cnn".to_string(), has_venv))
        .chain(SHARED.iter().map(|n| (n.to_string(), has_shared && has_venv)))
        .collect();
    for (name, available) in cases {
        let load = {
            let name = name.clone();
            move || if name == "tiny_cnn" { tiny_cnn() } else { Ok(shared(&name)) }
        };
        let l = load.clone();
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/{name}/emulated"), move || Ok(emulated(&l()?)?))
                .with_ignored_flag(!available),
        );
        for (arch, tf32) in [("sm_80", false), ("sm_90", false), ("sm_80", true), ("sm_90", true)] {
            let (l, p) = (load.clone(), ptxas.clone());
            let trial = if tf32 {
                format!("gpu-models/{name}/tf32/ptx-{arch}")
            } else {
                format!("gpu-models/{name}/ptx-{arch}")
            };
            trials.push(
                libtest_mimic::Trial::test(trial, move || Ok(ptx(&l()?, arch, p.as_deref().expect("ptxas"), tf32)?))
                    .with_ignored_flag(!available || ptxas.is_none()),
            );
        }
        if name == "tiny_cnn" {
            for arch in ["sm_80", "sm_90"] {
                let (l, p) = (load.clone(), ptxas.clone());
                trials.push(
                    libtest_mimic::Trial::test(format!("gpu-models/{name}/cubin-{arch}"), move || {
                        Ok(embedded_cubin(&l()?, arch, p.as_deref().expect("ptxas"))?)
                    })
                    .with_ignored_flag(!available || ptxas.is_none()),
                );
            }
        }
        let l = load.clone();
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/{name}/tf32/emulated"), move || Ok(tf32_emulated(&l()?)?))
                .with_ignored_flag(!available),
        );
        let l = load.clone();
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/{name}/gpu"), move || Ok(on_gpu(&l()?)?))
                .with_ignored_flag(!available || !gpu),
        );
        let l = load.clone();
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/{name}/tf32/gpu"), move || Ok(tf32_on_gpu(&l()?)?))
                .with_ignored_flag(!available || !gpu),
        );
    }
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/two-models-concurrent/emulated", move || {
            Ok(two_models(&tiny_cnn()?, "two-emulated", &["--emulate-gpu"])?)
        })
        .with_ignored_flag(!has_venv),
    );
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/two-models-concurrent/gpu", move || {
            Ok(two_models(&tiny_cnn()?, "two-gpu", &[])?)
        })
        .with_ignored_flag(!has_venv || !gpu),
    );
    let failure_paths = [
        ("out-of-memory", "out_of_memory"),
        ("wrong-stream", "wrong_stream"),
        ("used-after-destroy", "used_after_destroy"),
    ];
    for (trial, program) in failure_paths {
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/tiny_cnn/{trial}/emulated"), move || {
                let case = tiny_cnn()?;
                Ok(failure_path(&case.onnx, ("m", program), &["--emulate-gpu"], &[&case.input])?)
            })
            .with_ignored_flag(!has_venv),
        );
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/tiny_cnn/{trial}/gpu"), move || {
                let case = tiny_cnn()?;
                Ok(failure_path(&case.onnx, ("m", program), &[], &[&case.input])?)
            })
            .with_ignored_flag(!has_venv || !gpu),
        );
    }
    for (mode, extra) in [("emulated", &["--emulate-gpu"][..]), ("gpu", &[])] {
        trials.push(
            libtest_mimic::Trial::test(format!("gpu-models/edge/index_out_of_range/{mode}"), move || {
                Ok(failure_path(&gather_model(), ("g", "index_out_of_range"), extra, &[])?)
            })
            .with_ignored_flag(mode == "gpu" && !gpu),
        );
    }
    let cross = xcc_test_suite::find_tool("aarch64-linux-gnu-gcc").is_some()
        && xcc_test_suite::find_tool("qemu-aarch64").is_some();
    if !cross {
        println!("skipped: gpu-models/tiny_cnn/aarch64-host (aarch64-linux-gnu-gcc or qemu-aarch64 is missing)");
    }
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/aarch64-host/emulated", move || {
            Ok(aarch64_host(&tiny_cnn()?, true)?)
        })
        .with_ignored_flag(!has_venv || !cross),
    );
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/aarch64-host/no-driver", move || {
            Ok(aarch64_host(&tiny_cnn()?, false)?)
        })
        .with_ignored_flag(!has_venv || !cross),
    );
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/profile/emulated", move || Ok(profile(&tiny_cnn()?)?))
            .with_ignored_flag(!has_venv),
    );
    trials.push(
        libtest_mimic::Trial::test("gpu-models/tiny_cnn/no-driver", move || Ok(no_driver(&tiny_cnn()?)?))
            .with_ignored_flag(!has_venv || gpu),
    );
    for (name, bytes, input, want) in edge_cases() {
        trials.push(libtest_mimic::Trial::test(format!("gpu-models/edge/{name}"), move || {
            Ok(edge_case(&name, &bytes, &input, &want, &[])?)
        }));
    }
    trials.push(libtest_mimic::Trial::test("gpu-models/edge/erf_f64_ulps", move || Ok(erf_f64_ulps()?)));
    for ((name, bytes, input, want), flags) in tiled_cases().into_iter().chain(tf32_cases()) {
        trials.push(libtest_mimic::Trial::test(format!("gpu-models/edge/{name}"), move || {
            Ok(edge_case(&name, &bytes, &input, &want, flags)?)
        }));
    }
    run_trials_then_discard(xcc_test_suite::sampled(trials, 3), &[work()])
}
