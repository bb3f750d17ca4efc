//! The `xcc` command: an ONNX model or MLIR text in; MLIR, LLVM IR, bitcode, assembly, objects,
//! PTX or a self-contained static library (with a C header for a model) out.

mod gpu;
mod inspect;
mod manual;
mod outputs;
mod pipeline;
mod runtime_archive;
mod translate;

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// The parsed and verified module in the upstream spelling (after `--passes`, if given).
    Mlir,
    /// The module after lowering to the llvm dialect.
    MlirLlvm,
    /// LLVM IR text (`.ll`), after LLVM's optimization pipeline.
    Llvm,
    /// LLVM bitcode (`.bc`).
    Bc,
    /// Target assembly (`.s`).
    Asm,
    /// A relocatable object (`.o`).
    Obj,
    /// A static archive with the object and runtime-c for the target (`.a`).
    Lib,
    /// PTX for nvptx64 (`.ptx`).
    Ptx,
}

/// A sanitizer for the compiled code (`--sanitize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Sanitizer {
    /// AddressSanitizer: every memory access of the model's or kernel's code is checked, and a
    /// library carries runtime-c built with it; link the program with -fsanitize=address.
    Address,
}

/// How GPU matmuls and convolutions are lowered (`--gpu-gemm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GpuGemmChoice {
    /// Tiled through shared memory where the GEMM has enough tiles to fill a GPU; direct
    /// otherwise.
    Auto,
    /// Every f32 GEMM of static sizes tiled (small ones too).
    Tiled,
    /// A thread per output (sums split over K where outputs are few), none tiled.
    Direct,
}

/// The input's language (`-x`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Language {
    /// An ONNX model (a protobuf `ModelProto`).
    Onnx,
    /// MLIR text, in the generic or the custom spelling.
    Mlir,
    /// A Core ML ML Program: a `.mlpackage` directory or a `.mlmodel` file.
    Coreml,
}

