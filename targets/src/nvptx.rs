//! NVIDIA GPUs through NVPTX: PTX for an SM (sm_80 unless `--mcpu` names another).

use crate::{Arch, ArchInfo, Caches, GpuInfo, GpuKernelChoice, GpuVendor, MinMax};

pub const INFO: ArchInfo = ArchInfo {
    arch: Arch::Nvptx64,
    name: "nvptx64",
    aliases: &["nvptx", "cuda"],
    triple: "nvptx64-nvidia-cuda",
    default_cpu: "sm_80",
    base_features: "",
    dispatch: &[],
    pointer_bits: 64,
    vector: None,
    matmul_tiles: &[],
    caches: Caches { l1d: 192 << 10, l2: 40 << 20 },
    gpu: Some(&GPU),
    min_max: MinMax::Ieee,
};

/// CUDA's limits: 1024 threads a block, 48 KiB of shared memory without opting in to more. The
/// kernels' thresholds were measured on an H200: a thread per output pays below 2^21 outputs
/// (resnet18 at batch 1: 2.7 ms, against 4.2 ms with 4 output channels a thread).
pub const GPU: GpuInfo = GpuInfo {
    vendor: GpuVendor::Nvidia,
    warp_size: 32,
    shared_memory_bytes: 48 << 10,
    max_block_threads: 1024,
    kernels: GpuKernelChoice {
        min_gemm_tiles: 128,
        split_threads: 1 << 17,
        thread_tile_min_outputs: 1 << 21,
        thread_tile: 4,
    },
};
