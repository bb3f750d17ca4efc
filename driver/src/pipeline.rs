//! The compilation pipeline: parse -> verify -> lower (verifying after each pass) -> translate
//! to LLVM IR -> optimize -> emit, and the atomic write of the output.

use crate::outputs::Outputs;
use crate::translate::{compile_objects, module_name, translate_optimized};
use crate::{Cli, Emit, Language, Sanitizer};
use inkwell::context::Context;
use std::path::Path;
use std::time::{Duration, Instant};
use xcc_frontend_onnx::dim::DimSize;
use xcc_frontend_onnx::ModelInterface;
use xcc_ir::{Diagnostic, SourceFile};
use xcc_lowering::LoweringOptions;
use xcc_targets::Arch;

/// Runs the whole compilation; the error is the rendered message for standard error.
pub fn run(cli: &Cli) -> Result<(), String> {
    let emit = match cli.emit {
        Some(e) => e,
        None => emit_from_extension(&cli.output)?,
    };
    check_output_directory(&cli.output)?;
    let mut stages = Stages::new(cli.verbose);
    let (source, module, header) = read_input(cli)?;
    stages.done(if header.is_some() { "import the ONNX model" } else { "parse" });
    let render = |d: Diagnostic| source.render(&d);
    verify_input(&module, header.is_some(), &render)?;
    stages.done("verify");
    if emit == Emit::Mlir && cli.passes.is_none() {
        return write_output(&cli.output, xcc_ir::printer::print_module(&module).as_bytes());
    }
    let spec = xcc_codegen::resolve_target(&cli.target, cli.mcpu.as_deref(), cli.mattr.as_deref())
        .map_err(|e| format!("xcc: error: {e}"))?;
    check_emit_for_target(emit, &spec, header.is_some()).map_err(|e| format!("xcc: error: {e}"))?;
    check_gpu_model(cli, &spec, header.as_ref().map(|(_, iface)| iface)).map_err(|e| format!("xcc: error: {e}"))?;
    check_sanitizer_for_target(cli.sanitize, &spec).map_err(|e| format!("xcc: error: {e}"))?;
    let passes = match &cli.passes {
        Some(spec) => xcc_lowering::parse_pipeline(spec).map_err(|e| format!("xcc: error: --passes: {e}"))?,
        None => xcc_lowering::default_pipeline(),
    };
    let mut spec = spec;
    if emit != Emit::Lib && emit != Emit::Mlir && emit != Emit::MlirLlvm {
        // Several CPUs' code needs runtime-c's xcc_cpu_level, which only an archive carries: an
        // object, assembly or LLVM IR is for the one CPU named (the portable default).
        spec.dispatch.clear();
    }
    let lowered = lower(cli, module, &passes, &spec).map_err(render)?;
    stages.done("lower to the llvm dialect");
    if matches!(emit, Emit::Mlir | Emit::MlirLlvm) {
        return write_output(&cli.output, xcc_ir::printer::print_module(&lowered).as_bytes());
    }
    // Always, even with --no-verify-each: the translation relies on every llvm-dialect op having
    // the operands and types its definition asks for.
    xcc_ir::verifier::verify(&lowered).map_err(render)?;
    stages.done("verify");
    if spec.is_gpu() && header.is_some() {
        let bytes = crate::gpu::model_output(cli, &lowered, &spec, emit, &render)?;
        stages.done("LLVM: kernels and host code");
        let mut outputs = Outputs::default();
        outputs.stage(&cli.output, &bytes)?;
        if let (Some((name, iface)), Emit::Lib) = (header, emit) {
            stage_header(&mut outputs, cli, emit, &lowered, &name, iface, true)?;
        }
        return outputs.commit();
    }
    let bytes = translate_and_emit(cli, &lowered, &spec, emit, &render)?;
    stages.done("LLVM: translate, optimize, emit");
    let mut outputs = Outputs::default();
    outputs.stage(&cli.output, &bytes)?;
    if let Some((name, iface)) = header {
        stage_header(&mut outputs, cli, emit, &lowered, &name, iface, false)?;
    }
    outputs.commit()?;
    stages.done("write");
    Ok(())
}

