//! The C runtime that programs compiled by xcc link against (aligned
//! allocation, asynchronous DMA, the thread pool behind parallel loops), prebuilt for every supported CPU target
//! by `build.rs` and embedded here so the driver can link without a C compiler.

static X86_64: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/xcc_runtime_x86_64.o"));
static AARCH64: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/xcc_runtime_aarch64.o"));

/// The runtime compiled for `arch` ("x86_64" or "aarch64"), as an ELF relocatable object.
pub fn object_for_arch(arch: &str) -> Option<&'static [u8]> {
    match arch {
        "x86_64" => Some(X86_64),
        "aarch64" => Some(AARCH64),
        _ => None,
    }
}

/// The C source, for users who build the runtime themselves.
pub const SOURCE: &str = include_str!("../c/xcc_runtime.c");

/// The C header declaring the runtime's functions (`#include "xcc_runtime.h"`).
pub const HEADER: &str = include_str!("../c/xcc_runtime.h");

/// The declarations of parallel runs (thread pools, run options, a caller's parallel-for),
/// which `xcc_runtime.h` includes and every model header repeats.
pub const PARALLEL_HEADER: &str = include_str!("../c/xcc_parallel.h");

#[cfg(test)]
mod tests {
    use super::*;

    /// ELF magic, relocatable type, and the machine each arch must carry.
    #[test]
    fn embedded_objects_are_elf_relocatables_for_their_arch() {
        for (arch, machine) in [("x86_64", 62u16), ("aarch64", 183u16)] {
            let obj = object_for_arch(arch).unwrap();
            assert_eq!(&obj[..4], b"\x7fELF", "{arch}");
            assert_eq!(u16::from_le_bytes([obj[16], obj[17]]), 1, "{arch}: ET_REL");
            assert_eq!(u16::from_le_bytes([obj[18], obj[19]]), machine, "{arch}: e_machine");
        }
        assert!(object_for_arch("riscv64").is_none());
    }

    #[test]
    fn source_and_header_declare_the_abi() {
        for name in ["xcc_alloc", "xcc_free", "xcc_dma_start", "xcc_dma_wait"] {
            assert!(SOURCE.contains(name) && HEADER.contains(name), "{name}");
        }
    }
}