#[derive(Parser, Debug)]
#[command(
    name = "xcc",
    version,
    about = "Ahead-of-time compiler for ONNX models and MLIR kernels, to static libraries, objects and PTX",
    after_help = "Examples:\n  xcc model.onnx -o libmodel.a           # libmodel.a and model.h, to link into C or C++\n  \
                  xcc inspect model.onnx [--json]        # its inputs, outputs, operators; does it compile?\n  \
                  xcc model.onnx -o model.o && xcc runtime -o libxcc_runtime.a   # an object, the runtime apart\n  \
                  xcc model.onnx --dim seq=1..2048 -o libenc.a   # one library for any length up to 2048\n  \
                  xcc kernel.mlir --target=aarch64 -O3 -o kernel.o\n  \
                  xcc kernel.mlir --target=nvptx64 --mcpu=sm_90 -o kernel.ptx"
)]
pub struct Cli {
    /// Input file: an ONNX model, a Core ML ML Program (`.mlpackage` or `.mlmodel`) or MLIR text,
    /// told apart by `-x`, else the extension (`.onnx`, `.mlpackage`, `.mlmodel`, `.mlir`), else
    /// the content.
    pub input: PathBuf,
    /// The input's language, whatever its name.
    #[arg(short = 'x', value_enum)]
    pub language: Option<Language>,
    /// Output file; `-` writes text outputs to standard output.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// What to write; by default from the output's extension (.mlir .ll .bc .s .o .a .ptx).
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// Target: x86_64, aarch64, riscv64, nvptx64, or a full triple.
    #[arg(long, default_value = "x86_64")]
    pub target: String,
    /// Target CPU (`native` for this machine); default: a portable one.
    #[arg(long)]
    pub mcpu: Option<String>,
    /// Target features, e.g. `+avx2,+fma` or `+ptx80`.
    #[arg(long)]
    pub mattr: Option<String>,
    /// Optimization level 0-3 (`-O0` .. `-O3`).
    #[arg(short = 'O', default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub opt: u8,
    /// Print the module after every pass to standard error.
    #[arg(long)]
    pub print_after_all: bool,
    /// Compute every convolution as an im2col GEMM: no Winograd F(2x2, 3x3) for the 3x3 ones
    /// (about twice as fast; its sums round differently, see docs/onnx.md).
    #[arg(long)]
    pub no_winograd: bool,
    /// Instrument the compiled code for a sanitizer (x86_64 CPU targets): `address` checks
    /// every load and store against AddressSanitizer's shadow memory; link the program with
    /// -fsanitize=address.
    #[arg(long, value_enum)]
    pub sanitize: Option<Sanitizer>,
    /// With --target=nvptx64: compile the kernels for this host CPU instead, and put runtime-c's
    /// GPU emulator in the library, which runs each kernel's grid thread by thread, a block's
    /// threads as coroutines that meet at its barriers (the GPU code tested without a GPU).
    #[arg(long)]
    pub emulate_gpu: bool,
    /// With --target=nvptx64: the `ptxas` that compiles the kernels to a cubin for --mcpu, which
    /// the library carries beside the PTX (default: `XCC_PTXAS`, else one on PATH, in
    /// $CUDA_HOME/bin or /usr/local/cuda/bin; without one, the PTX alone).
    #[arg(long, value_name = "PATH")]
    pub ptxas: Option<std::path::PathBuf>,
    /// With --target=nvptx64: no cubin, even where `ptxas` is found (the driver JIT-compiles the
    /// PTX when a context is created).
    #[arg(long)]
    pub no_cubin: bool,
    /// With --target=nvptx64: how matmuls and convolutions are lowered, tiled through shared
    /// memory (a block per 64x64 tile of the output) or direct (a thread per output); default
    /// auto.
    #[arg(long, value_enum, value_name = "HOW")]
    pub gpu_gemm: Option<GpuGemmChoice>,
    /// With --target=nvptx64 (sm_80 or newer): the tiled matmuls and convolutions multiply on
    /// tensor cores in TF32, their inputs rounded to 10 bits of mantissa (relative error about
    /// 1e-3 where f32 has 1e-7), their sums in f32; faster, less accurate, as PyTorch's allow_tf32.
    #[arg(long)]
    pub tf32: bool,
    /// With --target=nvptx64: the CPU the library's host code runs on, `x86_64` (default) or
    /// `aarch64` (a Grace or Jetson host); emulated kernels run there too.
    #[arg(long, value_name = "ARCH", default_value = "x86_64")]
    pub gpu_host: String,
    /// Skip the verifier between passes (it always runs after parsing and before translation).
    #[arg(long)]
    pub no_verify_each: bool,
    /// Run these passes (comma-separated, in order) instead of the default pipeline; with
    /// `--emit=mlir`, print the module after them (e.g. `--passes=convert-arith-to-llvm`).
    #[arg(long, value_name = "PASS,PASS,...")]
    pub passes: Option<String>,
    /// ONNX: prefix of the exported symbols; default from the output name (`libmodel.a` -> `model`).
    #[arg(long)]
    pub name: Option<String>,
    /// ONNX: the shape of an input with symbolic dims, `NAME=1x3x224x224` (repeatable); a dim
    /// given as a range `MIN..MAX` stays symbolic within it (`ids=1x1..2048`).
    #[arg(long = "shape", value_name = "NAME=DIMS")]
    pub shapes: Vec<String>,
    /// ONNX: the size of a symbolic dim (a `dim_param` such as `batch` or `sequence`) wherever
    /// the model's inputs use it, `NAME=N`, or its range `NAME=MIN..MAX` (`..MAX` from 1): the dim
    /// stays symbolic, runs outside the range are refused, and `NAME_workspace_size_max()` sizes
    /// one workspace for all of them (repeatable).
    #[arg(long = "dim", value_name = "NAME=N|MIN..MAX")]
    pub dims: Vec<String>,
    /// How many bytes of constants computed at compile time may become data in the library
    /// (default: 64 MiB plus four times the model's initializers, or the MLIR file's size). ONNX:
    /// past it, a node with more than 1 MiB of outputs is computed when the model runs instead;
    /// MLIR: a global filled with one non-zero value is written out only up to it.
    #[arg(long, value_name = "BYTES")]
    pub fold_budget: Option<usize>,
    /// How many threads compile a library's parts (its code for each CPU, its constants):
    /// default, as many as the machine has; 1 within a parallel build. The library's bytes are
    /// the same whatever the number.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Print each stage of the compilation, with its time, and the peak memory, to standard error.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Print a table of the time each lowering pass took, to standard error.
    #[arg(long)]
    pub time_passes: bool,
    /// ONNX: freeze an input to a constant, `NAME=1,2,3` or `NAME=@tensor.pb` (repeatable); for
    /// inputs that determine shapes (Reshape's shape, Slice's starts, axes).
    #[arg(long = "bind", value_name = "NAME=VALUES")]
    pub binds: Vec<String>,
}

/// `xcc inspect FILE`: a model's interface, operators, parameters and multiply-accumulates, or an
/// MLIR file's functions, and whether it compiles (the exit status).
#[derive(Parser, Debug)]
#[command(
    name = "xcc inspect",
    about = "What an ONNX model or MLIR file holds, and whether xcc compiles it (exit status 0 only then)"
)]
pub struct InspectCli {
    /// Input file: an ONNX model or MLIR text.
    pub input: PathBuf,
    /// The input's language, whatever its name.
    #[arg(short = 'x', value_enum)]
    pub language: Option<Language>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// ONNX: as for compiling, `NAME=1x3x224x224` (the report's dims and workspace follow).
    #[arg(long = "shape", value_name = "NAME=DIMS")]
    pub shapes: Vec<String>,
    /// ONNX: as for compiling, `NAME=N` or `NAME=MIN..MAX`.
    #[arg(long = "dim", value_name = "NAME=N|MIN..MAX")]
    pub dims: Vec<String>,
    /// ONNX: how many bytes of tensors computed from constants may become data in the library
    /// (default: 64 MiB plus four times the model's initializers); past it, a node with more
    /// than 1 MiB of outputs is computed when the model runs instead of at compile time.
    #[arg(long, value_name = "BYTES")]
    pub fold_budget: Option<usize>,
    /// ONNX: as for compiling, `NAME=VALUES`.
    #[arg(long = "bind", value_name = "NAME=VALUES")]
    pub binds: Vec<String>,
}