/// AddressSanitizer's shadow layout and the instrumented runtime are x86_64 Linux's.
fn check_sanitizer_for_target(sanitize: Option<Sanitizer>, spec: &xcc_targets::Target) -> Result<(), String> {
    match sanitize {
        Some(Sanitizer::Address) if spec.arch != Arch::X86_64 || !spec.links_with_runtime() => {
            Err(format!("--sanitize=address is available for x86_64 Linux only, not '{}'", spec.triple))
        }
        _ => Ok(()),
    }
}

/// The verifier on the module read or built from the input: MLIR text's diagnostic is rendered
/// at its place; a module the ONNX frontend built that does not verify is xcc's bug, not the
/// model's, and is said to be one.
fn verify_input(module: &xcc_ir::Module, from_onnx: bool, render: &dyn Fn(Diagnostic) -> String) -> Result<(), String> {
    xcc_ir::verifier::verify(module).map_err(|d| {
        if from_onnx {
            format!(
                "xcc: internal error: the module built from the ONNX model does not verify ({}); please report it",
                d.message
            )
        } else {
            render(d)
        }
    })
}

/// `--emulate-gpu` is for GPU models, `--gpu-gemm`, `--ptxas`, `--no-cubin` and `--tf32` for GPU code
/// (`--tf32` for sm_80 on); a GPU
/// model's dims must be known at compile time (for now).
fn check_gpu_model(cli: &Cli, spec: &xcc_targets::Target, model: Option<&ModelInterface>) -> Result<(), String> {
    let gpu = spec.is_gpu();
    if cli.emulate_gpu && !(gpu && model.is_some()) {
        return Err("--emulate-gpu is for ONNX models compiled with --target=nvptx64".into());
    }
    if cli.gpu_host != "x86_64" && !(gpu && model.is_some()) {
        return Err("--gpu-host is for ONNX models compiled with --target=nvptx64".into());
    }
    let gpu_only = [
        ("--gpu-gemm", cli.gpu_gemm.is_some()),
        ("--ptxas", cli.ptxas.is_some()),
        ("--no-cubin", cli.no_cubin),
        ("--tf32", cli.tf32),
    ];
    if let Some((flag, _)) = gpu_only.iter().find(|(_, given)| *given && !gpu) {
        return Err(format!("{flag} is for code compiled with --target=nvptx64"));
    }
    if cli.tf32 && cli.gpu_gemm == Some(crate::GpuGemmChoice::Direct) {
        return Err("--tf32 multiplies the tiled GEMMs on tensor cores: --gpu-gemm=direct tiles none".into());
    }
    if let Some(sm) = xcc_llvm_dialect::sm_version(&spec.cpu).filter(|&sm| cli.tf32 && sm < 80) {
        return Err(format!("--tf32 needs tensor cores with TF32, sm_80 or newer (--mcpu=sm_{sm})"));
    }
    match model {
        Some(iface) if gpu && !iface.symbols.is_empty() => Err(format!(
            "dims known only at run time ({}) are not supported on GPUs yet: fix them with --dim NAME=N",
            iface.symbols.join(", ")
        )),
        Some(iface) if gpu && iface.optional_inputs.contains(&true) => {
            Err("optional inputs are not supported on GPUs: compile the model for a CPU".into())
        }
        Some(iface) if gpu && iface.uses_strings => {
            Err("STRING tensors are not supported on GPUs: compile the model for a CPU".into())
        }
        Some(iface) if gpu && iface.finds_dims => Err(
            "tensors whose size the run finds (NonZero, Compress, Unique, NonMaxSuppression) are not supported on GPUs yet"
                .into(),
        ),
        // Dims computed from dims alone come from symbols, refused above.
        Some(iface) if gpu && (iface.reads_shape_inputs() || iface.computes_dims) => {
            let read: Vec<String> = iface.shape_inputs.iter().map(|n| format!("'{n}'")).collect();
            Err(format!(
                "shapes read from inputs at run time are not supported on GPUs yet (from {}): freeze those \
                 inputs with --bind NAME=VALUES",
                read.join(", ")
            ))
        }
        _ => Ok(()),
    }
}

