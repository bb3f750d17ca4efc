//! A model for `--target=nvptx64`: the lowered module holds host code (the compute function
//! that launches kernels, and its setup) and the kernels (functions marked `nvvm.kernel`). The
//! kernels go through LLVM for the GPU (PTX, embedded in the host code as text the driver
//! JIT-compiles) or, with `--emulate-gpu`, for the host CPU; the host code for `--gpu-host`
//! (x86_64 unless told aarch64). Where `ptxas` is at hand (`--ptxas`, `XCC_PTXAS`, `PATH`,
//! `CUDA_HOME` or `/usr/local/cuda`), the kernels are also compiled to a cubin for `--mcpu`,
//! embedded beside the PTX: the driver loads the cubin where it fits the device, and JIT-compiles
//! the PTX elsewhere. The library holds the host object, the emulated kernels' object if any,
//! runtime-c and its GPU part (on CUDA, or the emulator).

use crate::pipeline::{module_name, translate_optimized};
use crate::{Cli, Emit};
use inkwell::context::Context;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use xcc_ir::{Attribute, Diagnostic, Module, OpId};
use xcc_lowering::conversion::parallel_to_gpu::{CUBIN_GLOBAL_ATTR, PTX_GLOBAL_ATTR};

/// The output for a model compiled for nvptx64: the kernels' PTX (`--emit=ptx`) or the library.
pub fn model_output(
    cli: &Cli,
    lowered: &Module,
    spec: &xcc_targets::Target,
    emit: Emit,
    render: &dyn Fn(Diagnostic) -> String,
) -> Result<Vec<u8>, String> {
    let error = |e: String| format!("xcc: error: {e}");
    let (device, mut host) = split(lowered);
    let name = module_name(cli);
    let host_spec = xcc_codegen::resolve_target(&cli.gpu_host, None, None).map_err(|e| error(e.to_string()))?;
    let runtime =
        xcc_runtime_c::objects_for_arch(host_spec.arch.name()).filter(|_| host_spec.links_with_runtime()).ok_or_else(
            || error(format!("--gpu-host must be a Linux CPU (x86_64, aarch64, riscv64), not '{}'", cli.gpu_host)),
        )?;
    let ctx = Context::create();
    let mut members = Vec::new();
    if cli.emulate_gpu {
        let (llvm, tm) = translate_optimized(&ctx, cli, &device, &host_spec, &format!("{name}_kernels"), render)?;
        members.push((
            format!("{name}_kernels.o"),
            xcc_codegen::emit(&llvm, &tm, false).map_err(|e| error(e.to_string()))?,
        ));
    } else {
        let (llvm, tm) = translate_optimized(&ctx, cli, &device, spec, &format!("{name}_kernels"), render)?;
        let ptx = xcc_codegen::emit(&llvm, &tm, true).map_err(|e| error(e.to_string()))?;
        if emit == Emit::Ptx {
            return Ok(ptx);
        }
        set_ptx(&mut host, &ptx)?;
        if let Some((ptxas, named)) = ptxas(cli) {
            match cubin(&ptxas, &ptx, &spec.cpu) {
                Ok(cubin) => set_cubin(&mut host, cubin)?,
                // A ptxas found on the machine (an older toolkit, say) that fails leaves the
                // library to its PTX; one the command named must work.
                Err(e) if !named => eprintln!("xcc: warning: {e}; the library carries the PTX alone"),
                Err(e) => return Err(error(e)),
            }
        }
    }
    if emit != Emit::Lib {
        return Err(error(
            "a model for nvptx64 is written as a library (-o libNAME.a) or its kernels' PTX (--emit=ptx)".into(),
        ));
    }
    let (llvm, tm) = translate_optimized(&ctx, cli, &host, &host_spec, &name, render)?;
    members.insert(0, (format!("{name}.o"), xcc_codegen::emit(&llvm, &tm, false).map_err(|e| error(e.to_string()))?));
    members.extend(xcc_runtime_c::runtime_members(&runtime.runtime));
    let gpu = if cli.emulate_gpu { runtime.gpu_emulated } else { runtime.gpu };
    members.push(("xcc_gpu.o".into(), gpu.to_vec()));
    xcc_codegen::write_archive(&members).map_err(|e| error(e.to_string()))
}