/// `xcc runtime -o libxcc_runtime.a`: runtime-c alone, with its headers beside it.
#[derive(Parser, Debug)]
#[command(
    name = "xcc runtime",
    about = "Write xcc's C runtime as an archive, with its headers beside it",
    long_about = "Write xcc's C runtime as an archive, with xcc_runtime.h and xcc_run.h beside it, for \
                  programs that link objects xcc wrote (-o model.o). Libraries xcc writes carry the \
                  runtime already."
)]
pub struct RuntimeCli {
    /// The archive to write.
    #[arg(short = 'o', long = "output")]
    pub output: PathBuf,
    /// Target: x86_64, aarch64, riscv64, or a full triple.
    #[arg(long, default_value = "x86_64")]
    pub target: String,
}

/// `xcc VERSION (LLVM X.Y.Z, commit C)`: the LLVM xcc is linked with, and the commit it is
/// built from.
pub(crate) fn version() -> &'static str {
    let (major, minor, patch) = inkwell::support::get_llvm_version();
    let text = format!("{} (LLVM {major}.{minor}.{patch}, commit {})", env!("CARGO_PKG_VERSION"), env!("XCC_COMMIT"));
    // Once per process: clap keeps the text for the life of the command.
    Box::leak(text.into_boxed_str())
}

fn main() -> ExitCode {
    // Accept the compiler-style spellings `-mcpu=x` and `-mattr=y` too.
    let args = std::env::args_os().map(|a| match a.to_str() {
        Some(s) if s.starts_with("-mcpu") || s.starts_with("-mattr") => format!("-{s}").into(),
        _ => a,
    });
    let args: Vec<std::ffi::OsString> = args.collect();
    std::panic::set_hook(Box::new(|info| {
        eprintln!("xcc: internal compiler error: {info}");
    }));
    // `xcc SUBCOMMAND ...` (a file named like one is `./inspect`).
    if let Some(result) = args.get(1).and_then(|a| a.to_str()).and_then(|name| subcommand(name, &args)) {
        return exit(result);
    }
    let matches = Cli::command().version(version()).get_matches_from(args);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = pipeline::run(&cli);
    if cli.verbose {
        report_peak_memory();
    }
    exit(result.map(|()| true))
}

/// `-v`: the compile's peak resident memory, from Linux's `VmHWM` (this program's own: the
/// maximum `getrusage` gives a child also counts its parent's memory from before `exec`).
fn report_peak_memory() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().strip_suffix(" kB"));
    if let Some(kb) = peak.and_then(|v| v.trim().parse::<u64>().ok()) {
        eprintln!("xcc: peak memory: {:.1} MB", kb as f64 / 1024.0);
    }
}

/// Runs `xcc NAME ...` when NAME is a subcommand: `Ok(false)` is a failure already reported.
fn subcommand(name: &str, args: &[std::ffi::OsString]) -> Option<Result<bool, String>> {
    let rest = || std::iter::once(args[0].clone()).chain(args[2..].iter().cloned());
    let one_argument = |what: &str| match &args[2..] {
        [value] => value.to_str().map(str::to_string).ok_or_else(|| format!("xcc: error: {what} is not UTF-8")),
        _ => Err(format!("xcc: error: usage: xcc {name} {}", what.to_uppercase())),
    };
    Some(match name {
        "inspect" => inspect::run(&parse_subcommand::<InspectCli>("xcc inspect", rest())),
        "runtime" => runtime_archive::run(&parse_subcommand::<RuntimeCli>("xcc runtime", rest())).map(|()| true),
        "completions" => one_argument("shell").and_then(|shell| manual::completions(&shell)).map(|()| true),
        "man" => one_argument("dir").and_then(|dir| manual::man_pages(dir.as_ref())).map(|()| true),
        _ => return None,
    })
}

/// A subcommand's arguments, its usage and errors naming it as typed (`xcc inspect`).
fn parse_subcommand<T: Parser>(name: &'static str, args: impl Iterator<Item = std::ffi::OsString>) -> T {
    let matches = T::command().bin_name(name).version(version()).get_matches_from(args);
    T::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn exit(result: Result<bool, String>) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("{}", message.trim_end());
            ExitCode::FAILURE
        }
    }
}
