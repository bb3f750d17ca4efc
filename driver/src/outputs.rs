//! A compile's outputs written together: each file is staged in a temporary file beside its
//! destination and renamed into place only once every output is written, so a compile that fails
//! at any step (a header that cannot be written after its library, say) leaves nothing behind. A
//! stream (standard output, `/dev/null`, a pipe) is opened before any file is renamed and written
//! after: renaming over `/dev/null` would replace the device with a regular file.

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// The outputs staged so far; dropped without [`Outputs::commit`], they leave nothing.
#[derive(Default)]
pub(crate) struct Outputs {
    files: Vec<(PathBuf, NamedTempFile)>,
    streams: Vec<(PathBuf, Vec<u8>)>,
}

fn cannot_write(path: &Path, e: impl std::fmt::Display) -> String {
    format!("xcc: error: cannot write {}: {e}", path.display())
}

impl Outputs {
    /// Stages `bytes` for `path`.
    pub(crate) fn stage(&mut self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        if crate::pipeline::is_stream(path) {
            self.streams.push((path.to_path_buf(), bytes.to_vec()));
            return Ok(());
        }
        // Created 0666 less the umask, as a compiler's outputs are, rather than the 0600 of a
        // temporary file.
        let mut tmp = tempfile::Builder::new()
            .permissions(std::fs::Permissions::from_mode(0o666))
            .tempfile_in(crate::pipeline::directory_of(path))
            .map_err(|e| cannot_write(path, e))?;
        tmp.write_all(bytes).map_err(|e| cannot_write(path, e))?;
        self.files.push((path.to_path_buf(), tmp));
        Ok(())
    }

    /// Writes every staged output, or none of the files (and no stream) when one cannot be.
    pub(crate) fn commit(self) -> Result<(), String> {
        let mut streams = Vec::new();
        for (path, bytes) in self.streams {
            let sink: Box<dyn Write> = match path.as_os_str() == "-" {
                true => Box::new(std::io::stdout()),
                false => Box::new(File::options().write(true).open(&path).map_err(|e| cannot_write(&path, e))?),
            };
            streams.push((path, sink, bytes));
        }
        let mut placed: Vec<PathBuf> = Vec::new();
        for (path, tmp) in self.files {
            if let Err(e) = tmp.persist(&path) {
                for done in &placed {
                    let _ = std::fs::remove_file(done);
                }
                return Err(cannot_write(&path, e.error));
            }
            placed.push(path);
        }
        for (path, mut sink, bytes) in streams {
            sink.write_all(&bytes).and_then(|()| sink.flush()).map_err(|e| cannot_write(&path, e))?;
        }
        Ok(())
    }
}

/// One output written alone ([`Outputs`] of one).
pub(crate) fn write_output(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut outputs = Outputs::default();
    outputs.stage(path, bytes)?;
    outputs.commit()
}
