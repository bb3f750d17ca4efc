//! RISC-V 64 with the vector extension (RVV 1.0): rv64gcv, the lp64d ABI Linux distributions
//! use. The kernels' fixed 16-lane vectors are groups of RVV registers (VLEN at least 128, which
//! `V` implies). A board without `V` takes `--mattr=-v`.

use crate::{Arch, ArchInfo, Caches, LevelTiles, MinMax, VectorUnit};

pub const INFO: ArchInfo = ArchInfo {
    arch: Arch::Riscv64,
    name: "riscv64",
    aliases: &["riscv", "rv64"],
    triple: "riscv64-unknown-linux-gnu",
    default_cpu: "generic-rv64",
    base_features: "+m,+a,+f,+d,+c,+v",
    dispatch: &[],
    pointer_bits: 64,
    vector: Some(VectorUnit { bits: 128, registers: 32 }),
    // 6 x 16: at VLEN 128 a 16-lane f32 vector is a group of 4 registers; six accumulators and
    // B's vector are 7 of the 8 groups.
    matmul_tiles: &[LevelTiles { min_level: 0, rows: 6, vectors: 1 }],
    caches: Caches { l1d: 32 << 10, l2: 2 << 20 },
    gpu: None,
    min_max: MinMax::Other,
};
