//! Compiles each runtime source once per supported CPU target with clang-22: the CPU part, one
//! source per concern (`c/xcc_memory.c`, ... [`RUNTIME_PARTS`]), the CUDA launch shim
//! (`c/xcc_cuda.c`), the CUDA driver's loader both of the CUDA parts call (`c/xcc_cuda_driver.c`),
//! and the GPU models' host runtime (`c/xcc_gpu.c`) twice, on CUDA and with its grid emulated
//! (`XCC_GPU_EMULATE`). The objects stay in OUT_DIR as `<object>_<arch>.o` for
//! `include_bytes!`.
//! clang rather than the host `cc` because one clang cross-compiles to every
//! target, so the embedded objects do not depend on which cross gcc is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

const CLANG: &str = "clang-22";
/// The CPU runtime's sources (as `xcc_runtime_c::RUNTIME_PARTS` lists them).
const RUNTIME_PARTS: [&str; 6] = ["xcc_memory", "xcc_parallel", "xcc_status", "xcc_cpu", "xcc_strings", "xcc_image"];
/// The other objects, each `(object, source, defines)`: the CUDA launch shim that only libraries
/// launching kernels carry, the CUDA driver's loader, and the GPU models' host runtime and its
/// emulator, for libraries built with `--target=nvptx64`.
const OTHERS: &[(&str, &str, &[&str])] = &[
    ("xcc_cuda", "xcc_cuda", &[]),
    ("xcc_cuda_driver", "xcc_cuda_driver", &[]),
    ("xcc_gpu", "xcc_gpu", &[]),
    ("xcc_gpu_emu", "xcc_gpu", &["-DXCC_GPU_EMULATE=1"]),
];
const TARGETS: &[(&str, &str)] = &[
    ("x86_64", "x86_64-unknown-linux-gnu"),
    ("aarch64", "aarch64-unknown-linux-gnu"),
    ("riscv64", "riscv64-unknown-linux-gnu"),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=c");

    if Command::new(CLANG).arg("--version").output().is_err() {
        panic!(
            "{CLANG} not found on PATH: it is needed to build the xcc C runtime; run `scripts/setup.sh` to install it"
        );
    }

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR not set"));
    let host = std::env::var("HOST").expect("HOST not set");
    let parts = RUNTIME_PARTS.iter().map(|&p| (p, p, &[][..]));
    let all: Vec<(&str, &str, &[&str])> = parts.chain(OTHERS.iter().copied()).collect();
    for &(arch, triple) in TARGETS {
        for &(object, source, defines) in &all {
            let obj = compile(object, source, arch, triple, &host, &out_dir, defines);
            copy(&obj, &out_dir.join(format!("{object}_{arch}.o")));
        }
    }
    // The runtime of `xcc --sanitize=address` libraries: instrumented like the model's code, for
    // programs linked with -fsanitize=address.
    for part in RUNTIME_PARTS {
        let obj = compile(&format!("{part}-asan"), part, "x86_64", "x86_64-unknown-linux-gnu", &host, &out_dir, ASAN);
        copy(&obj, &out_dir.join(format!("{part}_x86_64_asan.o")));
    }
}

const ASAN: &[&str] = &["-fsanitize=address", "-fno-omit-frame-pointer"];

fn copy(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copying {} to {}: {e}", from.display(), to.display()));
}

/// `c/<source>.c` compiled for `triple` with the `extra` flags, as `object` (which names its
/// build directory).
fn compile(
    object: &str,
    source: &str,
    arch: &str,
    triple: &str,
    host: &str,
    out_dir: &Path,
    extra: &[&str],
) -> PathBuf {
    let mut build = cc::Build::new();
    build
        .compiler(CLANG)
        .target(triple)
        .host(host)
        // Each target and source in its own directory: the object names would collide.
        .out_dir(out_dir.join(format!("obj-{object}-{arch}")))
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
    if arch == "riscv64" {
        // The base every Linux distribution targets, and its ABI (what xcc's models use).
        build.flag("-march=rv64gc").flag("-mabi=lp64d");
    }
    let objects = build.compile_intermediates();
    match objects.as_slice() {
        [obj] => obj.clone(),
        other => panic!("expected one object for {triple}, cc produced {other:?}"),
    }
}
