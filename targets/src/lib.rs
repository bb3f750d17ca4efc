//! What xcc knows of each target, as data, in one place: the architectures (one module each:
//! [`x86_64`], [`aarch64`], [`riscv64`], [`nvptx`]), how `--target`, `--mcpu` and `--mattr` resolve to a
//! [`Target`], and the parameters the kernels take from it (register tiles, cache blocks, dot
//! products, GPU tiles). The driver resolves the target once and hands it to every pass; the
//! lowering passes read it and never test an architecture by name. No LLVM here: xcc-codegen
//! builds LLVM's target machine from a [`Target`].

pub mod aarch64;
pub mod nvptx;
pub mod riscv64;
pub mod x86_64;

use std::str::FromStr;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("unknown target '{0}' (use {names} or a full triple such as aarch64-unknown-linux-gnu)", names = short_names())]
    UnknownTarget(String),
}

/// The architectures xcc compiles for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
    Riscv64,
    Nvptx64,
}

/// What xcc knows of one architecture, as data: each architecture's module defines one.
#[derive(Debug)]
pub struct ArchInfo {
    pub arch: Arch,
    /// The name `--target` takes, the runtime objects' and error messages' name.
    pub name: &'static str,
    /// The other short names `--target` takes.
    pub aliases: &'static [&'static str],
    /// The triple a short name stands for.
    pub triple: &'static str,
    /// The CPU when `--mcpu` names none: portable across the architecture's machines.
    pub default_cpu: &'static str,
    /// LLVM features every CPU of the target has (and its ABI needs); `--mattr` adds to them.
    pub base_features: &'static str,
    /// Further CPUs a library for the default CPU carries code for, picked at run time by
    /// `xcc_cpu_level()` (`cpu-dispatch`).
    pub dispatch: &'static [CpuCopy],
    /// The width of a pointer and of `index`.
    pub pointer_bits: u32,
    /// The SIMD registers the kernels' tiles are sized for (none on a GPU).
    pub vector: Option<VectorUnit>,
    /// The f32 GEMM's register tiles, by the CPU level the code runs on.
    pub matmul_tiles: &'static [LevelTiles],
    /// The data caches the kernels block for.
    pub caches: Caches,
    /// Where the architecture is a GPU: its vendor's parameters.
    pub gpu: Option<&'static GpuInfo>,
    /// What its vector maximum and minimum instructions return for a NaN or two zeros.
    pub min_max: MinMax,
}

/// How an architecture's float maximum and minimum instructions treat NaNs and zeros, which
/// decides how `maximumf` and `minimumf` (NaN if either operand is; `+0` over `-0`) are best
/// computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MinMax {
    /// As `maximumf` / `minimumf` define it (AArch64's `fmax`, PTX's `max.NaN` on sm_80+): one
    /// instruction.
    Ieee,
    /// x86's `maxps` / `minps`: the second operand where either is NaN or both are zeros, so that
    /// `maximumf(x, c)` of a constant is `select(x < c, c, x)`, one instruction, where LLVM's
    /// `llvm.maximum` takes a compare and a blend besides.
    SecondOperand,
    /// Another rule (RISC-V's `vfmax`: the number over a NaN): LLVM's expansion.
    Other,
}

/// Every architecture, in the order `--target`'s help lists them.
pub const ARCHITECTURES: [&ArchInfo; 4] = [&x86_64::INFO, &aarch64::INFO, &riscv64::INFO, &nvptx::INFO];

impl Arch {
    pub fn info(self) -> &'static ArchInfo {
        match self {
            Arch::X86_64 => &x86_64::INFO,
            Arch::Aarch64 => &aarch64::INFO,
            Arch::Riscv64 => &riscv64::INFO,
            Arch::Nvptx64 => &nvptx::INFO,
        }
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    fn of_triple(triple: &target_lexicon::Triple) -> Option<Arch> {
        match triple.architecture {
            target_lexicon::Architecture::X86_64 => Some(Arch::X86_64),
            target_lexicon::Architecture::Aarch64(_) => Some(Arch::Aarch64),
            target_lexicon::Architecture::Riscv64(_) => Some(Arch::Riscv64),
            target_lexicon::Architecture::Nvptx64 => Some(Arch::Nvptx64),
            _ => None,
        }
    }
}

fn short_names() -> String {
    ARCHITECTURES.iter().map(|a| a.name).collect::<Vec<_>>().join(", ")
}

/// One CPU a dispatched library has code for: LLVM's CPU name and the level runtime-c's
/// `xcc_cpu_level()` must report for it to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuCopy {
    /// The suffix of the copy's function names (`f.x86_64_v4`).
    pub name: &'static str,
    pub cpu: &'static str,
    pub level: u32,
    /// LLVM features the copy's functions add to the CPU's (`target_features`).
    pub features: &'static str,
    /// Whether the copy holds only the functions whose code differs from the copy below's (a
    /// test of the level that folds otherwise there, and what it names on the copy's side),
    /// which the copy below calls through a test of the level at run time. A copy that adds a
    /// feature few kernels use (VNNI) so costs compile time only where they are.
    pub partial: bool,
}

