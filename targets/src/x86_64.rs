//! x86-64: levels v1 to v4 as runtime-c's `xcc_cpu_level()` numbers them, the default library's
//! copies for v3 (AVX2, FMA) and v4 (AVX-512), and the GEMM's tiles per level.

use crate::{has_feature, Arch, ArchInfo, ByteDots, Caches, CpuCopy, LevelTiles, VectorUnit};

pub const INFO: ArchInfo = ArchInfo {
    arch: Arch::X86_64,
    name: "x86_64",
    aliases: &["x86-64", "host"],
    triple: "x86_64-unknown-linux-gnu",
    default_cpu: "x86-64-v2",
    base_features: "",
    dispatch: &DISPATCH,
    pointer_bits: 64,
    vector: Some(VectorUnit { bits: 128, registers: 16 }),
    matmul_tiles: &MATMUL_TILES,
    caches: Caches { l1d: 32 << 10, l2: 1 << 20 },
    gpu: None,
};

/// The copies a default library carries besides its x86-64-v2 code. LLVM tunes x86-64-v4 to
/// vectorize loops in 256 bits (for the clock drop of early AVX-512 server CPUs); the kernels use
/// 512-bit vectors anyway, so the loops LLVM vectorizes (elementwise chains such as GELU's erf)
/// should too, as they do with --mcpu=native on an AVX-512 CPU.
const DISPATCH: [CpuCopy; 2] = [
    CpuCopy { cpu: "x86-64-v3", level: AVX2_LEVEL, features: "" },
    CpuCopy { cpu: "x86-64-v4", level: AVX512_LEVEL, features: "-prefer-256-bit" },
];

/// The level with AVX2 and FMA.
pub const AVX2_LEVEL: u32 = 3;
/// The level with AVX-512 (F, BW, VL, DQ).
pub const AVX512_LEVEL: u32 = 4;

/// With AVX-512: 8 x 32, sixteen 16-lane accumulators of its thirty-two registers. Fewer would
/// leave its two FMA units idle through their latency; eight rows load fewer values per FMA than
/// six, and leave no rows over for the channel counts that are multiples of 8. Below it 6 x 16:
/// twelve 8-lane accumulators with AVX2, which more would spill.
const MATMUL_TILES: [LevelTiles; 2] =
    [LevelTiles { min_level: AVX512_LEVEL, rows: 8, vectors: 2 }, LevelTiles { min_level: 0, rows: 6, vectors: 1 }];

/// The level of `cpu` with `features`. `complete` says that `features` lists everything the
/// CPU has (the host's, for `native`); otherwise they add to what the CPU's name says. `None`
/// for a CPU named by LLVM's name alone.
pub fn level(cpu: &str, features: &str, complete: bool) -> Option<u32> {
    let has = |f: &str| has_feature(features, f);
    let from_features = if ["avx512f", "avx512bw", "avx512vl", "avx512dq"].iter().all(|f| has(f)) {
        AVX512_LEVEL
    } else if has("avx2") && has("fma") {
        AVX2_LEVEL
    } else if has("sse4.2") {
        2
    } else {
        1
    };
    let named = match cpu {
        "x86-64" => Some(1),
        "x86-64-v2" => Some(2),
        "x86-64-v3" => Some(AVX2_LEVEL),
        "x86-64-v4" => Some(AVX512_LEVEL),
        _ => None,
    };
    match named {
        Some(n) => Some(n.max(from_features)),
        None if complete => Some(from_features),
        None => None,
    }
}

/// VNNI's `vpdpbusd`, where the one CPU compiled for has it (a dispatched library's copies are
/// chosen by level, which says nothing of VNNI).
pub fn byte_dots(features: &str, dispatch: &[CpuCopy]) -> ByteDots {
    if dispatch.is_empty() && has_feature(features, "avx512vnni") {
        ByteDots::Vnni
    } else {
        ByteDots::None
    }
}
