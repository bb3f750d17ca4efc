//! What a pass is: a named module-to-module function with the target's lowering options.
//! The passes themselves live in `kernel/` and `conversion/`; `lib.rs` registers them.

use xcc_ir::{Diagnostic, Module};
pub use xcc_targets::{ByteDots, CpuCopy, Target};

/// A module-to-module pass. Errors are user-facing (an unsupported construct, with its span).
pub trait Pass {
    fn name(&self) -> &'static str;
    fn run(&self, m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic>;
    /// The operations this pass lowers away (for the op-table completeness test).
    fn lowers(&self, _op: &str) -> bool {
        false
    }
}

/// What every pass is handed: the target, and the choices the command line makes about it.
#[derive(Clone, Debug, Default)]
pub struct LoweringOptions {
    /// The resolved target ([`xcc_targets::resolve`]): its architecture, CPU level and copies,
    /// dot products, and the kernel parameters its tables give.
    pub target: Target,
    /// GPU code whose kernels run on the host CPU, their grid emulated by runtime-c
    /// (`--emulate-gpu`): thread and block coordinates come from the emulator.
    pub gpu_emulation: bool,
    /// Keep every convolution on the im2col GEMM (`--no-winograd`): no Winograd F(2x2, 3x3),
    /// whose results round differently from the direct sums.
    pub no_winograd: bool,
    /// How GPU matmuls and convolutions are lowered (`--gpu-gemm`, `--tf32`).
    pub gpu_gemm: GpuGemm,
}

impl LoweringOptions {
    /// Lowering for a GPU: kernels keep their attributes, runtime calls are not emitted.
    pub fn gpu(&self) -> bool {
        self.target.is_gpu()
    }

    /// The byte dot products of the one CPU compiled for (a dispatched library's baseline):
    /// integer matmuls and convolutions, whose packed weights depend on them, multiply their
    /// quads of bytes with them.
    pub fn byte_dots(&self) -> ByteDots {
        self.target.byte_dots
    }

    /// The byte dot products of the best copy of the code: kernels whose weights are laid out
    /// alike with and without them (`kernel.matmul_blockwise`) test the level for them.
    pub fn best_byte_dots(&self) -> ByteDots {
        self.target.best_byte_dots
    }

    /// See [`Target::highest_cpu_level`].
    pub fn highest_cpu_level(&self) -> Option<u32> {
        self.target.highest_cpu_level()
    }
}

/// How a GPU matmul or convolution is lowered: tiled through shared memory
/// ([`crate::kernel::gpu_gemm`]) or direct (a thread per output); the tiles' products by FMAs
/// in f32 or on tensor cores in TF32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GpuGemm {
    pub tiling: GpuTiling,
    /// The tiled GEMMs' products on tensor cores in TF32 (`--tf32`): A's and B's elements
    /// rounded to 10 bits of mantissa, their products summed in f32.
    pub tensor_cores: bool,
}

/// Which GPU matmuls and convolutions are tiled (`--gpu-gemm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GpuTiling {
    /// Tiled where the GEMM has enough tiles to fill a GPU (the target's `GpuKernelChoice::min_gemm_tiles`).
    #[default]
    Auto,
    /// Every f32 GEMM of static sizes tiled.
    Tiled,
    /// None tiled.
    Direct,
}

impl GpuGemm {
    /// Whether every GEMM is tiled (`Some(true)`), those large enough (`Some(false)`), or none.
    pub fn forced(self) -> Option<bool> {
        match self.tiling {
            GpuTiling::Auto => Some(false),
            GpuTiling::Tiled => Some(true),
            GpuTiling::Direct => None,
        }
    }
}