/// A CPU's SIMD registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorUnit {
    /// The widest vector register's bits at the architecture's baseline.
    pub bits: u32,
    pub registers: u32,
}

/// A GEMM's register tile: `rows` rows by `vectors` vectors of 16 f32 lanes, for CPUs of at least
/// `min_level` (`xcc_cpu_level()`'s numbering, 0 off x86).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelTiles {
    pub min_level: u32,
    pub rows: usize,
    pub vectors: usize,
}

/// Data cache sizes in bytes, as the kernels block for them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    pub l1d: usize,
    pub l2: usize,
}

/// GPU vendors: each has its own ends (conversion to its dialect, its loader).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuVendor {
    Nvidia,
}

/// What the GPU lowering takes from the vendor and the chip.
#[derive(Debug, PartialEq, Eq)]
pub struct GpuInfo {
    pub vendor: GpuVendor,
    /// Threads that run in lock step.
    pub warp_size: u32,
    /// Shared memory a block may use without asking for more.
    pub shared_memory_bytes: u32,
    /// The most threads a block may have.
    pub max_block_threads: u32,
    /// What its matmuls' and convolutions' strategies are chosen by.
    pub kernels: GpuKernelChoice,
}

/// The sizes at which a GPU's matmul or convolution changes strategy (`kernel-choose-strategies`),
/// measured per GPU family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GpuKernelChoice {
    /// The fewest tiles a GEMM must have to be tiled through shared memory: fewer leave most of
    /// the multiprocessors idle, where the direct kernels (a thread per output, sums split over K)
    /// keep them busy.
    pub min_gemm_tiles: usize,
    /// The threads a direct kernel aims for: one with fewer outputs splits its sums over runs of
    /// K (input channels) until it has about this many.
    pub split_threads: usize,
    /// The outputs from which one thread computes [`GpuKernelChoice::thread_tile`] of them (below,
    /// a thread per output keeps more of the GPU busy).
    pub thread_tile_min_outputs: usize,
    /// Outputs one thread then computes: rows of a matmul, output channels of a convolution, each
    /// element read serving them all.
    pub thread_tile: usize,
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

/// The host CPU as LLVM names it, for `--mcpu=native` (the caller asks LLVM).
#[derive(Clone, Debug, Default)]
pub struct Host {
    pub cpu: String,
    pub features: String,
}

/// A resolved target: what every pass is handed.
#[derive(Clone, Debug)]
pub struct Target {
    pub triple: String,
    pub arch: Arch,
    pub cpu: String,
    pub features: String,
    /// Further CPUs the library carries code for, picked at run time by the x86-64 level
    /// (`cpu-dispatch`). Empty when `--mcpu`/`--mattr` name one CPU.
    pub dispatch: Vec<CpuCopy>,
    /// The level of `cpu` with `features` as runtime-c's `xcc_cpu_level()` counts (x86-64 v1 to
    /// v4; 0 on other architectures), when the compiler knows it: not for a CPU named by LLVM's
    /// name alone (`--mcpu=znver4`), whose features only LLVM knows.
    pub level: Option<u32>,
    /// The byte dot products of the one CPU compiled for, or of the baseline with `dispatch`.
    pub byte_dots: ByteDots,
    /// The byte dot products of the best copy of the code: `byte_dots` without `dispatch`. A
    /// kernel that uses them where they differ tests the level (`xcc_targets::x86_64::VNNI_LEVEL`).
    pub best_byte_dots: ByteDots,
}

impl Default for Target {
    /// The default x86-64 library's target (`resolve("x86_64", None, None, ..)`).
    fn default() -> Self {
        resolve("x86_64", None, None, &Host::default()).expect("x86_64 resolves")
    }
}

impl Target {
    pub fn info(&self) -> &'static ArchInfo {
        self.arch.info()
    }

    /// The GPU's parameters where the target is one.
    pub fn gpu(&self) -> Option<&'static GpuInfo> {
        self.info().gpu
    }

    pub fn is_gpu(&self) -> bool {
        self.gpu().is_some()
    }

    pub fn pointer_bits(&self) -> u32 {
        self.info().pointer_bits
    }

    /// The highest level a copy of the code is compiled for, when the level of every copy is
    /// known (so `cpu-dispatch` folds each copy's branches on it).
    pub fn highest_cpu_level(&self) -> Option<u32> {
        let base = self.level?;
        Some(self.dispatch.iter().map(|v| v.level).fold(base, u32::max))
    }

    /// Whether runtime-c's objects (built for Linux, ELF) link with code for this triple: an
    /// archive for another operating system (Darwin's Mach-O, Windows' COFF) would mix formats.
    pub fn links_with_runtime(&self) -> bool {
        target_lexicon::Triple::from_str(&self.triple)
            .is_ok_and(|t| t.operating_system == target_lexicon::OperatingSystem::Linux)
    }
}

