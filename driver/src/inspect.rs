//! `xcc inspect FILE`: what a model holds (its interface, operators, parameters and
//! multiply-accumulates) or an MLIR file's functions, and whether it compiles: the exit status is
//! 0 only when it does. `--json` prints the same for scripts.

use crate::pipeline;
use crate::{Cli, InspectCli, Language};
use clap::Parser;
use std::ffi::OsStr;
use std::fmt::Write;
use xcc_frontend_onnx::graph::TensorType;
use xcc_frontend_onnx::summary::Summary;

/// Prints the report; `Ok(true)` when the input compiles.
pub fn run(cli: &InspectCli) -> Result<bool, String> {
    let compile = compile_options(cli);
    let input = cli.input.display().to_string();
    if pipeline::is_coreml(&compile) {
        let compiled = pipeline::compile_for_inspection(&compile);
        let options = pipeline::onnx_options(&compile, "model")?;
        let summary =
            xcc_frontend_coreml::summarize(&cli.input, &options).map_err(|e| format!("xcc: error: {input}: {e}"))?;
        let report =
            if cli.json { model_json(&input, &summary, &compiled) } else { model_text(&input, &summary, &compiled) };
        print!("{report}");
        return Ok(compiled.is_ok());
    }
    let bytes = std::fs::read(&cli.input).map_err(|e| format!("xcc: error: cannot read {input}: {e}"))?;
    // Whether it compiles (through the llvm dialect), and the workspace a run of it needs.
    let compiled = pipeline::compile_for_inspection(&compile);
    let report = match pipeline::language(&compile, &bytes) {
        Language::Onnx => {
            let options = pipeline::onnx_options(&compile, "model")?;
            let summary = xcc_frontend_onnx::summary::summarize(&bytes, &cli.input, &options)
                .map_err(|e| format!("xcc: error: {input}: {e}"))?;
            if cli.json {
                model_json(&input, &summary, &compiled)
            } else {
                model_text(&input, &summary, &compiled)
            }
        }
        Language::Coreml => unreachable!("told apart above"),
        Language::Mlir => {
            let functions = pipeline::functions(&compile)?;
            if cli.json {
                functions_json(&input, &functions, &compiled)
            } else {
                functions_text(&input, &functions, &compiled)
            }
        }
    };
    print!("{report}");
    Ok(compiled.is_ok())
}

/// The compile options `inspect` checks the input with: a compile's defaults (the host target),
/// with the input's language, shapes, dims and bindings.
fn compile_options(cli: &InspectCli) -> Cli {
    let args = [OsStr::new("xcc"), OsStr::new("-o"), OsStr::new("inspect.a"), OsStr::new("--"), cli.input.as_os_str()];
    let mut compile = Cli::parse_from(args);
    compile.language = cli.language;
    compile.name = Some("model".into());
    compile.shapes = cli.shapes.clone();
    compile.dims = cli.dims.clone();
    compile.binds = cli.binds.clone();
    compile
}

fn type_text(t: &TensorType) -> String {
    let dims: Vec<String> = t.dims().iter().map(|d| d.to_string()).collect();
    format!("{} [{}]", t.dtype.name(), dims.join(", "))
}

fn model_text(input: &str, s: &Summary, compiled: &Result<Option<u64>, String>) -> String {
    let mut out = String::new();
    let opsets: Vec<String> = s.opsets.iter().map(|(d, v)| format!("{d} {v}")).collect();
    let from = if s.producer.is_empty() { String::new() } else { format!(" from {}", s.producer) };
    let _ = writeln!(out, "{input}: {} {}{from}, opsets {}", s.format.names().0, s.version, opsets.join(", "));
    match &s.shapes {
        Ok(shapes) => {
            for (title, list) in [("inputs", &shapes.inputs), ("outputs", &shapes.outputs)] {
                let _ = writeln!(out, "{title}:");
                for (name, t) in list {
                    let _ = writeln!(out, "  {name}: {}", type_text(t));
                }
            }
            if !shapes.symbols.is_empty() {
                let _ = writeln!(out, "dims known only at run time: {}", shapes.symbols.join(", "));
            }
            let _ = writeln!(out, "multiply-accumulates: {}", shapes.macs);
        }
        Err(e) => {
            let _ = writeln!(out, "shapes: not inferred: {e}");
        }
    }
    let _ = writeln!(out, "parameters: {} ({} bytes)", s.parameters.0, s.parameters.1);
    let nodes: usize = s.ops.iter().map(|o| o.1).sum();
    let _ = writeln!(out, "operators ({} kinds, {nodes} nodes; x: not supported):", s.ops.len());
    for (op, n, supported) in &s.ops {
        let _ = writeln!(out, "  {n:6}  {op}{}", if *supported { "" } else { "  x" });
    }
    compiled_text(&mut out, compiled);
    out
}

