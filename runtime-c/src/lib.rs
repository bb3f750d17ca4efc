//! The C runtime that programs compiled by xcc link against (aligned
//! allocation, asynchronous DMA, the thread pool behind parallel loops), prebuilt for every supported CPU target
//! by `build.rs` and embedded here so the driver can link without a C compiler.

/// runtime-c's CPU part, one source (`c/NAME.c`) and one object per concern: memory and DMA,
/// the thread pool and run options, status messages, the CPU level, STRING tensors, and
/// ImageDecoder's decoders. A library carries them as archive members of these names.
pub const RUNTIME_PARTS: [&str; 6] =
    ["xcc_memory", "xcc_parallel", "xcc_status", "xcc_cpu", "xcc_strings", "xcc_image"];

/// One CPU target's runtime objects (ELF relocatables). Every definition in them is weak, so that
/// any number of libraries carrying a copy link into one program.
#[derive(Clone, Copy, Debug)]
pub struct RuntimeObjects {
    /// The CPU part, in the order of [`RUNTIME_PARTS`].
    pub runtime: [&'static [u8]; 6],
    /// The CUDA launch shim (`xcc_cuda_*`), for MLIR programs that launch kernels.
    pub cuda: &'static [u8],
    /// The CUDA driver's loader (libcuda opened with `dlopen` on first use), which the shim and
    /// the GPU models' host runtime call.
    pub cuda_driver: &'static [u8],
    /// The host side of GPU models (`xcc_gpu_*`: contexts, weights, launches), on CUDA.
    pub gpu: &'static [u8],
    /// The same calls emulated on the CPU, for libraries built with `--emulate-gpu`.
    pub gpu_emulated: &'static [u8],
}

/// The prefix of the CUDA shim's functions: a library whose code calls one carries the shim.
pub const CUDA_SYMBOL_PREFIX: &str = "xcc_cuda_";

/// The objects of [`RUNTIME_PARTS`] built as `<part>_<variant>.o` (an arch, or `x86_64_asan`).
macro_rules! parts {
    ($variant:literal) => {
        [
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_memory_", $variant, ".o")),
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_parallel_", $variant, ".o")),
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_status_", $variant, ".o")),
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_cpu_", $variant, ".o")),
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_strings_", $variant, ".o")),
            include_bytes!(concat!(env!("OUT_DIR"), "/xcc_image_", $variant, ".o")),
        ]
    };
}

macro_rules! objects {
    ($arch:literal) => {
        RuntimeObjects {
            runtime: parts!($arch),
            cuda: include_bytes!(concat!(env!("OUT_DIR"), "/xcc_cuda_", $arch, ".o")),
            cuda_driver: include_bytes!(concat!(env!("OUT_DIR"), "/xcc_cuda_driver_", $arch, ".o")),
            gpu: include_bytes!(concat!(env!("OUT_DIR"), "/xcc_gpu_", $arch, ".o")),
            gpu_emulated: include_bytes!(concat!(env!("OUT_DIR"), "/xcc_gpu_emu_", $arch, ".o")),
        }
    };
}

impl RuntimeObjects {
    /// The archive members of the CUDA launch shim: the shim and the driver's loader.
    pub fn cuda_members(&self) -> Vec<(String, Vec<u8>)> {
        vec![("xcc_cuda.o".into(), self.cuda.to_vec()), ("xcc_cuda_driver.o".into(), self.cuda_driver.to_vec())]
    }