/// Resolves `--target`, `--mcpu` and `--mattr`. Short names map to Linux (CPUs) or CUDA (PTX)
/// triples; the default CPU is the architecture's portable one (see each [`ArchInfo`]), and on
/// x86-64 the default library also carries the copies of [`x86_64::INFO`]'s `dispatch`.
pub fn resolve(target: &str, cpu: Option<&str>, features: Option<&str>, host: &Host) -> Result<Target, TargetError> {
    let named = ARCHITECTURES.iter().find(|a| a.name == target || a.aliases.contains(&target));
    let triple = named.map_or(target, |a| a.triple).to_string();
    let unknown = || TargetError::UnknownTarget(target.to_string());
    let parsed = target_lexicon::Triple::from_str(&triple).map_err(|_| unknown())?;
    let arch = Arch::of_triple(&parsed).ok_or_else(unknown)?;
    let info = arch.info();
    let dispatch = if cpu.is_none() && features.is_none() { info.dispatch.to_vec() } else { Vec::new() };
    let cpu = match cpu {
        None => info.default_cpu.to_string(),
        Some("native") => host.cpu.clone(),
        Some(c) => c.to_string(),
    };
    let given = features.unwrap_or("");
    let native = !host.cpu.is_empty() && cpu == host.cpu && cpu != "generic" && given.is_empty() && info.gpu.is_none();
    let features = if native { host.features.as_str() } else { given };
    let features = [info.base_features, features].into_iter().filter(|f| !f.is_empty()).collect::<Vec<_>>().join(",");
    let (level, byte_dots, best_byte_dots) = match arch {
        Arch::X86_64 => {
            let best = dispatch.iter().max_by_key(|c| c.level).map_or(features.as_str(), |c| c.features);
            (x86_64::level(&cpu, &features, native), x86_64::byte_dots(&features), x86_64::byte_dots(best))
        }
        Arch::Aarch64 => (Some(0), aarch64::byte_dots(&features), aarch64::byte_dots(&features)),
        Arch::Riscv64 | Arch::Nvptx64 => (Some(0), ByteDots::None, ByteDots::None),
    };
    Ok(Target { triple, arch, cpu, features, dispatch, level, byte_dots, best_byte_dots })
}

/// Whether `features` (LLVM's `+a,-b` list) turns `feature` on.
fn has_feature(features: &str, feature: &str) -> bool {
    features.split(',').any(|x| x.strip_prefix('+') == Some(feature))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_and_triples_resolve_to_their_architecture() {
        let host = Host::default();
        for info in ARCHITECTURES {
            for name in std::iter::once(info.name).chain(info.aliases.iter().copied()).chain([info.triple]) {
                let t = resolve(name, None, None, &host).unwrap();
                assert_eq!((t.arch, t.triple.as_str(), t.cpu.as_str()), (info.arch, info.triple, info.default_cpu));
            }
        }
        assert!(resolve("mips", None, None, &host).is_err());
        assert!(resolve("riscv32-unknown-linux-gnu", None, None, &host).is_err());
    }

    #[test]
    fn the_default_x86_64_library_dispatches_and_a_named_cpu_does_not() {
        let host = Host::default();
        let default = resolve("x86_64", None, None, &host).unwrap();
        assert_eq!(default.level, Some(2));
        assert_eq!(default.highest_cpu_level(), Some(x86_64::VNNI_LEVEL));
        assert_eq!((default.byte_dots, default.best_byte_dots), (ByteDots::None, ByteDots::Vnni));
        let v3 = resolve("x86_64", Some("x86-64-v3"), None, &host).unwrap();
        assert!(v3.dispatch.is_empty());
        assert_eq!(v3.level, Some(3));
        assert_eq!(resolve("x86_64", Some("znver4"), None, &host).unwrap().level, None);
        let vnni = resolve("x86_64", Some("x86-64-v4"), Some("+avx512vnni"), &host).unwrap();
        assert_eq!((vnni.byte_dots, vnni.level), (ByteDots::Vnni, Some(x86_64::VNNI_LEVEL)));
    }

    #[test]
    fn native_takes_the_hosts_features() {
        let host = Host { cpu: "skylake-avx512".into(), features: "+avx512f,+avx512bw,+avx512vl,+avx512dq".into() };
        let t = resolve("x86_64", Some("native"), None, &host).unwrap();
        assert_eq!((t.cpu.as_str(), t.level), ("skylake-avx512", Some(4)));
        let host = Host { cpu: "znver4".into(), features: "+avx512f,+avx512bw,+avx512vl,+avx512dq,+avx512vnni".into() };
        let t = resolve("x86_64", Some("native"), None, &host).unwrap();
        assert_eq!((t.level, t.byte_dots), (Some(x86_64::VNNI_LEVEL), ByteDots::Vnni));
        let arm = resolve("aarch64", Some("cortex-a76"), Some("+dotprod"), &host).unwrap();
        assert_eq!(arm.byte_dots, ByteDots::Neon { mixed: false });
    }

    #[test]
    fn every_cpu_has_a_baseline_tile_and_gpus_have_none() {
        for info in ARCHITECTURES {
            match info.gpu {
                Some(_) => assert!(info.matmul_tiles.is_empty() && info.vector.is_none()),
                None => assert!(info.matmul_tiles.iter().any(|t| t.min_level == 0), "{}", info.name),
            }
        }
    }
}