/// What the target cannot produce is refused before anything is compiled. A model for nvptx64
/// is a library (host code launching the kernels) or its kernels' PTX.
fn check_emit_for_target(emit: Emit, spec: &xcc_targets::Target, model: bool) -> Result<(), String> {
    let gpu = spec.is_gpu();
    match emit {
        Emit::Ptx if !gpu => Err("--emit=ptx needs --target=nvptx64".into()),
        Emit::Lib if gpu && model => Ok(()),
        Emit::Obj | Emit::Asm | Emit::Llvm | Emit::Bc if gpu && model => Err(format!(
            "a model for nvptx64 is written as a library (-o libNAME.a) or its kernels' PTX (--emit=ptx), not --emit={}",
            format!("{emit:?}").to_lowercase()
        )),
        Emit::Obj | Emit::Lib if gpu => Err(format!(
            "--emit={} is not available for nvptx64, whose code is PTX text (use -o NAME.ptx or --emit=ptx)",
            if emit == Emit::Obj { "obj" } else { "lib" }
        )),
        Emit::Lib if !spec.links_with_runtime() => Err(format!(
            "a static library for '{}' is not supported: runtime-c is built for Linux (ELF) only; \
             emit an object (-o NAME.o) for this target instead",
            spec.triple
        )),
        _ => Ok(()),
    }
}

/// `-v`: each stage's name and time on standard error as it ends.
struct Stages {
    verbose: bool,
    since: Instant,
}

impl Stages {
    fn new(verbose: bool) -> Stages {
        Stages { verbose, since: Instant::now() }
    }

    fn done(&mut self, stage: &str) {
        if self.verbose {
            eprintln!("xcc: {stage}: {:.1} ms", self.since.elapsed().as_secs_f64() * 1e3);
        }
        self.since = Instant::now();
    }
}

/// `--time-passes`: the passes by time taken, as LLVM's report lays them out.
fn print_pass_times(times: &[(String, Duration)]) {
    let total: f64 = times.iter().map(|(_, t)| t.as_secs_f64()).sum();
    let mut sorted: Vec<&(String, Duration)> = times.iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let rule = "===".to_string() + &"-".repeat(73) + "===";
    eprintln!("{rule}\n{:^79}\n{rule}", "xcc pass execution timing report");
    eprintln!("  Total Execution Time: {total:.4} seconds\n\n   ---Wall Time---  --- Name ---");
    let share = |t: f64| if total > 0.0 { 100.0 * t / total } else { 0.0 };
    for (name, t) in sorted {
        let t = t.as_secs_f64();
        eprintln!("   {t:.4} ({:5.1}%)  {name}", share(t));
    }
    eprintln!("   {total:.4} (100.0%)  Total");
}

/// An input read: its source (a model's diagnostics have no text to point into), the module, and
/// for an ONNX model its name and interface, for the header.
type Input = (SourceFile, xcc_ir::Module, Option<(String, ModelInterface)>);

fn read_input(cli: &Cli) -> Result<Input, String> {
    let input = cli.input.display().to_string();
    if is_coreml(cli) {
        let name = model_name(cli)?;
        let options = coreml_options(cli, &name)?;
        let (module, iface) =
            xcc_frontend_coreml::compile(&cli.input, &options).map_err(|e| format!("xcc: error: {input}: {e}"))?;
        return Ok((SourceFile::new(input, String::new()), module, Some((name, iface))));
    }
    let text = std::fs::read(&cli.input).map_err(|e| format!("xcc: error: cannot read {input}: {e}"))?;
    if language(cli, &text) == Language::Onnx {
        let name = model_name(cli)?;
        let options = onnx_options(cli, &name)?;
        let (module, iface) =
            xcc_frontend_onnx::compile(&text, &cli.input, &options).map_err(|e| format!("xcc: error: {input}: {e}"))?;
        return Ok((SourceFile::new(input, String::new()), module, Some((name, iface))));
    }
    let text = String::from_utf8(text).map_err(|e| {
        // The line and column of the first byte that is not UTF-8, as the parser's errors say.
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + valid.iter().filter(|&&b| b == b'\n').count();
        let line_start = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let column = 1 + String::from_utf8_lossy(&valid[line_start..]).chars().count();
        format!("{input}:{line}:{column}: error: the file is not UTF-8 text (an invalid byte here)")
    })?;
    let source = SourceFile::new(input, text);
    let module = xcc_ir::parser::parse_module(&source.text).map_err(|d| source.render(&d))?;
    Ok((source, module, None))
}

