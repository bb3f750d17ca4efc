//! The Core ML frontend: an ML Program (`.mlpackage` directory or `.mlmodel` file) ->
//! [`package`] (the manifest, the model file) -> [`proto`] (the `Model` wrapper and its MIL
//! `Program`) -> [`import`] (each MIL operation as ONNX operators, [`ops`]; weights from
//! [`blob`] files and inline [`value`]s) -> the graph the ONNX frontend compiles
//! ([`xcc_frontend_onnx::compile_graph`]). So inference, fusion, kernels, threads, the GPU and
//! the header are the ONNX path's, not a copy of it.

pub mod blob;
pub mod import;
pub mod ops;
pub mod package;
pub mod proto;
pub mod value;

use prost::Message;
use std::path::Path;
use xcc_frontend_onnx::{ModelInterface, OnnxOptions};

/// Whether `path` names a Core ML model: a `.mlpackage` or `.mlmodel`.
pub fn is_coreml_path(path: &Path) -> bool {
    matches!(path.extension().and_then(|e| e.to_str()), Some("mlpackage" | "mlmodel"))
}

/// Compiles the ML Program at `path` into a module at the kernel level and the interface its
/// header describes (with a classifier's class labels). Of `options`' import settings, `dims`
/// (`--dim NAME=N` or `MIN..MAX`) fixes or bounds the program's flexible dims (`INPUT_dimK`).
pub fn compile(path: &Path, options: &OnnxOptions) -> Result<(xcc_ir::Module, ModelInterface), String> {
    let package = package::open(path)?;
    if package.model_bytes.is_empty() {
        return Err("the model file is empty, not a Core ML model".into());
    }
    let model = proto::Model::decode(package.model_bytes.as_slice())
        .map_err(|e| format!("not a valid Core ML model: protobuf decoding failed ({e})"))?;
    let Some(program) = model.ml_program.as_ref() else {
        return Err(match model.other_kind() {
            Some(kind) => {
                format!("the model is {kind}; xcc compiles ML Programs (convert with convert_to=\"mlprogram\")")
            }
            None => "the model holds no ML Program".into(),
        });
    };
    let blobs = blob::BlobFiles::new(&package.root, &package.model_dir);
    let imported = import::import(program, model.description.as_ref(), &blobs, &options.dims)?;
    let (module, mut iface) = xcc_frontend_onnx::compile_graph(imported.graph, options).map_err(|e| e.to_string())?;
    iface.class_labels = imported.class_labels;
    Ok((module, iface))
}
