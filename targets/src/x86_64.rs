//! x86-64: levels v1 to v4 as runtime-c's `xcc_cpu_level()` numbers them, and 5 for v4 with
//! AVX-512 VNNI; the default library's copies for v3 (AVX2, FMA), v4 (AVX-512) and, where a
//! kernel uses it, v4 with VNNI; and the GEMM's tiles per level.

use crate::{has_feature, Arch, ArchInfo, ByteDots, Caches, CpuCopy, LevelTiles, MinMax, VectorUnit};

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
    min_max: MinMax::SecondOperand,
};

/// The copies a default library carries besides its x86-64-v2 code. LLVM tunes x86-64-v4 to
/// vectorize loops in 256 bits (for the clock drop of early AVX-512 server CPUs); the kernels use
/// 512-bit vectors anyway, so the loops LLVM vectorizes (elementwise chains such as GELU's erf)
/// should too, as they do with --mcpu=native on an AVX-512 CPU. VNNI's copy is partial: it holds
/// the parallel tasks of the int8 kernels that test for it, which v4's code calls through a test
/// of the level at run time.
const DISPATCH: [CpuCopy; 3] = [
    CpuCopy { name: "x86_64_v3", cpu: "x86-64-v3", level: AVX2_LEVEL, features: "", partial: false },
    CpuCopy { name: "x86_64_v4", cpu: "x86-64-v4", level: AVX512_LEVEL, features: "-prefer-256-bit", partial: false },
    CpuCopy {
        name: "x86_64_v4_vnni",
        cpu: "x86-64-v4",
        level: VNNI_LEVEL,
        features: "-prefer-256-bit,+avx512vnni",
        partial: true,
    },
];

/// The level with AVX2 and FMA.
pub const AVX2_LEVEL: u32 = 3;
/// The level with AVX-512 (F, BW, VL, DQ).
pub const AVX512_LEVEL: u32 = 4;
/// AVX-512 with VNNI's byte dot products (`vpdpbusd`): no psABI level, but Ice Lake, Cascade
/// Lake and Zen 4 servers have it, and an int8 kernel runs twice as many products per
/// instruction with it.
pub const VNNI_LEVEL: u32 = 5;

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
    let level = match named {
        Some(n) => n.max(from_features),
        None if complete => from_features,
        None => return None,
    };
    Some(if level == AVX512_LEVEL && has("avx512vnni") { VNNI_LEVEL } else { level })
}

/// VNNI's `vpdpbusd`, where the CPU's `features` have it.
pub fn byte_dots(features: &str) -> ByteDots {
    if has_feature(features, "avx512vnni") {
        ByteDots::Vnni
    } else {
        ByteDots::None
    }
}