/// Whether the input is a Core ML model: `-x coreml`, else a `.mlpackage` or `.mlmodel` name, or
/// a directory (a package by another name).
pub(crate) fn is_coreml(cli: &Cli) -> bool {
    match cli.language {
        Some(language) => language == Language::Coreml,
        None => xcc_frontend_coreml::is_coreml_path(&cli.input) || cli.input.is_dir(),
    }
}

/// The options a Core ML model compiles with: the ONNX path's, where `--dim` fixes or bounds a
/// flexible dim (`INPUT_dimK`) and `--shape` and `--bind`, which name an ONNX model's inputs,
/// have no meaning.
fn coreml_options<'a>(cli: &Cli, name: &'a str) -> Result<xcc_frontend_onnx::OnnxOptions<'a>, String> {
    for (flag, given) in [("--shape", !cli.shapes.is_empty()), ("--bind", !cli.binds.is_empty())] {
        if given {
            return Err(format!(
                "xcc: error: {flag} applies to ONNX models (a Core ML program's flexible dims take --dim INPUT_dimK=N)"
            ));
        }
    }
    onnx_options(cli, name)
}

/// The input's language: `-x` when given, else the extension (`.onnx`, `.mlir`), else the
/// content: MLIR is text, and an ONNX model (a protobuf) has bytes that text does not (a NUL,
/// or bytes that are not UTF-8), so that `model.pb` compiles as the model it is.
pub(crate) fn language(cli: &Cli, bytes: &[u8]) -> Language {
    if let Some(language) = cli.language {
        return language;
    }
    match cli.input.extension().and_then(|e| e.to_str()) {
        Some("onnx") => Language::Onnx,
        Some("mlpackage" | "mlmodel") => Language::Coreml,
        Some("mlir") => Language::Mlir,
        _ if bytes.contains(&0) || std::str::from_utf8(bytes).is_err() => Language::Onnx,
        _ => Language::Mlir,
    }
}

/// The ONNX frontend's options from the command line, for the model named `name`.
pub(crate) fn onnx_options<'a>(cli: &Cli, name: &'a str) -> Result<xcc_frontend_onnx::OnnxOptions<'a>, String> {
    let shapes = parse_shapes(&cli.shapes)?;
    let binds = parse_binds(&cli.binds)?;
    let dims = parse_dims(&cli.dims)?;
    let progress: Option<&dyn Fn(usize, usize)> = if cli.verbose { Some(&report_progress) } else { None };
    let target = xcc_codegen::resolve_target(&cli.target, None, None);
    let gpu =
        target.is_ok_and(|t| t.is_gpu()).then_some(xcc_lowering::math::gpu_has_code as xcc_frontend_onnx::GpuMath);
    Ok(xcc_frontend_onnx::OnnxOptions { name, shapes, binds, dims, progress, gpu, fold_budget: cli.fold_budget })
}

/// Models with fewer nodes than this compile too quickly to need a progress line.
const PROGRESS_MIN_NODES: usize = 500;

/// `-v`'s progress line while a large model's nodes are lowered: rewritten in place on a
/// terminal, else one line per tenth.
fn report_progress(done: usize, total: usize) {
    use std::io::IsTerminal;
    if total < PROGRESS_MIN_NODES {
        return;
    }
    let tenth = |n: usize| n * 10 / total;
    if std::io::stderr().is_terminal() {
        if done == total || done * 100 / total != (done - 1) * 100 / total {
            eprint!("\rxcc: lowering nodes: {done}/{total}{}", if done == total { "\n" } else { "" });
        }
    } else if tenth(done) != tenth(done - 1) {
        eprintln!("xcc: lowering nodes: {done}/{total} ({}%)", done * 100 / total);
    }
}

