//! What a pass is: a named module-to-module function with the target's lowering options.
//! The passes themselves live in `kernel/` and `conversion/`; `lib.rs` registers them.

use xcc_ir::{Diagnostic, Module};

/// A module-to-module pass. Errors are user-facing (an unsupported construct, with its span).
pub trait Pass {
    fn name(&self) -> &'static str;
    fn run(&self, m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic>;
    /// The operations this pass lowers away (for the op-table completeness test).
    fn lowers(&self, _op: &str) -> bool {
        false
    }
}

#[derive(Clone, Debug, Default)]
pub struct LoweringOptions {
    /// Lowering for a GPU (nvptx64): kernels keep their attributes, runtime calls are not emitted.
    pub gpu: bool,
    /// GPU code whose kernels run on the host CPU, their grid emulated by runtime-c
    /// (`--emulate-gpu`): thread and block coordinates come from the emulator.
    pub gpu_emulation: bool,
    /// Pointer width of the target in bits (index lowers to an integer of this width).
    pub index_bits: u32,
    /// Extra CPUs to compile every function for, chosen at run time (`cpu-dispatch`); empty for
    /// a library built for one CPU.
    pub cpu_versions: Vec<CpuVersion>,
    /// The level the module's own code is compiled for (`TargetSpec::level`), when known: the
    /// value `xcc_cpu_level()` folds to in it (in a copy of `cpu_versions`, that copy's level).
    pub cpu_level: Option<u32>,
    /// Keep every convolution on the im2col GEMM (`--no-winograd`): no Winograd F(2x2, 3x3),
    /// whose results round differently from the direct sums.
    pub no_winograd: bool,
    /// How GPU matmuls and convolutions are lowered (`--gpu-gemm`, `--tf32`).
    pub gpu_gemm: GpuGemm,
    /// The byte dot products of the one CPU compiled for (no `cpu_versions`): integer matmuls
    /// and convolutions multiply their quads of bytes with them.
    pub byte_dots: ByteDots,
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
    /// Tiled where the GEMM has enough tiles to fill a GPU ([`crate::kernel::gpu_gemm::MIN_TILES`]).
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

/// Instructions that add the four products of two quads of bytes to each 32-bit lane.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ByteDots {
    #[default]
    None,
    /// x86's AVX-512 VNNI `vpdpbusd`: unsigned bytes by signed ones.
    Vnni,
    /// AArch64's `sdot` and `udot` (FEAT_DotProd): bytes of one sign by bytes of the same; with
    /// `mixed`, also `usdot` (FEAT_I8MM): unsigned by signed. Without it, unsigned bytes read at
    /// run time by signed constant ones go through `sdot` shifted ([`ByteDots::shifts`]).
    Neon { mixed: bool },
}

impl ByteDots {
    /// Whether quads of bytes read at run time by constant ones (a matmul's A by its packed B, a
    /// convolution's input by its weights) multiply with these instructions, given their signs.
    pub fn multiply(self, run_time_unsigned: bool, constant_unsigned: bool) -> bool {
        match self {
            ByteDots::None => false,
            ByteDots::Vnni => run_time_unsigned != constant_unsigned,
            ByteDots::Neon { mixed } => mixed || run_time_unsigned || !constant_unsigned,
        }
    }

    /// Whether unsigned run-time bytes by signed constant ones multiply as signed bytes with
    /// `sdot`: each run-time byte less 128 (its top bit flipped), the sums starting at 128 times
    /// the constant bytes' sums, which makes them exact (NEON without `usdot`).
    pub fn shifts(self, run_time_unsigned: bool, constant_unsigned: bool) -> bool {
        self == ByteDots::Neon { mixed: false } && run_time_unsigned && !constant_unsigned
    }
}

impl LoweringOptions {
    /// The highest x86-64 level that a copy of the code is compiled for, when the level of every
    /// copy is known (so `cpu-dispatch` folds each copy's branches on it).
    pub fn highest_cpu_level(&self) -> Option<u32> {
        let base = self.cpu_level?;
        Some(self.cpu_versions.iter().map(|v| v.level).fold(base, u32::max))
    }
}

/// One CPU a dispatched library has code for: LLVM's CPU name and the level runtime-c's
/// `xcc_cpu_level()` must report for it to run.
#[derive(Clone, Debug)]
pub struct CpuVersion {
    pub cpu: String,
    pub level: u32,
}