    /// The archive members of a GPU model's host runtime: on CUDA (with the driver's loader), or
    /// its grid emulated on the CPU.
    pub fn gpu_members(&self, emulated: bool) -> Vec<(String, Vec<u8>)> {
        match emulated {
            true => vec![("xcc_gpu.o".into(), self.gpu_emulated.to_vec())],
            false => {
                vec![("xcc_gpu.o".into(), self.gpu.to_vec()), ("xcc_cuda_driver.o".into(), self.cuda_driver.to_vec())]
            }
        }
    }
}

/// The CPU architectures the runtime is compiled for ([`objects_for_arch`]).
pub const ARCHES: [&str; 3] = ["x86_64", "aarch64", "riscv64"];

/// The runtime compiled for `arch` (one of [`ARCHES`]).
pub fn objects_for_arch(arch: &str) -> Option<RuntimeObjects> {
    match arch {
        "x86_64" => Some(objects!("x86_64")),
        "aarch64" => Some(objects!("aarch64")),
        "riscv64" => Some(objects!("riscv64")),
        _ => None,
    }
}

/// The x86_64 CPU part built with `-fsanitize=address`, for `xcc --sanitize=address` libraries.
pub const RUNTIME_X86_64_ASAN: [&[u8]; 6] = parts!("x86_64_asan");

/// The archive members of a runtime's CPU part: `NAME.o` per [`RUNTIME_PARTS`].
pub fn runtime_members(objects: &[&[u8]; 6]) -> Vec<(String, Vec<u8>)> {
    RUNTIME_PARTS.iter().zip(objects).map(|(name, obj)| (format!("{name}.o"), obj.to_vec())).collect()
}

/// The CPU part's C sources by file name, for users who build the runtime themselves: each
/// compiles alone beside [`INTERNAL_HEADER`], [`HEADER`] and [`RUN_HEADER`].
pub const SOURCES: [(&str, &str); 6] = [
    ("xcc_memory.c", include_str!("../c/xcc_memory.c")),
    ("xcc_parallel.c", include_str!("../c/xcc_parallel.c")),
    ("xcc_status.c", include_str!("../c/xcc_status.c")),
    ("xcc_cpu.c", include_str!("../c/xcc_cpu.c")),
    ("xcc_strings.c", include_str!("../c/xcc_strings.c")),
    ("xcc_image.c", include_str!("../c/xcc_image.c")),
];

/// What the CPU part's sources share (`xcc_internal.h`).
pub const INTERNAL_HEADER: &str = include_str!("../c/xcc_internal.h");

/// The CUDA launch shim's C source.
pub const CUDA_SOURCE: &str = include_str!("../c/xcc_cuda.c");

/// The C header declaring the runtime's functions (`#include "xcc_runtime.h"`).
pub const HEADER: &str = include_str!("../c/xcc_runtime.h");

/// The declarations of runs (status codes, thread pools, run options, a caller's parallel-for),
/// which `xcc_runtime.h` includes and every model header repeats.
pub const RUN_HEADER: &str = include_str!("../c/xcc_run.h");

/// The GPU context's declarations (`xcc_gpu.h`), repeated in every GPU model's header.
pub const GPU_HEADER: &str = include_str!("../c/xcc_gpu.h");

/// The status codes a run returns (`xcc_status` in `xcc_run.h`, which is the contract: a test
/// below reads the header and compares).
pub mod status {
    pub const OK: i32 = 0;
    pub const NULL_TENSOR: i32 = 1;
    pub const NULL_WORKSPACE: i32 = 2;
    pub const WORKSPACE_MISALIGNED: i32 = 3;
    pub const WORKSPACE_TOO_SMALL: i32 = 4;
    pub const INDEX_OUT_OF_RANGE: i32 = 5;
    pub const OUT_OF_MEMORY: i32 = 6;
    pub const BAD_DIM: i32 = 7;
    pub const BAD_SHAPE_INPUT: i32 = 8;
    pub const UNSUPPORTED_INPUT: i32 = 9;
    pub const DIVISION_BY_ZERO: i32 = 10;
    pub const NOT_A_NUMBER: i32 = 11;
    pub const BAD_IMAGE: i32 = 12;
    pub const ALIASED_BUFFERS: i32 = 13;
}

/// runtime-c's check of a run's workspace against its options:
/// `int32_t xcc_run_options_check_workspace(const xcc_run_options *, size_t needed)`.
pub const CHECK_WORKSPACE: &str = "xcc_run_options_check_workspace";

/// runtime-c's count of the threads a parallel loop would run on now, for code with a strategy
/// for few threads and one for many: `int32_t xcc_parallel_threads(void)` (0: a caller's own
/// parallel-for, of unknown width).
pub const PARALLEL_THREADS: &str = "xcc_parallel_threads";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_codes_match_the_header() {
        let codes = [
            ("XCC_OK", status::OK),
            ("XCC_ERROR_NULL_TENSOR", status::NULL_TENSOR),
            ("XCC_ERROR_NULL_WORKSPACE", status::NULL_WORKSPACE),
            ("XCC_ERROR_WORKSPACE_MISALIGNED", status::WORKSPACE_MISALIGNED),
            ("XCC_ERROR_WORKSPACE_TOO_SMALL", status::WORKSPACE_TOO_SMALL),
            ("XCC_ERROR_INDEX_OUT_OF_RANGE", status::INDEX_OUT_OF_RANGE),
            ("XCC_ERROR_OUT_OF_MEMORY", status::OUT_OF_MEMORY),
            ("XCC_ERROR_BAD_DIM", status::BAD_DIM),
            ("XCC_ERROR_BAD_SHAPE_INPUT", status::BAD_SHAPE_INPUT),
            ("XCC_ERROR_UNSUPPORTED_INPUT", status::UNSUPPORTED_INPUT),
            ("XCC_ERROR_DIVISION_BY_ZERO", status::DIVISION_BY_ZERO),
            ("XCC_ERROR_NOT_A_NUMBER", status::NOT_A_NUMBER),
            ("XCC_ERROR_BAD_IMAGE", status::BAD_IMAGE),
            ("XCC_ERROR_ALIASED_BUFFERS", status::ALIASED_BUFFERS),
        ];
        for (name, code) in codes {
            assert!(RUN_HEADER.contains(&format!("  {name} = {code},")), "{name} = {code} in xcc_run.h");
            assert!(SOURCES[2].1.contains(&format!("case {name}:")), "xcc_status_message covers {name}");
        }
        assert!(RUN_HEADER.contains(CHECK_WORKSPACE) && SOURCES[1].1.contains(CHECK_WORKSPACE));
    }

