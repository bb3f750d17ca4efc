//! Targets: triples (parsed by target-lexicon, short names allowed), LLVM target machines,
//! LLVM's new-pass-manager pipeline, and the output formats xcc writes: objects, assembly, LLVM
//! IR, bitcode, PTX and self-contained static archives.

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::io::Cursor;
use std::str::FromStr;

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("unknown target '{0}' (use x86_64, aarch64, nvptx64 or a full triple such as aarch64-unknown-linux-gnu)")]
    UnknownTarget(String),
    #[error("LLVM does not support the target triple '{triple}': {message}")]
    Unsupported { triple: String, message: String },
    #[error("could not create a target machine for '{triple}' with CPU '{cpu}'")]
    NoMachine { triple: String, cpu: String },
    #[error("unknown CPU '{cpu}' for {arch} (--mcpu; `llc-22 -march={arch} -mcpu=help` lists them)")]
    UnknownCpu { cpu: String, arch: &'static str },
    #[error("unknown target feature '{feature}' for {arch} (--mattr; `llc-22 -march={arch} -mattr=help` lists them)")]
    UnknownFeature { feature: String, arch: &'static str },
    #[error("LLVM optimization failed: {0}")]
    Passes(String),
    #[error("LLVM code generation failed: {0}")]
    Codegen(String),
    #[error("writing the archive failed: {0}")]
    Archive(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
    Nvptx64,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Nvptx64 => "nvptx64",
        }
    }
}

#[derive(Clone, Debug)]
pub struct TargetSpec {
    pub triple: String,
    pub arch: Arch,
    pub cpu: String,
    pub features: String,
    /// Further CPUs the library carries code for, picked at run time by the x86-64 level
    /// (`cpu-dispatch`): LLVM's CPU name and its level. Empty when `--mcpu`/`--mattr` name one CPU.
    pub dispatch: Vec<(String, u32)>,
    /// The level of `cpu` with `features` as runtime-c's `xcc_cpu_level()` counts (x86-64 v1 to
    /// v4; 0 on other architectures), when the compiler knows it: not for a CPU named by LLVM's
    /// name alone (`--mcpu=znver4`), whose features only LLVM knows.
    pub level: Option<u32>,
}

impl TargetSpec {
    /// Whether runtime-c's objects (built for Linux, ELF) link with code for this triple: an
    /// archive for another operating system (Darwin's Mach-O, Windows' COFF) would mix formats.
    pub fn links_with_runtime(&self) -> bool {
        target_lexicon::Triple::from_str(&self.triple)
            .is_ok_and(|t| t.operating_system == target_lexicon::OperatingSystem::Linux)
    }
}

/// Resolves `--target`, `-mcpu` and `-mattr`. Short names map to Linux (CPUs) or CUDA (PTX)
/// triples. The default CPU is portable: `x86-64-v2`, `generic` on AArch64 (NEON), `sm_80` for
/// PTX; on x86-64 the default library also carries code for `x86-64-v3` (AVX2, FMA) and
/// `x86-64-v4` (AVX-512) and runs the best the machine supports.
pub fn resolve_target(target: &str, cpu: Option<&str>, features: Option<&str>) -> Result<TargetSpec, TargetError> {
    let triple = match target {
        "x86_64" | "x86-64" | "host" => "x86_64-unknown-linux-gnu".to_string(),
        "aarch64" | "arm64" => "aarch64-unknown-linux-gnu".to_string(),
        "nvptx64" | "nvptx" | "cuda" => "nvptx64-nvidia-cuda".to_string(),
        t => t.to_string(),
    };
    let parsed =
        target_lexicon::Triple::from_str(&triple).map_err(|_| TargetError::UnknownTarget(target.to_string()))?;
    let arch = match parsed.architecture {
        target_lexicon::Architecture::X86_64 => Arch::X86_64,
        target_lexicon::Architecture::Aarch64(_) => Arch::Aarch64,
        target_lexicon::Architecture::Nvptx64 => Arch::Nvptx64,
        _ => return Err(TargetError::UnknownTarget(target.to_string())),
    };
    let default_cpu = match arch {
        Arch::X86_64 => "x86-64-v2",
        Arch::Aarch64 => "generic",
        Arch::Nvptx64 => "sm_80",
    };
    let dispatch = if arch == Arch::X86_64 && cpu.is_none() && features.is_none() {
        vec![("x86-64-v3".to_string(), 3), ("x86-64-v4".to_string(), 4)]
    } else {
        Vec::new()
    };
    let cpu = match cpu {
        None => default_cpu.to_string(),
        Some("native") => TargetMachine::get_host_cpu_name().to_string(),
        Some(c) => c.to_string(),
    };
    let mut features = features.unwrap_or("").to_string();
    let native = cpu_is_native(&cpu) && features.is_empty() && arch != Arch::Nvptx64;
    if native {
        features = TargetMachine::get_host_cpu_features().to_string();
    }
    let level = cpu_level(arch, &cpu, &features, native);
    Ok(TargetSpec { triple, arch, cpu, features, dispatch, level })
}

/// See [`TargetSpec::level`]. `complete` says that `features` lists everything the CPU has (the
/// host's, for `native`); otherwise they add to what the CPU's name says.
fn cpu_level(arch: Arch, cpu: &str, features: &str, complete: bool) -> Option<u32> {
    if arch != Arch::X86_64 {
        return Some(0);
    }
    let has = |f: &str| features.split(',').any(|x| x.strip_prefix('+') == Some(f));
    let from_features = if ["avx512f", "avx512bw", "avx512vl", "avx512dq"].iter().all(|f| has(f)) {
        4
    } else if has("avx2") && has("fma") {
        3
    } else if has("sse4.2") {
        2
    } else {
        1
    };
    let named = match cpu {
        "x86-64" => Some(1),
        "x86-64-v2" => Some(2),
        "x86-64-v3" => Some(3),
        "x86-64-v4" => Some(4),
        _ => None,
    };
    match named {
        Some(n) => Some(n.max(from_features)),
        None if complete => Some(from_features),
        None => None,
    }
}

