//! Compiles each runtime source (`c/xcc_runtime.c`, `c/xcc_cuda.c`, `c/xcc_gpu.c`, its emulator
//! `c/xcc_gpu_emu.c`) once per supported CPU
//! target with clang-22, and leaves the objects in OUT_DIR as `<source>_<arch>.o` for
//! `include_bytes!`.
//! clang rather than the host `cc` because one clang cross-compiles to every
//! target, so the embedded objects do not depend on which cross gcc is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

const CLANG: &str = "clang-22";
/// The CPU runtime, and the CUDA launch shim that only libraries launching kernels carry.
/// The GPU models' host runtime (`xcc_gpu`) and its emulator (`xcc_gpu_emu`), for libraries
/// built with `--target=nvptx64`.
const SOURCES: &[&str] = &["xcc_runtime", "xcc_cuda", "xcc_gpu", "xcc_gpu_emu"];
const TARGETS: &[(&str, &str)] = &[("x86_64", "x86_64-unknown-linux-gnu"), ("aarch64", "aarch64-unknown-linux-gnu")];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=c/xcc_runtime.c");
    println!("cargo:rerun-if-changed=c/xcc_image.c");
    println!("cargo:rerun-if-changed=c/xcc_cuda.c");
    println!("cargo:rerun-if-changed=c/xcc_gpu.c");
    println!("cargo:rerun-if-changed=c/xcc_gpu_emu.c");
    println!("cargo:rerun-if-changed=c/xcc_gpu.h");
    println!("cargo:rerun-if-changed=c/xcc_runtime.h");
    println!("cargo:rerun-if-changed=c/xcc_run.h");

    if Command::new(CLANG).arg("--version").output().is_err() {
        panic!(
            "{CLANG} not found on PATH: it is needed to build the xcc C runtime; run `scripts/setup.sh` to install it"
        );
    }

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR not set"));
    let host = std::env::var("HOST").expect("HOST not set");
    for &(arch, triple) in TARGETS {
        for source in SOURCES {
            let obj = compile(source, arch, triple, &host, &out_dir, &[]);
            copy(&obj, &out_dir.join(format!("{source}_{arch}.o")));
        }
    }
    // The runtime of `xcc --sanitize=address` libraries: instrumented like the model's code, for
    // programs linked with -fsanitize=address.
    let obj = compile("xcc_runtime", "x86_64", "x86_64-unknown-linux-gnu", &host, &out_dir, ASAN);
    copy(&obj, &out_dir.join("xcc_runtime_x86_64_asan.o"));
}

const ASAN: &[&str] = &["-fsanitize=address", "-fno-omit-frame-pointer"];

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copying {} to {}: {e}", from.display(), to.display()));
}

fn compile(source: &str, arch: &str, triple: &str, host: &str, out_dir: &Path, extra: &[&str]) -> PathBuf {
    let variant = if extra.is_empty() { String::new() } else { "-sanitized".to_string() };
    let mut build = cc::Build::new();
    build
        .compiler(CLANG)
        .target(triple)
        .host(host)
        // Each target and source in its own directory: the object names would collide.
        .out_dir(out_dir.join(format!("obj-{source}-{arch}{variant}")))
        .file(format!("c/{source}.c"))
        .include("c")
        .std("c11")
        // Fixed flags regardless of the cargo profile: the objects are embedded
        // into the compiler and must be the same in debug and release builds.
        .opt_level(2)
        .debug(false)
        .pic(true)
        .cargo_metadata(false)
        .warnings(true)
        .extra_warnings(true)
        .flag("-O2")
        .flag("-fPIC")
        .flag("-ffunction-sections")
        .flag(format!("--target={triple}"));
    // Debian's cross libc headers live outside any sysroot layout; name them
    // first so the host's /usr/include (x86_64 bits/*) cannot be picked up.
    let cross_include = Path::new("/usr").join(format!("{arch}-linux-gnu/include"));
    if !host.starts_with(arch) && cross_include.is_dir() {
        build.flag("-isystem").flag(cross_include.to_str().unwrap());
    }
    for flag in extra {
        build.flag(flag);
    }
    if arch == "aarch64" {
        // Inline LL/SC atomics instead of calls to __aarch64_ldadd4_* helpers,
        // so the object links without libgcc/compiler-rt (e.g. by bare ld.lld).
        build.flag("-mno-outline-atomics");
    }
    let objects = build.compile_intermediates();
    match objects.as_slice() {
        [obj] => obj.clone(),
        other => panic!("expected one object for {triple}, cc produced {other:?}"),
    }
}
