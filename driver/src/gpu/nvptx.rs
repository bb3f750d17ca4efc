//! NVIDIA's end of a GPU model: the kernels as PTX, embedded in the host code as text the CUDA
//! driver JIT-compiles; where `ptxas` is at hand (`--ptxas`, `XCC_PTXAS`, `PATH`, `CUDA_HOME` or
//! `/usr/local/cuda`), also as a cubin for `--mcpu`, embedded beside the PTX: the driver loads
//! the cubin where it fits the device, and JIT-compiles the PTX elsewhere.

use crate::Cli;
use std::path::{Path, PathBuf};
use xcc_ir::{Attribute, Module};
use xcc_lowering::conversion::parallel_to_gpu::{CUBIN_GLOBAL_ATTR, PTX_GLOBAL_ATTR};

/// The kernels' PTX from their LLVM module (what `--emit=ptx` writes), embedded in `host`, where
/// there is one, with their cubin where `ptxas` makes one.
pub(super) fn embed_kernels(
    cli: &Cli,
    (llvm, tm): (&inkwell::module::Module, &inkwell::targets::TargetMachine),
    spec: &xcc_targets::Target,
    host: Option<&mut Module>,
) -> Result<Vec<u8>, String> {
    let error = |e: String| format!("xcc: error: {e}");
    let ptx = xcc_codegen::emit(llvm, tm, true).map_err(|e| error(e.to_string()))?;
    let Some(host) = host else { return Ok(ptx) };
    set_ptx(host, &ptx)?;
    if let Some((ptxas, named)) = ptxas(cli) {
        match cubin(&ptxas, &ptx, &spec.cpu) {
            Ok(cubin) => set_cubin(host, cubin)?,
            // A ptxas found on the machine (an older toolkit, say) that fails leaves the
            // library to its PTX; one the command named must work.
            Err(e) if !named => eprintln!("xcc: warning: {e}; the library carries the PTX alone"),
            Err(e) => return Err(error(e)),
        }
    }
    Ok(ptx)
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
