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

/// What `xcc inspect` reports of an ML Program: the specification version and producer, the
/// program's opset, every MIL operator with its count and whether xcc converts it, the
/// parameters (the `const` values' elements and bytes, as declared), and the interface and
/// multiply-accumulates after import and inference.
pub fn summarize(path: &Path, options: &OnnxOptions) -> Result<xcc_frontend_onnx::summary::Summary, String> {
    use xcc_frontend_onnx::summary::{graph_shapes, Format, Summary};
    let package = package::open(path)?;
    let model = proto::Model::decode(package.model_bytes.as_slice())
        .map_err(|e| format!("not a valid Core ML model: protobuf decoding failed ({e})"))?;
    let Some(program) = model.ml_program.as_ref() else {
        return Err(match model.other_kind() {
            Some(kind) => format!("the model is {kind}; xcc compiles ML Programs"),
            None => "the model holds no ML Program".into(),
        });
    };
    let user = model.description.as_ref().and_then(|d| d.metadata.as_ref()).map(|m| &m.user_defined);
    let producer = user
        .and_then(|u| u.get("com.github.apple.coremltools.version"))
        .map(|v| format!("coremltools {v}"))
        .unwrap_or_default();
    let main = program.functions.get("main");
    let opsets = main.map(|f| vec![(f.opset.clone(), program.version)]).unwrap_or_default();
    let block = main.and_then(|f| f.block_specializations.get(&f.opset));
    let operations = block.map_or(&[][..], |b| b.operations.as_slice());
    let mut counts = std::collections::BTreeMap::new();
    let mut parameters = (0, 0);
    count_operations(operations, &mut counts, &mut parameters);
    let blobs = blob::BlobFiles::new(&package.root, &package.model_dir);
    let shapes = import::import(program, model.description.as_ref(), &blobs, &options.dims)
        .map_err(xcc_frontend_onnx::OnnxError::msg)
        .and_then(|imported| graph_shapes(imported.graph));
    Ok(Summary {
        format: Format::CoreMl,
        version: model.specification_version as i64,
        producer,
        opsets,
        ops: counts.into_iter().map(|(op, n)| (op.clone(), n, ops::registry().contains_key(op.as_str()))).collect(),
        parameters,
        shapes,
    })
}

/// Counts the operators (nested blocks' too) and the `const` values' elements and bytes.
fn count_operations(
    operations: &[proto::Operation],
    counts: &mut std::collections::BTreeMap<String, usize>,
    parameters: &mut (u64, u64),
) {
    for op in operations {
        *counts.entry(op.r#type.clone()).or_default() += 1;
        if op.r#type == "const" {
            let declared = op.attributes.get("val").and_then(|v| import::tensor_type(v.r#type.as_ref()));
            if let Some(t) = declared {
                let elements: u64 = value::declared_shape(t).iter().map(|&d| d as u64).product();
                parameters.0 += elements;
                parameters.1 += elements * value::stored_bits(t.data_type).unwrap_or(0) as u64 / 8;
            }
        }
        for block in &op.blocks {
            count_operations(&block.operations, counts, parameters);
        }
    }
}
