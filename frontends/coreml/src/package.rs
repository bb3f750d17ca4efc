//! Finding the model in what the user named: a `.mlpackage` directory (its `Manifest.json`
//! names the root model item, `Data/com.apple.CoreML/model.mlmodel` as coremltools writes it)
//! or a bare `.mlmodel` file. Nothing outside the package is read: the manifest's paths and the
//! program's blob file names are resolved and checked to stay inside it.

use std::path::{Component, Path, PathBuf};

/// An opened model: the `Model` protobuf's bytes, and where its blob files may be.
pub struct Package {
    pub model_bytes: Vec<u8>,
    /// What `@model_path` in a blob file name stands for: the model file's directory.
    pub model_dir: PathBuf,
    /// The directory nothing is read outside of (the package, or the bare model's directory).
    pub root: PathBuf,
}

/// Opens a `.mlpackage` directory or a `.mlmodel` file.
pub fn open(path: &Path) -> Result<Package, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_dir() {
        let model_bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let dir = canonical(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
        return Ok(Package { model_bytes, model_dir: dir.clone(), root: dir });
    }
    let root = canonical(path)?;
    let manifest_path = root.join("Manifest.json");
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("not a Core ML package: cannot read Manifest.json ({e})"))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("Manifest.json is not valid JSON: {e}"))?;
    let item_path = root_item_path(&manifest)?;
    let model_path = inside(&root, &root.join("Data"), item_path, "Manifest.json's root model path")?;
    let model_bytes = std::fs::read(&model_path)
        .map_err(|e| format!("cannot read the package's model file {}: {e}", model_path.display()))?;
    let model_dir = model_path.parent().unwrap_or(&root).to_path_buf();
    Ok(Package { model_bytes, model_dir, root })
}

/// The path of the manifest's root model item (relative to the package's `Data` directory).
fn root_item_path(manifest: &serde_json::Value) -> Result<&str, String> {
    let id = manifest
        .get("rootModelIdentifier")
        .and_then(|v| v.as_str())
        .ok_or("Manifest.json has no rootModelIdentifier")?;
    manifest
        .get("itemInfoEntries")
        .and_then(|items| items.get(id))
        .and_then(|item| item.get("path"))
        .and_then(|p| p.as_str())
        .ok_or_else(|| format!("Manifest.json has no item '{id}' with a path (its rootModelIdentifier)"))
}

/// `relative` under `base`, as a file inside `root`: an absolute path, a `..`, or a link that
/// leads outside is refused, with `what` in the message.
pub fn inside(root: &Path, base: &Path, relative: &str, what: &str) -> Result<PathBuf, String> {
    let rel = Path::new(relative);
    if rel.components().any(|c| !matches!(c, Component::Normal(_) | Component::CurDir)) {
        return Err(format!("{what} '{relative}' points outside the package"));
    }
    let joined = base.join(rel);
    let resolved = canonical(&joined).map_err(|_| format!("{what} '{relative}' does not exist in the package"))?;
    if !resolved.starts_with(root) {
        return Err(format!("{what} '{relative}' points outside the package"));
    }
    Ok(resolved)
}

fn canonical(p: &Path) -> Result<PathBuf, String> {
    p.canonicalize().map_err(|e| format!("cannot read {}: {e}", p.display()))
}
