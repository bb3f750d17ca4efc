//! nvptx64: every kernel in `test-suite/gpu/*.mlir` compiles to PTX that `ptxas -v` accepts for
//! sm_80 and sm_90, with one `Compiling entry function` line per kernel (a `.func` where an
//! `.entry` was meant compiles to an empty cubin, so the line is what proves a real kernel).
//! Launching them needs a GPU and its driver; without one that part is skipped with a message.

use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::{file_trials, ptxas, run_trials, suite_dir, xcc_binary};

fn kernels(text: &str) -> Vec<String> {
    let m = xcc_ir::parser::parse_module(text).expect("test file parses");
    m.top_ops()
        .iter()
        .filter(|&&op| m.attr(op, "gpu.kernel").is_some() || m.attr(op, "nvvm.kernel").is_some())
        .filter_map(|&op| m.sym_name(op).map(str::to_string))
        .collect()
}

/// Compiles a kernel file for `arch` and checks its PTX with ptxas; returns the PTX's path.
fn check_arch(ptxas: &Path, file: &Path, work: &Path, arch: &str) -> Result<PathBuf, String> {
    let name = file.file_stem().unwrap().to_string_lossy().to_string();
    let expected = kernels(&std::fs::read_to_string(file).map_err(|e| e.to_string())?);
    if expected.is_empty() {
        return Err(format!("{name}: a GPU test needs at least one kernel"));
    }
    let ptx = work.join(format!("{name}.{arch}.ptx"));
    let out = Command::new(xcc_binary())
        .arg(file)
        .args(["--target=nvptx64", &format!("--mcpu={arch}"), "-o"])
        .arg(&ptx)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("{arch}: xcc failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let text = std::fs::read_to_string(&ptx).map_err(|e| e.to_string())?;
    if let Some(k) = expected.iter().find(|k| !text.contains(&format!(".entry {k}("))) {
        return Err(format!("{arch}: no .entry for kernel {k}"));
    }
    let out = Command::new(ptxas)
        .args(["-v", &format!("-arch={arch}")])
        .arg(&ptx)
        .arg("-o")
        .arg(ptx.with_extension("cubin"))
        .output()
        .map_err(|e| e.to_string())?;
    let log = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("{arch}: ptxas rejected the PTX:\n{log}"));
    }
    if let Some(k) = expected.iter().find(|k| !log.contains(&format!("Compiling entry function '{k}' for '{arch}'"))) {
        return Err(format!("{arch}: ptxas did not compile entry function {k}:\n{log}"));
    }
    Ok(ptx)
}

/// Launches saxpy through runtime-c's CUDA shim and checks the numbers (a GPU only).
fn launch_saxpy(ptxas: &Path, work: &Path) -> Result<(), String> {
    let ptx = check_arch(ptxas, &suite_dir().join("gpu/saxpy.mlir"), work, "sm_80")?;
    let objects = xcc_runtime_c::objects_for_arch("x86_64").expect("runtime objects");
    let mut parts = Vec::new();
    for (name, obj) in xcc_runtime_c::runtime_members(&objects.runtime) {
        std::fs::write(work.join(&name), obj).map_err(|e| e.to_string())?;
        parts.push(work.join(name));
    }
    for (name, obj) in objects.cuda_members() {
        std::fs::write(work.join(&name), obj).map_err(|e| e.to_string())?;
        parts.push(work.join(name));
    }
    std::fs::write(work.join("xcc_runtime.h"), xcc_runtime_c::HEADER).map_err(|e| e.to_string())?;
    let exe = work.join("saxpy_launch");
    let st = Command::new("cc")
        .arg("-I")
        .arg(work)
        .arg(suite_dir().join("gpu/saxpy_launch.c"))
        .args(&parts)
        .args(["-lpthread", "-ldl", "-o"])
        .arg(&exe)
        .status()
        .map_err(|e| e.to_string())?;
    if !st.success() {
        return Err("linking the launch harness failed".into());
    }
    let out = Command::new(&exe).arg(&ptx).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains("ok") {
        return Err(format!("saxpy launch on the GPU failed: {text}"));
    }
    Ok(())
}

fn aarch64_objects_are_well_formed() -> Result<(), String> {
    let work = suite_dir().parent().unwrap().join("target/xcc-tests/aarch64-obj");
    std::fs::create_dir_all(&work).unwrap();
    let src = suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir");
    let obj = work.join("matmul.o");
    let out = Command::new(xcc_binary()).arg(&src).args(["--target=aarch64", "-o"]).arg(&obj).output().unwrap();
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let header = Command::new("readelf").arg("-h").arg(&obj).output().map_err(|e| format!("readelf: {e}"))?;
    let text = String::from_utf8_lossy(&header.stdout);
    if !text.contains("AArch64") || !text.contains("REL (Relocatable file)") {
        return Err(format!("not a relocatable AArch64 object:\n{text}"));
    }
    let syms = Command::new("readelf").arg("-s").arg(&obj).output().map_err(|e| format!("readelf: {e}"))?;
    let syms = String::from_utf8_lossy(&syms.stdout);
    for f in ["matmul", "_mlir_ciface_matmul"] {
        if !syms.lines().any(|l| l.contains("FUNC") && l.contains("GLOBAL") && l.trim_end().ends_with(f)) {
            return Err(format!("no global function {f}:\n{syms}"));
        }
    }
    Ok(())
}

/// One test per kernel file (PTX for sm_80 and sm_90 through `ptxas -v`), the saxpy launch
/// (ignored without a GPU and its driver, or without ptxas), and the aarch64 object check.
fn main() -> std::process::ExitCode {
    let ptxas = ptxas();
    if ptxas.is_none() {
        println!("skipped: ptxas not found (scripts/setup.sh installs nvidia-cuda-nvcc into .venv)");
    }
    let has_gpu = Command::new("nvidia-smi").output().map(|o| o.status.success()).unwrap_or(false);
    if !has_gpu {
        println!("skipped: gpu/saxpy launch (no GPU and driver here: the kernels are checked by ptxas only)");
    }
    let work = suite_dir().parent().unwrap().join("target/xcc-tests/gpu");
    std::fs::create_dir_all(&work).unwrap();
    let tool = ptxas.clone().unwrap_or_default();
    let mut trials: Vec<libtest_mimic::Trial> = {
        let (tool, work) = (tool.clone(), work.clone());
        file_trials("gpu", "mlir", move |f| {
            for arch in ["sm_80", "sm_90"] {
                check_arch(&tool, f, &work, arch).map_err(|e| vec![e])?;
            }
            Ok(Vec::new())
        })
    }
    .into_iter()
    .map(|t| t.with_ignored_flag(ptxas.is_none()))
    .collect();
    trials.push(
        libtest_mimic::Trial::test("gpu/saxpy_launch", move || Ok(launch_saxpy(&tool, &work)?))
            .with_ignored_flag(!has_gpu || ptxas.is_none()),
    );
    trials
        .push(libtest_mimic::Trial::test("aarch64/objects_are_well_formed", || Ok(aarch64_objects_are_well_formed()?)));
    run_trials(trials)
}