/// For `xcc inspect`: compiles the input through the llvm dialect (verified), as a compile
/// would up to LLVM, and returns a model's workspace bytes when its dims are all static.
pub(crate) fn compile_for_inspection(cli: &Cli) -> Result<Option<u64>, String> {
    let (source, module, header) = read_input(cli)?;
    let render = |d: Diagnostic| source.render(&d);
    verify_input(&module, header.is_some(), &render)?;
    let spec = xcc_codegen::resolve_target(&cli.target, None, None).map_err(|e| format!("xcc: error: {e}"))?;
    let lowered = lower(cli, module, &xcc_lowering::default_pipeline(), &spec).map_err(render)?;
    xcc_ir::verifier::verify(&lowered).map_err(render)?;
    let Some((name, _)) = header.filter(|(_, iface)| iface.symbols.is_empty()) else { return Ok(None) };
    let run = lowered.lookup_symbol(&xcc_frontend_onnx::emit::compute_symbol(&name));
    Ok(run.and_then(|f| lowered.attr(f, "xcc.workspace_bytes")).and_then(xcc_ir::Attribute::as_int).map(|b| b as u64))
}

/// For `xcc inspect`: an MLIR file's functions and their types.
pub(crate) fn functions(cli: &Cli) -> Result<Vec<(String, String)>, String> {
    let (_, module, _) = read_input(cli)?;
    let mut out = Vec::new();
    for &op in module.top_ops() {
        if let Some(name) = module.sym_name(op) {
            let ty = module.attr(op, "function_type").map_or(String::new(), |t| t.to_string());
            out.push((name.to_string(), ty));
        }
    }
    Ok(out)
}

/// Refuses, before compiling, an output whose directory does not exist.
pub(crate) fn check_output_directory(path: &Path) -> Result<(), String> {
    let cannot = |why: String| Err(format!("xcc: error: cannot write {}: {why}", path.display()));
    if path.is_dir() {
        return cannot("it is a directory".into());
    }
    if is_stream(path) {
        return Ok(());
    }
    match path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(dir) if dir.exists() && !dir.is_dir() => cannot(format!("{} is not a directory", dir.display())),
        Some(dir) if !dir.is_dir() => cannot(format!("the directory {} does not exist", dir.display())),
        _ => Ok(()),
    }
}

/// Runs the passes, with the verifier after each unless `--no-verify-each`.
fn lower(
    cli: &Cli,
    module: xcc_ir::Module,
    passes: &[Box<dyn xcc_lowering::Pass>],
    spec: &xcc_targets::Target,
) -> Result<xcc_ir::Module, Diagnostic> {
    let options = LoweringOptions {
        target: spec.clone(),
        gpu_emulation: cli.emulate_gpu,
        no_winograd: cli.no_winograd,
        gpu_gemm: xcc_lowering::GpuGemm {
            tiling: match cli.gpu_gemm.unwrap_or(crate::GpuGemmChoice::Auto) {
                crate::GpuGemmChoice::Auto => xcc_lowering::GpuTiling::Auto,
                crate::GpuGemmChoice::Tiled => xcc_lowering::GpuTiling::Tiled,
                crate::GpuGemmChoice::Direct => xcc_lowering::GpuTiling::Direct,
            },
            tensor_cores: cli.tf32,
        },
    };
    // Each pass's time, from the end of the previous one's verification to its own end.
    let mut times: Vec<(String, Duration)> = Vec::new();
    let mut since = Instant::now();
    let lowered = xcc_lowering::run_pipeline(module, passes, &options, |name, m| {
        times.push((name.to_string(), since.elapsed()));
        if cli.print_after_all {
            eprintln!("// -----// IR Dump After {name} //----- //\n{}", xcc_ir::printer::print_module(m));
        }
        if !cli.no_verify_each {
            xcc_ir::verifier::verify(m).map_err(|d| {
                Diagnostic::new(
                    d.span,
                    format!("internal error: the IR after pass '{name}' does not verify: {}", d.message),
                )
            })?;
        }
        since = Instant::now();
        Ok(())
    })?;
    if cli.time_passes {
        print_pass_times(&times);
    }
    Ok(lowered)
}

