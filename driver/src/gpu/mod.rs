//! A model for a GPU target: the lowered module holds host code (the compute function that
//! launches kernels, and its setup) and the kernels (functions marked `nvvm.kernel`). The kernels
//! go through the vendor's end ([`nvptx`] for NVIDIA: PTX and a cubin embedded in the host code)
//! or, with `--emulate-gpu`, through LLVM for the host CPU; the host code is compiled for
//! `--gpu-host` (x86_64 unless told otherwise). The library holds the host object, the emulated
//! kernels' object if any, runtime-c and its GPU part (on the vendor's driver, or the emulator).
//! This file is vendor-neutral; a second vendor's end would be a module beside [`nvptx`].

mod nvptx;

use crate::translate::{module_name, translate_optimized};
use crate::{Cli, Emit};
use inkwell::context::Context;
use std::collections::HashSet;
use xcc_ir::{Diagnostic, Module, OpId};
use xcc_targets::GpuVendor;

/// The output for a model compiled for a GPU: the kernels' code (`--emit=ptx`) or the library.
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
    let runtime = xcc_runtime_c::objects_for_arch(host_spec.arch.name())
        .filter(|_| host_spec.links_with_runtime())
        .ok_or_else(|| {
            let arches = xcc_runtime_c::ARCHES.join(", ");
            error(format!("--gpu-host must be a Linux CPU ({arches}), not '{}'", cli.gpu_host))
        })?;
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
        let vendor = spec.gpu().map(|g| g.vendor);
        let code = match vendor {
            Some(GpuVendor::Nvidia) => {
                let host = (emit != Emit::Ptx).then_some(&mut host);
                nvptx::embed_kernels(cli, (&llvm, &tm), spec, host)?
            }
            None => return Err(error(format!("{} is not a GPU target", spec.arch.name()))),
        };
        if emit == Emit::Ptx {
            return Ok(code);
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
    members.extend(runtime.gpu_members(cli.emulate_gpu));
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
