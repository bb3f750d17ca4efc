//! nvptx64: every kernel in `test-suite/gpu/*.mlir` compiles to PTX that `ptxas -v` accepts for
//! sm_80 and sm_90, with one `Compiling entry function` line per kernel (a `.func` where an
//! `.entry` was meant compiles to an empty cubin, so the line is what proves a real kernel).
//! Launching them needs a GPU and its driver; without one that part is skipped with a message.

use std::path::PathBuf;
use std::process::Command;
use xcc_test_suite::{suite_dir, xcc_binary};

fn ptxas() -> Option<PathBuf> {
    let root = suite_dir().parent().expect("repo root").to_path_buf();
    if let Ok(entries) = std::fs::read_dir(root.join(".venv/lib")) {
        for e in entries.flatten() {
            let p = e.path().join("site-packages/nvidia/cu13/bin/ptxas");
            if p.exists() {
                return Some(p);
            }
        }
    }
    let on_path = Command::new("ptxas").arg("--version").output().ok()?;
    on_path.status.success().then(|| PathBuf::from("ptxas"))
}

fn kernels(text: &str) -> Vec<String> {
    let m = xcc_ir::parser::parse_module(text).expect("test file parses");
    m.top_ops()
        .iter()
        .filter(|&&op| m.attr(op, "gpu.kernel").is_some() || m.attr(op, "nvvm.kernel").is_some())
        .filter_map(|&op| m.sym_name(op).map(str::to_string))
        .collect()
}

#[test]
fn kernels_pass_ptxas() {
    let Some(ptxas) = ptxas() else {
        println!("SKIP: ptxas not found (scripts/setup.sh installs nvidia-cuda-nvcc into .venv)");
        return;
    };
    let work = suite_dir().parent().unwrap().join("target/xcc-tests/gpu");
    std::fs::create_dir_all(&work).unwrap();
    let mut files: Vec<_> = std::fs::read_dir(suite_dir().join("gpu")).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for file in files.iter().filter(|p| p.extension().is_some_and(|e| e == "mlir")) {
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let expected = kernels(&std::fs::read_to_string(file).unwrap());
        assert!(!expected.is_empty(), "{name}: a GPU test needs at least one kernel");
        for arch in ["sm_80", "sm_90"] {
            let ptx = work.join(format!("{name}.{arch}.ptx"));
            let out = Command::new(xcc_binary())
                .arg(file)
                .args(["--target=nvptx64", &format!("--mcpu={arch}"), "-o"])
                .arg(&ptx)
                .output()
                .unwrap();
            if !out.status.success() {
                failures.push(format!("{name} ({arch}): xcc failed: {}", String::from_utf8_lossy(&out.stderr)));
                continue;
            }
            let text = std::fs::read_to_string(&ptx).unwrap();
            for k in &expected {
                if !text.contains(&format!(".entry {k}(")) {
                    failures.push(format!("{name} ({arch}): no .entry for kernel {k}"));
                }
            }
            let out = Command::new(&ptxas)
                .args(["-v", &format!("-arch={arch}")])
                .arg(&ptx)
                .arg("-o")
                .arg(ptx.with_extension("cubin"))
                .output()
                .unwrap();
            let log = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
            if !out.status.success() {
                failures.push(format!("{name} ({arch}): ptxas rejected the PTX:\n{log}"));
                continue;
            }
            for k in &expected {
                if !log.contains(&format!("Compiling entry function '{k}' for '{arch}'")) {
                    failures.push(format!("{name} ({arch}): ptxas did not compile entry function {k}:\n{log}"));
                }
            }
            checked += 1;
        }
        println!("PASS gpu/{name} ({} kernel(s), sm_80 and sm_90)", expected.len());
    }
    let has_gpu = Command::new("nvidia-smi").output().map(|o| o.status.success()).unwrap_or(false);
    if has_gpu {
        // Launch saxpy through runtime-c's CUDA shim and check the numbers.
        let obj = work.join("xcc_runtime.o");
        std::fs::write(&obj, xcc_runtime_c::object_for_arch("x86_64").expect("runtime object")).unwrap();
        std::fs::write(work.join("xcc_runtime.h"), xcc_runtime_c::HEADER).unwrap();
        let exe = work.join("saxpy_launch");
        let st = Command::new("cc")
            .arg("-I")
            .arg(&work)
            .arg(suite_dir().join("gpu/saxpy_launch.c"))
            .arg(&obj)
            .args(["-lpthread", "-ldl", "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(st.success(), "linking the launch harness failed");
        let out = Command::new(&exe).arg(work.join("saxpy.sm_80.ptx")).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() || !text.contains("ok") {
            failures.push(format!("saxpy launch on the GPU failed: {text}"));
        } else {
            println!("PASS gpu/saxpy launched on the GPU");
        }
    } else {
        println!("SKIP: no GPU and driver on this machine: kernels were checked by ptxas only, not launched");
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert!(checked >= 8, "expected at least 4 kernel files x 2 architectures");
}

#[test]
fn aarch64_objects_are_well_formed() {
    let work = suite_dir().parent().unwrap().join("target/xcc-tests/aarch64-obj");
    std::fs::create_dir_all(&work).unwrap();
    let src = suite_dir().parent().unwrap().join("examples/matmul/matmul.mlir");
    let obj = work.join("matmul.o");
    let out = Command::new(xcc_binary()).arg(&src).args(["--target=aarch64", "-o"]).arg(&obj).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let header = Command::new("readelf").arg("-h").arg(&obj).output().expect("readelf");
    let text = String::from_utf8_lossy(&header.stdout);
    assert!(text.contains("AArch64"), "not an AArch64 object:\n{text}");
    assert!(text.contains("REL (Relocatable file)"), "not a relocatable object:\n{text}");
    let syms = Command::new("readelf").arg("-s").arg(&obj).output().expect("readelf");
    let syms = String::from_utf8_lossy(&syms.stdout);
    for f in ["matmul", "_mlir_ciface_matmul"] {
        assert!(
            syms.lines().any(|l| l.contains("FUNC") && l.contains("GLOBAL") && l.trim_end().ends_with(f)),
            "no global function {f}:\n{syms}"
        );
    }
}