/// The llvm-dialect module through LLVM: translated, optimized, emitted as `emit` asks.
fn translate_and_emit(
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    emit: Emit,
    render: &dyn Fn(Diagnostic) -> String,
) -> Result<Vec<u8>, String> {
    let module_name = module_name(cli);
    let error = |e: String| format!("xcc: error: {e}");
    if emit == Emit::Lib {
        return library(cli, lowered, spec, &module_name, render);
    }
    let ctx = Context::create();
    let (llvm, tm) = translate_optimized(&ctx, cli, lowered, spec, &module_name, render)?;
    Ok(match emit {
        Emit::Llvm => llvm.print_to_string().to_bytes().to_vec(),
        Emit::Bc => llvm.write_bitcode_to_memory().as_slice().to_vec(),
        Emit::Ptx if !spec.is_gpu() => return Err(error("--emit=ptx needs --target=nvptx64".into())),
        Emit::Asm | Emit::Ptx => xcc_codegen::emit(&llvm, &tm, true).map_err(|e| error(e.to_string()))?,
        Emit::Obj => xcc_codegen::emit(&llvm, &tm, false).map_err(|e| error(e.to_string()))?,
        Emit::Lib | Emit::Mlir | Emit::MlirLlvm => unreachable!("emitted apart or printed before translation"),
    })
}

/// A static archive: the model's objects (one per codegen unit) and runtime-c's.
fn library(
    cli: &Cli,
    lowered: &xcc_ir::Module,
    spec: &xcc_targets::Target,
    module_name: &str,
    render: &dyn Fn(Diagnostic) -> String,
) -> Result<Vec<u8>, String> {
    let error = |e: String| format!("xcc: error: {e}");
    let runtime = xcc_runtime_c::objects_for_arch(spec.arch.name()).ok_or_else(|| {
        error(format!("static libraries are not available for {} (emit PTX or an object instead)", spec.arch.name()))
    })?;
    let objects = compile_objects(cli, lowered, spec, module_name, render)?;
    let asan = cli.sanitize == Some(Sanitizer::Address);
    let runtime_objects = if asan { xcc_runtime_c::RUNTIME_X86_64_ASAN } else { runtime.runtime };
    let cuda = objects.iter().any(|o| o.calls_cuda_shim);
    let mut members: Vec<(String, Vec<u8>)> = objects.into_iter().map(|o| (o.name, o.bytes)).collect();
    members.extend(xcc_runtime_c::runtime_members(&runtime_objects));
    if cuda {
        members.extend(runtime.cuda_members());
    }
    xcc_codegen::write_archive(&members).map_err(|e| error(e.to_string()))
}

/// `NAME.h` next to the library, with the workspace size that plan-workspace computed; for a
/// GPU model (`gpu`), with its context and run functions.
fn stage_header(
    outputs: &mut Outputs,
    cli: &Cli,
    emit: Emit,
    lowered: &xcc_ir::Module,
    name: &str,
    mut iface: ModelInterface,
    gpu: bool,
) -> Result<(), String> {
    let run = lowered.lookup_symbol(&xcc_frontend_onnx::emit::compute_symbol(name));
    let bytes = run.and_then(|f| lowered.attr(f, "xcc.workspace_bytes")).and_then(xcc_ir::Attribute::as_int);
    iface.workspace_bytes = bytes.unwrap_or(0) as usize;
    let input = cli.input.display().to_string();
    let gpu = gpu.then_some(xcc_runtime_c::GPU_HEADER);
    let text = xcc_abi::header(&iface, &input, &link_with(cli, emit), xcc_runtime_c::RUN_HEADER, gpu);
    // A stream has no directory beside it to hold the header.
    if !is_stream(&cli.output) {
        outputs.stage(&directory_of(&cli.output).join(format!("{name}.h")), text.as_bytes())?;
    }
    Ok(())
}

/// What a program links beside a model's header: an archive carries the runtime; an object
/// (or code to assemble into one) needs an xcc runtime archive too.
fn link_with(cli: &Cli, emit: Emit) -> String {
    let output = cli.output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let runtime = "an xcc runtime archive (`xcc runtime -o libxcc_runtime.a`, or any library xcc wrote)";
    match emit {
        Emit::Lib => output,
        Emit::Obj => format!("{output}, {runtime},"),
        _ => format!("the object compiled from {output}, {runtime},"),
    }
}