/// The kernels (and the declarations they call) apart from the host code: two modules, each
/// with what the other holds removed. The host keeps a kernel's declaration, which the emulated
/// library's setup takes the address of.
fn split(lowered: &Module) -> (Module, Module) {
    let is_kernel = |m: &Module, op: OpId| m.attr(op, "nvvm.kernel").is_some();
    let mut device = lowered.clone();
    let called = symbols_used_by_kernels(&device);
    for op in device.top_ops().to_vec() {
        let keep = is_kernel(&device, op) || device.sym_name(op).is_some_and(|s| called.contains(s));
        if !keep {
            device.erase_op(op);
        }
    }
    let mut host = lowered.clone();
    for op in host.top_ops().to_vec() {
        if is_kernel(&host, op) {
            let region = host.ops[op].regions[0];
            host.regions[region].blocks.clear();
            host.remove_attr(op, "nvvm.kernel");
        }
    }
    (device, host)
}

/// The symbols the kernels refer to (functions they call, globals they read).
fn symbols_used_by_kernels(m: &Module) -> HashSet<String> {
    let mut out = HashSet::new();
    for &op in m.top_ops() {
        if m.attr(op, "nvvm.kernel").is_none() {
            continue;
        }
        m.walk_nested(op, &mut |inner| {
            for (_, a) in &m.ops[inner].attrs {
                if let Some(s) = a.as_symbol() {
                    out.insert(s.to_string());
                }
            }
        });
    }
    out
}

/// The PTX text in the global the lowering left for it.
fn set_ptx(host: &mut Module, ptx: &[u8]) -> Result<(), String> {
    let text = String::from_utf8(ptx.to_vec()).map_err(|_| "xcc: internal error: PTX that is not text".to_string())?;
    let global = host.top_ops().iter().copied().find(|&op| host.attr(op, PTX_GLOBAL_ATTR).is_some());
    let Some(global) = global else { return Err("xcc: internal error: no global for the kernels' PTX".into()) };
    let len = text.len() as u64 + 1;
    host.set_attr(global, "value", Attribute::String(format!("{text}\0")));
    host.set_attr(
        global,
        "global_type",
        Attribute::Type(xcc_ir::Type::LlvmArray { len, elem: Box::new(xcc_ir::Type::i8()) }),
    );
    Ok(())
}

/// The `ptxas` to make the cubin with, and whether it was named (`--ptxas`, else `XCC_PTXAS`)
/// rather than found (on `PATH`, in `$CUDA_HOME/bin` or in `/usr/local/cuda/bin`); none with
/// `--no-cubin`.
fn ptxas(cli: &Cli) -> Option<(PathBuf, bool)> {
    if cli.no_cubin {
        return None;
    }
    if let Some(p) = &cli.ptxas {
        return Some((p.clone(), true));
    }
    if let Some(p) = std::env::var_os("XCC_PTXAS").filter(|p| !p.is_empty()) {
        return Some((PathBuf::from(p), true));
    }
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    dirs.extend(std::env::var_os("CUDA_HOME").map(|h| Path::new(&h).join("bin")));
    dirs.push(PathBuf::from("/usr/local/cuda/bin"));
    dirs.into_iter().map(|d| d.join("ptxas")).find(|p| p.is_file()).map(|p| (p, false))
}

/// The kernels' cubin for `arch` (`sm_80`...), from `ptxas` in whole-program mode.
fn cubin(ptxas: &Path, ptx: &[u8], arch: &str) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("a folder for ptxas: {e}"))?;
    let (input, output) = (dir.path().join("kernels.ptx"), dir.path().join("kernels.cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("writing the PTX for ptxas: {e}"))?;
    let run = std::process::Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .map_err(|e| format!("running {}: {e}", ptxas.display()))?;
    if !run.status.success() {
        let why = String::from_utf8_lossy(&run.stderr);
        let why = if why.trim().is_empty() { format!("it exited with {}", run.status) } else { why.trim().to_string() };
        return Err(format!("{} refused the kernels' PTX: {why}", ptxas.display()));
    }
    std::fs::read(&output).map_err(|e| format!("reading ptxas's cubin: {e}"))
}

/// The cubin, after its size, in the global the lowering left for it.
fn set_cubin(host: &mut Module, cubin: Vec<u8>) -> Result<(), String> {
    let global = host.top_ops().iter().copied().find(|&op| host.attr(op, CUBIN_GLOBAL_ATTR).is_some());
    let Some(global) = global else { return Err("xcc: internal error: no global for the kernels' cubin".into()) };
    let mut bytes = (cubin.len() as u64).to_le_bytes().to_vec();
    bytes.extend(cubin);
    let len = bytes.len() as u64;
    let ty = xcc_ir::Type::Tensor { shape: Some(vec![Some(len)]), elem: Box::new(xcc_ir::Type::i8()) };
    host.set_attr(global, "value", Attribute::Dense { values: xcc_ir::attributes::DenseValues::Hex(bytes), ty });
    host.set_attr(
        global,
        "global_type",
        Attribute::Type(xcc_ir::Type::LlvmArray { len, elem: Box::new(xcc_ir::Type::i8()) }),
    );
    Ok(())
}