    /// ELF magic, relocatable type, and the machine each arch must carry.
    #[test]
    fn embedded_objects_are_elf_relocatables_for_their_arch() {
        for (arch, machine) in [("x86_64", 62u16), ("aarch64", 183u16), ("riscv64", 243u16)] {
            let objects = objects_for_arch(arch).unwrap();
            for obj in objects.runtime.into_iter().chain([
                objects.cuda,
                objects.cuda_driver,
                objects.gpu,
                objects.gpu_emulated,
            ]) {
                assert_eq!(&obj[..4], b"\x7fELF", "{arch}");
                assert_eq!(u16::from_le_bytes([obj[16], obj[17]]), 1, "{arch}: ET_REL");
                assert_eq!(u16::from_le_bytes([obj[18], obj[19]]), machine, "{arch}: e_machine");
            }
        }
        assert!(objects_for_arch("mips64").is_none());
        assert!(ARCHES.iter().all(|arch| objects_for_arch(arch).is_some()), "every arch named has its objects");
    }

    /// Every source of the CPU part, as one text.
    fn cpu_sources() -> String {
        SOURCES.iter().map(|(_, text)| *text).collect()
    }

    #[test]
    fn source_and_header_declare_the_abi() {
        let source = cpu_sources();
        for name in ["xcc_alloc", "xcc_free", "xcc_dma_start", "xcc_dma_wait"] {
            assert!(source.contains(name) && HEADER.contains(name), "{name}");
        }
        for name in ["xcc_cuda_launch", "xcc_cuda_alloc", "xcc_cuda_copy", "xcc_cuda_free"] {
            assert!(name.starts_with(CUDA_SYMBOL_PREFIX), "{name}");
            assert!(CUDA_SOURCE.contains(name) && HEADER.contains(name) && !source.contains(name), "{name}");
        }
        for (file, text) in SOURCES {
            assert!(text.contains("#include \"xcc_internal.h\""), "{file} includes what the parts share");
            assert!(!text.contains(".c\""), "{file} includes no other source");
        }
    }
}