/// `--name`, else the output's stem without a `lib` prefix, as a C identifier.
fn model_name(cli: &Cli) -> Result<String, String> {
    let raw = match &cli.name {
        Some(n) => n.clone(),
        None => {
            let stem =
                cli.output.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
            stem.strip_prefix("lib").filter(|s| !s.is_empty()).unwrap_or(&stem).to_string()
        }
    };
    let name = xcc_abi::c_name(&raw);
    if cli.name.is_some() && name != raw {
        return Err(format!("xcc: error: --name '{raw}' is not a C identifier"));
    }
    Ok(name)
}

fn parse_binds(
    specs: &[String],
) -> Result<std::collections::HashMap<String, xcc_frontend_onnx::import::Binding>, String> {
    use xcc_frontend_onnx::import::Binding;
    let mut out = std::collections::HashMap::new();
    for s in specs {
        let bad = || format!("xcc: error: --bind '{s}' is not NAME=v1,v2,... or NAME=@tensor.pb");
        let (name, value) = s.split_once('=').ok_or_else(bad)?;
        let binding = match value.strip_prefix('@') {
            Some(path) => Binding::TensorFile(path.into()),
            None if value.is_empty() => Binding::Values(Vec::new()),
            None => Binding::Values(
                value.split(',').map(|v| v.trim().parse::<f64>().map_err(|_| bad())).collect::<Result<_, _>>()?,
            ),
        };
        out.insert(name.to_string(), binding);
    }
    Ok(out)
}

fn parse_shapes(specs: &[String]) -> Result<std::collections::HashMap<String, Vec<DimSize>>, String> {
    let mut out = std::collections::HashMap::new();
    for s in specs {
        let bad = || {
            format!(
                "xcc: error: --shape '{s}' is not NAME=D0xD1x... (for example input=1x3x224x224; a dim may be a \
                 range MIN..MAX that stays symbolic, ids=1x1..2048)"
            )
        };
        let (name, dims) = s.rsplit_once('=').ok_or_else(bad)?;
        let dims = if dims.is_empty() {
            Vec::new()
        } else {
            dims.split('x').map(|d| DimSize::parse(d).ok_or_else(bad)).collect::<Result<_, _>>()?
        };
        out.insert(name.to_string(), dims);
    }
    Ok(out)
}

fn parse_dims(specs: &[String]) -> Result<std::collections::HashMap<String, DimSize>, String> {
    let mut out = std::collections::HashMap::new();
    for s in specs {
        let bad = || {
            format!(
                "xcc: error: --dim '{s}' is not NAME=N or NAME=MIN..MAX (for example batch=1, or seq=1..2048 to \
                 keep seq symbolic up to 2048)"
            )
        };
        let (name, n) = s.rsplit_once('=').ok_or_else(bad)?;
        if name.is_empty() {
            return Err(bad());
        }
        out.insert(name.to_string(), DimSize::parse(n).ok_or_else(bad)?);
    }
    Ok(out)
}

fn emit_from_extension(output: &Path) -> Result<Emit, String> {
    let ext = output.extension().and_then(|e| e.to_str()).unwrap_or("");
    Ok(match ext {
        "mlir" => Emit::Mlir,
        "ll" => Emit::Llvm,
        "bc" => Emit::Bc,
        "s" => Emit::Asm,
        "o" => Emit::Obj,
        "a" => Emit::Lib,
        "ptx" => Emit::Ptx,
        _ => {
            return Err(format!(
                "xcc: error: cannot tell what to write from the output name '{}': pass --emit=obj|asm|llvm|bc|mlir|mlir-llvm|lib|ptx",
                output.display()
            ))
        }
    })
}

/// The directory a file goes in (`.` for a bare name), where its header goes beside it.
pub(crate) fn directory_of(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Whether the output is a stream rather than a file: `-` (standard output) or an existing path
/// that is not a regular file, such as `/dev/null` or a named pipe.
pub(crate) fn is_stream(path: &Path) -> bool {
    path.as_os_str() == "-" || std::fs::metadata(path).is_ok_and(|m| !m.is_file())
}

pub(crate) use crate::outputs::write_output;
