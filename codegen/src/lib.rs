//! Code generation through LLVM for a resolved [`xcc_targets::Target`]: LLVM target machines,
//! LLVM's new-pass-manager pipeline, and the output formats xcc writes: objects, assembly, LLVM
//! IR, bitcode, PTX and self-contained static archives.

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple};
use inkwell::OptimizationLevel;
use std::io::Cursor;
use xcc_targets::{Arch, Target as XccTarget};

#[derive(Debug, thiserror::Error)]
pub enum CodegenError {
    #[error(transparent)]
    Target(#[from] xcc_targets::TargetError),
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

/// The machine xcc runs on as LLVM names it, for `--mcpu=native`.
pub fn host() -> xcc_targets::Host {
    xcc_targets::Host {
        cpu: TargetMachine::get_host_cpu_name().to_string(),
        features: TargetMachine::get_host_cpu_features().to_string(),
    }
}

/// Resolves `--target`, `--mcpu` and `--mattr` against this machine ([`xcc_targets::resolve`]).
pub fn resolve_target(target: &str, cpu: Option<&str>, features: Option<&str>) -> Result<XccTarget, CodegenError> {
    Ok(xcc_targets::resolve(target, cpu, features, &host())?)
}

/// LLVM's own options, set once per process before the first target machine: LLVM 22's
/// X86AvoidStoreForwardingBlocks aborts ("Cannot implicitly convert a scalable size to a
/// fixed-width size") on a masked store's memory operand, whose size it does not know; the
/// kernel-strategy property test's grouped convolutions reach it. The pass only splits copies
/// that a store would block, so without it the code is as correct and rarely slower.
fn set_llvm_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [c"xcc".as_ptr(), c"-x86-disable-avoid-SFB".as_ptr()];
        // SAFETY: LLVM reads `args.len()` NUL-terminated strings that outlive the call; the
        // option is registered (the X86 target is linked in), so LLVM does not exit on it.
        unsafe {
            inkwell::llvm_sys::support::LLVMParseCommandLineOptions(args.len() as i32, args.as_ptr(), std::ptr::null())
        };
    });
}

/// LLVM's target machine for `spec`, its unknown CPUs and features refused.
pub fn create_machine(spec: &XccTarget, opt: u8) -> Result<TargetMachine, CodegenError> {
    set_llvm_options();
    let config = InitializationConfig::default();
    match spec.arch {
        Arch::X86_64 => Target::initialize_x86(&config),
        Arch::Aarch64 => Target::initialize_aarch64(&config),
        Arch::Riscv64 => Target::initialize_riscv(&config),
        Arch::Nvptx64 => Target::initialize_nvptx(&config),
    }
    let triple = TargetTriple::create(&spec.triple);
    let target = Target::from_triple(&triple)
        .map_err(|e| CodegenError::Unsupported { triple: spec.triple.clone(), message: e.to_string() })?;
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
            return Err(CodegenError::UnknownCpu { cpu: quoted(), arch });
        }
        if line.contains("is not a recognized feature") {
            return Err(CodegenError::UnknownFeature { feature: quoted(), arch });
        }
    }
    eprint!("{warnings}");
    machine.ok_or_else(|| CodegenError::NoMachine { triple: spec.triple.clone(), cpu: spec.cpu.clone() })
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
pub fn optimize(module: &Module, tm: &TargetMachine, opt: u8, address_sanitizer: bool) -> Result<(), CodegenError> {
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
    module.run_passes(&pipeline, tm, PassBuilderOptions::create()).map_err(|e| CodegenError::Passes(e.to_string()))
}

/// Object code, or assembly (PTX text on nvptx64).
pub fn emit(module: &Module, tm: &TargetMachine, assembly: bool) -> Result<Vec<u8>, CodegenError> {
    let kind = if assembly { FileType::Assembly } else { FileType::Object };
    let buf = tm.write_to_memory_buffer(module, kind).map_err(|e| CodegenError::Codegen(e.to_string()))?;
    Ok(buf.as_slice().to_vec())
}

/// A GNU `ar` archive of the given members, with a symbol table and zeroed timestamps so the
/// same inputs give the same bytes.
pub fn write_archive(members: &[(String, Vec<u8>)]) -> Result<Vec<u8>, CodegenError> {
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
        .map_err(|e| CodegenError::Archive(e.to_string()))?;
    Ok(out.into_inner())
}