fn cpu_is_native(cpu: &str) -> bool {
    cpu == TargetMachine::get_host_cpu_name().to_string() && cpu != "generic"
}

pub fn create_machine(spec: &TargetSpec, opt: u8) -> Result<TargetMachine, TargetError> {
    let config = InitializationConfig::default();
    match spec.arch {
        Arch::X86_64 => Target::initialize_x86(&config),
        Arch::Aarch64 => Target::initialize_aarch64(&config),
        Arch::Nvptx64 => Target::initialize_nvptx(&config),
    }
    let triple = TargetTriple::create(&spec.triple);
    let target = Target::from_triple(&triple)
        .map_err(|e| TargetError::Unsupported { triple: spec.triple.clone(), message: e.to_string() })?;
    let level = match opt {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    // LLVM only warns about a CPU or feature it does not know (on standard error, then again for
    // every function) and goes on without it, which can end in an abort ("64-bit code requested
    // on a subtarget that doesn't support it"): its warnings are caught and made errors.
    let (machine, warnings) = capturing_stderr(|| {
        target.create_target_machine(&triple, &spec.cpu, &spec.features, level, RelocMode::PIC, CodeModel::Default)
    });
    let arch = match spec.arch {
        Arch::X86_64 => "x86-64",
        a => a.name(),
    };
    for line in warnings.lines() {
        let quoted = || line.split('\'').nth(1).unwrap_or_default().to_string();
        if line.contains("is not a recognized processor") {
            return Err(TargetError::UnknownCpu { cpu: quoted(), arch });
        }
        if line.contains("is not a recognized feature") {
            return Err(TargetError::UnknownFeature { feature: quoted(), arch });
        }
    }
    eprint!("{warnings}");
    machine.ok_or_else(|| TargetError::NoMachine { triple: spec.triple.clone(), cpu: spec.cpu.clone() })
}

/// Runs `f` with the process's standard error sent to a temporary file; returns `f`'s result
/// and what was written. (Without a temporary file, `f` runs as it is.)
fn capturing_stderr<T>(f: impl FnOnce() -> T) -> (T, String) {
    use std::io::{Read, Seek};
    use std::os::fd::AsRawFd;
    let Ok(mut file) = tempfile::tempfile() else { return (f(), String::new()) };
    // SAFETY: dup/dup2 on the process's own standard error and a file it owns; the saved
    // descriptor is put back and closed before returning.
    let saved = unsafe { libc::dup(2) };
    if saved < 0 || unsafe { libc::dup2(file.as_raw_fd(), 2) } < 0 {
        return (f(), String::new());
    }
    let result = f();
    unsafe {
        libc::dup2(saved, 2);
        libc::close(saved);
    }
    let mut text = String::new();
    if file.rewind().is_ok() {
        let _ = file.read_to_string(&mut text);
    }
    (result, text)
}

/// Sets the module's triple and data layout, then runs LLVM's `default<On>` pipeline; with
/// `address_sanitizer`, every function defined is marked `sanitize_address` and LLVM's
/// AddressSanitizer pass runs last (as clang's -fsanitize=address places it), so each memory
/// access of the compiled code is checked against the shadow memory of a program linked with
/// -fsanitize=address.
pub fn optimize(module: &Module, tm: &TargetMachine, opt: u8, address_sanitizer: bool) -> Result<(), TargetError> {
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let mut pipeline = format!("default<O{}>", opt.min(3));
    if address_sanitizer {
        let kind = inkwell::attributes::Attribute::get_named_enum_kind_id("sanitize_address");
        let attribute = module.get_context().create_enum_attribute(kind, 0);
        for f in module.get_functions().filter(|f| f.count_basic_blocks() > 0) {
            f.add_attribute(inkwell::attributes::AttributeLoc::Function, attribute);
        }
        pipeline.push_str(",asan");
    }
    module.run_passes(&pipeline, tm, PassBuilderOptions::create()).map_err(|e| TargetError::Passes(e.to_string()))
}

/// Object code, or assembly (PTX text on nvptx64).
pub fn emit(module: &Module, tm: &TargetMachine, assembly: bool) -> Result<Vec<u8>, TargetError> {
    let kind = if assembly { FileType::Assembly } else { FileType::Object };
    let buf = tm.write_to_memory_buffer(module, kind).map_err(|e| TargetError::Codegen(e.to_string()))?;
    Ok(buf.as_slice().to_vec())
}

/// A GNU `ar` archive of the given members, with a symbol table and zeroed timestamps so the
/// same inputs give the same bytes.
pub fn write_archive(members: &[(String, Vec<u8>)]) -> Result<Vec<u8>, TargetError> {
    let members: Vec<_> = members
        .iter()
        .map(|(name, bytes)| {
            ar_archive_writer::NewArchiveMember::new(
                bytes.as_slice(),
                &ar_archive_writer::DEFAULT_OBJECT_READER,
                name.clone(),
            )
        })
        .collect();
    let mut out = Cursor::new(Vec::new());
    ar_archive_writer::write_archive_to_stream(&mut out, &members, ar_archive_writer::ArchiveKind::Gnu, false, None)
        .map_err(|e| TargetError::Archive(e.to_string()))?;
    Ok(out.into_inner())
}
