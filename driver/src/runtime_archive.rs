//! `xcc runtime -o libxcc_runtime.a`: runtime-c alone, as an archive with its headers beside it,
//! for programs that link objects xcc wrote (`-o model.o`) or that keep one runtime for many
//! models. The archive holds the CPU runtime and the CUDA launch shim as separate members, so a
//! static link pulls the shim (and its `dlopen`) only into programs that call it.

use crate::pipeline::{check_output_directory, directory_of, is_stream};
use crate::RuntimeCli;

/// Writes the archive, and `xcc_runtime.h` and `xcc_run.h` in its directory.
pub fn run(cli: &RuntimeCli) -> Result<(), String> {
    let error = |e: String| format!("xcc: error: {e}");
    if is_stream(&cli.output) {
        return Err(error(format!("{}: the runtime is an archive and its headers; name a file", cli.output.display())));
    }
    check_output_directory(&cli.output)?;
    let spec = xcc_codegen::resolve_target(&cli.target, None, None).map_err(|e| error(e.to_string()))?;
    let objects = xcc_runtime_c::objects_for_arch(spec.arch.name()).ok_or_else(|| {
        let arches = xcc_runtime_c::ARCHES.join(", ");
        error(format!("there is no runtime for {}: it runs on {arches}", spec.arch.name()))
    })?;
    let mut members = xcc_runtime_c::runtime_members(&objects.runtime);
    members.extend(objects.cuda_members());
    let archive = xcc_codegen::write_archive(&members).map_err(|e| error(e.to_string()))?;
    let dir = directory_of(&cli.output);
    let mut outputs = crate::outputs::Outputs::default();
    outputs.stage(&cli.output, &archive)?;
    outputs.stage(&dir.join("xcc_runtime.h"), xcc_runtime_c::HEADER.as_bytes())?;
    outputs.stage(&dir.join("xcc_run.h"), xcc_runtime_c::RUN_HEADER.as_bytes())?;
    outputs.commit()
}