fn compiled_text(out: &mut String, compiled: &Result<Option<u64>, String>) {
    match compiled {
        Ok(Some(bytes)) => {
            let _ = writeln!(out, "workspace: {bytes} bytes\ncompiles: yes");
        }
        Ok(None) => {
            let _ = writeln!(out, "workspace: depends on the dims (NAME_workspace_size)\ncompiles: yes");
        }
        Err(e) => {
            let _ = writeln!(out, "compiles: no: {}", e.trim_start_matches("xcc: error: ").trim_end());
        }
    }
}

fn functions_text(input: &str, functions: &[(String, String)], compiled: &Result<Option<u64>, String>) -> String {
    let mut out = format!("{input}: MLIR, {} functions\n", functions.len());
    for (name, ty) in functions {
        let _ = writeln!(out, "  @{name}: {ty}");
    }
    match compiled {
        Ok(_) => out.push_str("compiles: yes\n"),
        Err(e) => {
            let _ = writeln!(out, "compiles: no: {}", e.trim_start_matches("xcc: error: ").trim_end());
        }
    }
    out
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A dim as JSON: a number, or its expression as a string.
fn json_dim(d: &xcc_frontend_onnx::dim::Dim) -> String {
    match d.as_const() {
        Some(n) => n.to_string(),
        None => json_string(&d.to_string()),
    }
}

fn json_tensors(list: &[(String, TensorType)]) -> String {
    let items: Vec<String> = list
        .iter()
        .map(|(name, t)| {
            let dims: Vec<String> = t.dims().iter().map(json_dim).collect();
            format!(
                "{{\"name\": {}, \"type\": {}, \"dims\": [{}]}}",
                json_string(name),
                json_string(t.dtype.name()),
                dims.join(", ")
            )
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn json_compiled(compiled: &Result<Option<u64>, String>) -> String {
    match compiled {
        Ok(bytes) => format!(
            "\"workspace_bytes\": {}, \"compiles\": true, \"error\": null",
            bytes.map_or("null".to_string(), |b| b.to_string())
        ),
        Err(e) => format!("\"workspace_bytes\": null, \"compiles\": false, \"error\": {}", json_string(e.trim_end())),
    }
}

fn model_json(input: &str, s: &Summary, compiled: &Result<Option<u64>, String>) -> String {
    let (_, format, version_key) = s.format.names();
    let opsets: Vec<String> = s.opsets.iter().map(|(d, v)| format!("{}: {v}", json_string(d))).collect();
    let ops: Vec<String> = s
        .ops
        .iter()
        .map(|(op, n, supported)| format!("{}: {{\"count\": {n}, \"supported\": {supported}}}", json_string(op)))
        .collect();
    let shapes = match &s.shapes {
        Ok(sh) => {
            let symbols: Vec<String> = sh.symbols.iter().map(|x| json_string(x)).collect();
            format!(
                "\"inputs\": {}, \"outputs\": {}, \"symbols\": [{}], \"macs\": {}, \"shape_error\": null",
                json_tensors(&sh.inputs),
                json_tensors(&sh.outputs),
                symbols.join(", "),
                json_dim(&sh.macs)
            )
        }
        Err(e) => format!(
            "\"inputs\": null, \"outputs\": null, \"symbols\": null, \"macs\": null, \"shape_error\": {}",
            json_string(&e.to_string())
        ),
    };
    format!(
        "{{\"file\": {}, \"format\": \"{format}\", \"{version_key}\": {}, \"producer\": {}, \"opsets\": {{{}}}, {shapes}, \
         \"parameters\": {}, \"parameter_bytes\": {}, \"ops\": {{{}}}, {}}}\n",
        json_string(input),
        s.version,
        json_string(&s.producer),
        opsets.join(", "),
        s.parameters.0,
        s.parameters.1,
        ops.join(", "),
        json_compiled(compiled)
    )
}

fn functions_json(input: &str, functions: &[(String, String)], compiled: &Result<Option<u64>, String>) -> String {
    let items: Vec<String> = functions
        .iter()
        .map(|(name, ty)| format!("{{\"name\": {}, \"type\": {}}}", json_string(name), json_string(ty)))
        .collect();
    format!(
        "{{\"file\": {}, \"format\": \"mlir\", \"functions\": [{}], {}}}\n",
        json_string(input),
        items.join(", "),
        json_compiled(compiled)
    )
}
