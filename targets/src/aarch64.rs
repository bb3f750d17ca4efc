//! AArch64: NEON's thirty-two 128-bit registers, the dot-product extensions.

use crate::{has_feature, Arch, ArchInfo, ByteDots, Caches, LevelTiles, MinMax, VectorUnit};

pub const INFO: ArchInfo = ArchInfo {
    arch: Arch::Aarch64,
    name: "aarch64",
    aliases: &["arm64"],
    triple: "aarch64-unknown-linux-gnu",
    default_cpu: "generic",
    base_features: "",
    dispatch: &[],
    pointer_bits: 64,
    vector: Some(VectorUnit { bits: 128, registers: 32 }),
    // 6 x 16: twenty-four of NEON's thirty-two 4-lane registers as accumulators.
    matmul_tiles: &[LevelTiles { min_level: 0, rows: 6, vectors: 1 }],
    caches: Caches { l1d: 64 << 10, l2: 1 << 20 },
    gpu: None,
    min_max: MinMax::Ieee,
};

/// `sdot`/`udot` with FEAT_DotProd; `usdot` too with FEAT_I8MM.
pub fn byte_dots(features: &str) -> ByteDots {
    if has_feature(features, "dotprod") {
        ByteDots::Neon { mixed: has_feature(features, "i8mm") }
    } else {
        ByteDots::None
    }
}
