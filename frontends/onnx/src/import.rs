//! ONNX protobuf -> [`Graph`]: checks versions, decodes initializers in every storage form
//! (typed fields, `raw_data`, external data kept inside the model's directory), binds symbolic
//! dims from `--shape`, and converts attributes.

use super::graph::*;
use super::proto;
use crate::dim::DimSize;
use prost::Message;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub const MIN_IR_VERSION: i64 = 3;
pub const MAX_IR_VERSION: i64 = 14;
pub const MIN_OPSET: i64 = 7;
pub const MAX_OPSET: i64 = 28;

pub struct ImportOptions<'a> {
    /// The model file, for resolving external data.
    pub path: &'a Path,
    /// `--shape NAME=1x3x224x224`: shapes for inputs with symbolic dims (a place may be a range,
    /// `1x1..2048`, which keeps that dim symbolic).
    pub shapes: &'a HashMap<String, Vec<DimSize>>,
    /// `--bind NAME=...`: inputs frozen to constants (shape parameters given as runtime inputs).
    pub binds: &'a HashMap<String, Binding>,
    /// `--dim NAME=N` or `NAME=MIN..MAX`: values or bounds of the model's symbolic dims
    /// (`dim_param`s) by name.
    pub dims: &'a HashMap<String, DimSize>,
}

/// A value for an input that becomes a compile-time constant.
#[derive(Clone, Debug)]
pub enum Binding {
    /// Values in row-major order, converted to the input's element type; the input's declared
    /// shape is kept (a single value for a scalar or a 1-D tensor of that length otherwise).
    Values(Vec<f64>),
    /// A serialized `TensorProto` file.
    TensorFile(std::path::PathBuf),
}

pub fn import(bytes: &[u8], options: &ImportOptions) -> OResult<Graph> {
    if bytes.is_empty() {
        return err("the file is empty, not an ONNX model");
    }
    let model = proto::ModelProto::decode(bytes)
        .map_err(|e| OnnxError::msg(format!("not a valid ONNX model: protobuf decoding failed ({e})")))?;
    let ir = model.ir_version.unwrap_or(0);
    if !(MIN_IR_VERSION..=MAX_IR_VERSION).contains(&ir) {
        return err(format!(
            "unsupported ONNX IR version {ir} (xcc reads IR versions {MIN_IR_VERSION} to {MAX_IR_VERSION})"
        ));
    }
    let mut opset = None;
    let mut domain_versions: HashMap<String, i64> = HashMap::new();
    for o in &model.opset_import {
        let domain = o.domain.clone().unwrap_or_default();
        if domain.is_empty() || domain == "ai.onnx" {
            opset = o.version;
        } else {
            domain_versions.insert(domain, o.version.unwrap_or(1));
        }
    }
    let registry = crate::ops::registry();
    let opset = match opset {
        Some(v) if (MIN_OPSET..=MAX_OPSET).contains(&v) => v,
        Some(v) if (1..MIN_OPSET).contains(&v) && model.graph.as_ref().is_some_and(unchanged_since_opset_1) => v,
        Some(v) => {
            return err(format!(
                "unsupported default-domain opset {v} (xcc supports opsets {MIN_OPSET} to {MAX_OPSET}, and \
                 older ones for models of operators unchanged since opset 1: {})",
                UNCHANGED_SINCE_OPSET_1.join(", ")
            ))
        }
        None if model.opset_import.is_empty() && ir < 3 => return err("the model imports no opset"),
        // A model of another domain's operators alone (an optimizer step, a tree ensemble).
        None if !domain_versions.is_empty() && domain_versions.keys().all(|d| registry.has_domain(d)) => {
            NO_DEFAULT_DOMAIN
        }
        None => {
            let domains: Vec<String> =
                model.opset_import.iter().map(|o| o.domain.clone().unwrap_or_default()).collect();
            return err(format!(
                "the model imports only domains xcc does not support ({}); it needs the default ONNX domain",
                domains.join(", ")
            ));
        }
    };
    let Some(g) = model.graph.as_ref() else { return err("the model has no graph") };
    // `model.onnx`'s parent is the empty path, which names no directory.
    let base = options.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));

    let mut graph = Graph { name: g.name.clone().unwrap_or_default(), ..Default::default() };
    for t in &g.initializer {
        let name = t.name.clone().unwrap_or_default();
        let tensor = decode_tensor(t, base).map_err(|e| e.for_tensor(&name))?;
        graph.types.insert(name.clone(), tensor.ty.clone());
        graph.consts.insert(name, tensor);
    }
    let mut runtime_inputs = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for vi in &g.input {
        let name = vi.name.clone().unwrap_or_default();
        // ONNX Runtime refuses the model too: the second would be silently unused.
        if !seen.insert(name.clone()) {
            return Err(OnnxError::tensor(&name, "the graph has two inputs of this name"));
        }
        if graph.consts.contains_key(&name) {
            continue;
        }
        if let Some(binding) = options.binds.get(&name) {
            let t =
                bind_input(vi, binding, base).map_err(|e| OnnxError::msg(format!("--bind {name}: {}", e.message)))?;
            graph.types.insert(name.clone(), t.ty.clone());
            graph.consts.insert(name, t);
            continue;
        }
        runtime_inputs.push(vi);
    }
    for (flag, names) in
        [("--bind", options.binds.keys().collect::<Vec<_>>()), ("--shape", options.shapes.keys().collect())]
    {
        for name in names {
            if !g.input.iter().any(|vi| vi.name.as_deref() == Some(name.as_str())) {
                return err(format!("{flag} {name}: the model has no input named '{name}'"));
            }
        }
    }
    let names = DimNames::of(&runtime_inputs);
    graph.symbol_sources = names.renamed();
    let symbols = dim_symbols(&runtime_inputs, options, &names)?;
    for (s, (size, _)) in &symbols {
        if let DimSize::Range { min, max } = *size {
            graph.bounds.insert(s.clone(), (min, max));
        }
    }
    let plain = plain_dim_params(&runtime_inputs);
    for vi in runtime_inputs {
        let name = vi.name.clone().unwrap_or_default();
        let ty = value_type(vi, options.shapes, &symbols, &plain, &names)?;
        for d in ty.symbolic.iter().flatten() {
            for sym in d.symbols() {
                if !graph.symbols.iter().any(|s| s == sym) {
                    graph.symbols.push(sym.to_string());
                }
            }
        }
        graph.types.insert(name.clone(), ty);
        if tensor_type(vi).is_some_and(|(_, optional)| optional) {
            graph.optional_inputs.insert(name.clone());
        }
        graph.inputs.push(name);
    }
    // An output listed twice is one output (one pointer in the header, written once).
    for vi in &g.output {
        let name = vi.name.clone().unwrap_or_default();
        if !graph.outputs.contains(&name) {
            graph.outputs.push(name);
        }
    }
    let versions = Versions { opset, domains: domain_versions };
    graph.nodes = g.node.iter().map(|n| import_node(n, base, &versions)).collect::<OResult<_>>()?;
    Ok(graph)
}

/// The default opset of a model that imports only other domains: a default-domain node in it
/// is an error.
const NO_DEFAULT_DOMAIN: i64 = 0;

/// Operators whose meaning has not changed from opset 1 to opset 7 (only their type lists
/// grew): a model of these alone is read at its older opset. The others changed before opset 7
/// (broadcasting, `consumed_inputs`, `is_test`), which xcc does not read.
const UNCHANGED_SINCE_OPSET_1: &[&str] = &["Identity", "Not", "Transpose"];

/// Whether every node of `g` (and of its bodies) is one of [`UNCHANGED_SINCE_OPSET_1`].
fn unchanged_since_opset_1(g: &proto::GraphProto) -> bool {
    g.node.iter().all(|n| {
        let op = n.op_type.as_deref().unwrap_or_default();
        UNCHANGED_SINCE_OPSET_1.contains(&op) && n.attribute.iter().all(|a| a.g.is_none() && a.graphs.is_empty())
    })
}

/// The version each domain imports: the default opset and the others.
struct Versions {
    opset: i64,
    domains: HashMap<String, i64>,
}

fn import_node(n: &proto::NodeProto, base: &Path, versions: &Versions) -> OResult<Node> {
    let mut attrs = BTreeMap::new();
    let node_name = n.name.clone().unwrap_or_default();
    for a in &n.attribute {
        let aname = a.name.clone().unwrap_or_default();
        let value = convert_attr(a, base, versions)
            .map_err(|e| OnnxError::msg(format!("attribute '{aname}' of node '{node_name}': {}", e.message)))?;
        if let Some(v) = value {
            attrs.insert(aname, v);
        }
    }
    let domain = n.domain.clone().unwrap_or_default();
    if matches!(domain.as_str(), "" | "ai.onnx") && versions.opset == NO_DEFAULT_DOMAIN {
        let op = n.op_type.as_deref().unwrap_or_default();
        return err(format!(
            "node '{node_name}' ({op}) is in the default ONNX domain, which the model does not import"
        ));
    }
    Ok(Node {
        name: node_name,
        op: n.op_type.clone().unwrap_or_default(),
        // A node binds to its own domain's import (a contrib operator's version is not the
        // default domain's opset).
        opset: match domain.as_str() {
            "" | "ai.onnx" => versions.opset,
            d => versions.domains.get(d).copied().unwrap_or(1),
        },
        domain: if domain == "ai.onnx" { String::new() } else { domain },
        inputs: n.input.clone(),
        outputs: n.output.clone(),
        attrs,
        guard: None,
    })
}

/// A graph attribute's body, its nodes bound to the model's imports.
fn import_subgraph(g: &proto::GraphProto, base: &Path, versions: &Versions) -> OResult<Subgraph> {
    let names = |v: &[proto::ValueInfoProto]| v.iter().map(|vi| vi.name.clone().unwrap_or_default()).collect();
    let consts = g
        .initializer
        .iter()
        .map(|t| {
            let name = t.name.clone().unwrap_or_default();
            Ok((name.clone(), decode_tensor(t, base).map_err(|e| e.for_tensor(&name))?))
        })
        .collect::<OResult<_>>()?;
    Ok(Subgraph {
        inputs: names(&g.input),
        outputs: names(&g.output),
        nodes: g.node.iter().map(|n| import_node(n, base, versions)).collect::<OResult<_>>()?,
        consts,
    })
}

fn bind_input(vi: &proto::ValueInfoProto, binding: &Binding, base: &Path) -> OResult<Tensor> {
    match binding {
        Binding::TensorFile(path) => {
            let bytes =
                std::fs::read(path).map_err(|e| OnnxError::msg(format!("cannot read {}: {e}", path.display())))?;
            let t = proto::TensorProto::decode(bytes.as_slice())
                .map_err(|e| OnnxError::msg(format!("{} is not a TensorProto: {e}", path.display())))?;
            decode_tensor(&t, base)
        }
        Binding::Values(values) => {
            let code = match vi.r#type.as_ref().and_then(|t| t.value.as_ref()) {
                Some(proto::type_proto::Value::TensorType(t)) => t.elem_type.unwrap_or(0),
                _ => 0,
            };
            let dtype = DType::from_onnx(code)
                .ok_or_else(|| OnnxError::msg(format!("element type {} is not supported", DType::onnx_name(code))))?;
            let declared: Option<Vec<usize>> = match vi.r#type.as_ref().and_then(|t| t.value.as_ref()) {
                Some(proto::type_proto::Value::TensorType(t)) => t.shape.as_ref().map(|s| {
                    s.dim
                        .iter()
                        .map(|d| match d.value {
                            Some(proto::tensor_shape_proto::dimension::Value::DimValue(v)) => v.max(0) as usize,
                            _ => usize::MAX,
                        })
                        .collect()
                }),
                _ => None,
            };
            let shape = match declared {
                Some(s) if s.iter().all(|&d| d != usize::MAX) && s.iter().product::<usize>() == values.len() => s,
                _ if values.len() == 1 => Vec::new(),
                _ => vec![values.len()],
            };
            Ok(Tensor::from_f64(dtype, shape, values))
        }
    }
}

/// The shape an input declares, if it declares one.
fn declared_shape(vi: &proto::ValueInfoProto) -> Option<&proto::TensorShapeProto> {
    tensor_type(vi).and_then(|(t, _)| t.shape.as_ref())
}

/// The tensor type of a value, and whether it is an optional one (an optional input may be
/// absent at run time: a NULL pointer).
pub fn tensor_type(vi: &proto::ValueInfoProto) -> Option<(&proto::type_proto::Tensor, bool)> {
    use proto::type_proto::Value;
    match vi.r#type.as_ref().and_then(|t| t.value.as_ref())? {
        Value::TensorType(t) => Some((t, false)),
        Value::OptionalType(o) => match o.elem_type.as_deref().and_then(|t| t.value.as_ref())? {
            Value::TensorType(t) => Some((t, true)),
            _ => None,
        },
        _ => None,
    }
}

/// The declared dims of an input (none when it declares no shape).
fn declared_dims(vi: &proto::ValueInfoProto) -> &[proto::tensor_shape_proto::Dimension] {
    declared_shape(vi).map(|s| s.dim.as_slice()).unwrap_or(&[])
}

/// The size or range of each symbolic dim that a flag gives, by symbol ([`dim_symbol`]), and
/// the flag (for messages).
type SymbolValues = HashMap<String, (DimSize, String)>;

/// The C symbol of each dim the inputs leave open: distinct `dim_param`s get distinct symbols
/// (`a-b` and `a_b` would both be `a_b`, and one dim where the model has two: the one met later
/// becomes `a_b_2`), as does each unnamed dim (`x_dim0`). The plain names (`seq`, which
/// expressions like `past + seq` use) are given theirs first, then the others in the inputs'
/// order, so that the symbols are the same on every compile.
#[derive(Default)]
struct DimNames {
    symbols: HashMap<String, String>,
    taken: std::collections::HashSet<String>,
}

impl DimNames {
    fn of(inputs: &[&proto::ValueInfoProto]) -> DimNames {
        use proto::tensor_shape_proto::dimension::Value;
        let mut names = DimNames::default();
        for p in plain_dim_params_in_order(inputs) {
            names.assign(p.clone(), crate::c_identifier(&p));
        }
        for vi in inputs {
            let input = vi.name.clone().unwrap_or_default();
            for (i, d) in declared_dims(vi).iter().enumerate() {
                match &d.value {
                    Some(Value::DimValue(v)) if *v >= 0 => {}
                    Some(Value::DimParam(p)) => names.assign(p.clone(), crate::c_identifier(p)),
                    _ => names.assign(unnamed_key(&input, i), format!("{}_dim{i}", crate::c_identifier(&input))),
                }
            }
        }
        names
    }

    /// Gives `key` the symbol `base`, or `base_2`, `base_3`, ... where another key has it.
    fn assign(&mut self, key: String, base: String) {
        if self.symbols.contains_key(&key) {
            return;
        }
        let candidates = (1..).map(|n| if n == 1 { base.clone() } else { format!("{base}_{n}") });
        let symbol = candidates.into_iter().find(|s| !self.taken.contains(s)).expect("a free symbol");
        self.taken.insert(symbol.clone());
        self.symbols.insert(key, symbol);
    }

    /// The `dim_param` of each symbol that is not its C name.
    fn renamed(&self) -> HashMap<String, String> {
        let params = self.symbols.iter().filter(|(param, _)| !param.starts_with('\0'));
        params
            .filter(|(param, symbol)| param != symbol)
            .map(|(param, symbol)| (symbol.clone(), param.clone()))
            .collect()
    }

    /// The symbol of a `dim_param` (or of a name `--dim` gives, which may be none of them).
    fn symbol(&self, param: &str) -> String {
        self.symbols.get(param).cloned().unwrap_or_else(|| crate::c_identifier(param))
    }

    /// The symbol of unnamed dim `i` of `input` (one `--shape` gives may be undeclared).
    fn unnamed(&self, input: &str, i: usize) -> String {
        let key = unnamed_key(input, i);
        self.symbols.get(&key).cloned().unwrap_or_else(|| format!("{}_dim{i}", crate::c_identifier(input)))
    }
}

/// The key of an unnamed dim in [`DimNames`], which no `dim_param` can be.
fn unnamed_key(input: &str, i: usize) -> String {
    format!("\0{input}\0{i}")
}

/// The symbol of dim `i` of input `name`: its `dim_param`'s, or for an unnamed unknown dim, one of
/// its own (`None` for a fixed dim).
fn dim_symbol(
    name: &str,
    i: usize,
    d: Option<&proto::tensor_shape_proto::Dimension>,
    names: &DimNames,
) -> Option<String> {
    use proto::tensor_shape_proto::dimension::Value;
    match d.and_then(|d| d.value.as_ref()) {
        Some(Value::DimValue(v)) if *v >= 0 => None,
        Some(Value::DimParam(p)) => Some(names.symbol(p)),
        _ => Some(names.unnamed(name, i)),
    }
}

/// The values (or ranges) of the model's symbolic dims: `--dim NAME=N`, and every `--shape` of
/// an input that uses the symbol. A name is one size everywhere: two sources that disagree are
/// an error, and an input whose dims are all known this way needs no `--shape` of its own.
fn dim_symbols(inputs: &[&proto::ValueInfoProto], options: &ImportOptions, names: &DimNames) -> OResult<SymbolValues> {
    use proto::tensor_shape_proto::dimension::Value;
    let mut values: SymbolValues =
        options.dims.iter().map(|(k, &v)| (names.symbol(k), (v, format!("--dim {k}={v}")))).collect();
    let mut used = std::collections::BTreeSet::new();
    for vi in inputs {
        let name = vi.name.clone().unwrap_or_default();
        for d in declared_dims(vi) {
            if let Some(Value::DimParam(p)) = &d.value {
                used.insert(p.clone());
            }
        }
        let Some(given) = options.shapes.get(&name) else { continue };
        check_shape_override(&name, declared_shape(vi), given)?;
        let declared = declared_dims(vi);
        for (i, &v) in given.iter().enumerate() {
            let Some(p) = dim_symbol(&name, i, declared.get(i), names) else { continue };
            let source = format!("--shape {name}={}", dims_text(given));
            match values.get(&p) {
                Some((w, from)) if *w != v => {
                    return Err(OnnxError::tensor(
                        &name,
                        format!("{source} makes dimension {i} ('{p}') {v}, but {from} makes '{p}' {w}"),
                    ))
                }
                Some(_) => {}
                None => {
                    values.insert(p.clone(), (v, source));
                }
            }
        }
    }
    for k in options.dims.keys() {
        if !used.contains(k) {
            let known: Vec<&str> = used.iter().map(String::as_str).collect();
            let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
            return err(format!(
                "--dim {k}: the model's inputs have no symbolic dimension named '{k}' (they have: {known})"
            ));
        }
    }
    Ok(values)
}

fn dims_text(dims: &[DimSize]) -> String {
    dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x")
}

/// The `dim_param`s of the inputs that are plain names (`sequence`, not `sequence + past`).
fn plain_dim_params(inputs: &[&proto::ValueInfoProto]) -> std::collections::BTreeSet<String> {
    plain_dim_params_in_order(inputs).into_iter().collect()
}

/// [`plain_dim_params`] in the order the inputs declare them, each once.
fn plain_dim_params_in_order(inputs: &[&proto::ValueInfoProto]) -> Vec<String> {
    use proto::tensor_shape_proto::dimension::Value;
    let plain = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_');
    let mut out: Vec<String> = Vec::new();
    for d in inputs.iter().flat_map(|vi| declared_dims(vi)) {
        if let Some(Value::DimParam(p)) = &d.value {
            if plain(p) && !out.contains(p) {
                out.push(p.clone());
            }
        }
    }
    out
}

/// The dim a `dim_param` stands for when it is an expression of plain ones
/// ([`crate::dim_param`]), each fixed where a flag gives its size.
fn dim_expression(
    param: &str,
    plain: &std::collections::BTreeSet<String>,
    symbols: &SymbolValues,
    names: &DimNames,
) -> Option<Dim> {
    crate::dim_param::parse(param, &|name| {
        let s = names.symbol(name);
        match symbols.get(&s) {
            _ if !plain.contains(name) => None,
            Some(&(DimSize::Fixed(v), _)) => Some(Dim::fixed(v)),
            _ => Some(Dim::symbol(&s)),
        }
    })
}

fn value_type(
    vi: &proto::ValueInfoProto,
    shapes: &HashMap<String, Vec<DimSize>>,
    symbols: &SymbolValues,
    plain: &std::collections::BTreeSet<String>,
    names: &DimNames,
) -> OResult<TensorType> {
    let name = vi.name.clone().unwrap_or_default();
    let Some((tensor, _)) = tensor_type(vi) else {
        return Err(OnnxError::tensor(
            &name,
            "the input is not a tensor (sequences, maps and optionals of them are not supported)",
        ));
    };
    let code = tensor.elem_type.unwrap_or(0);
    let dtype = DType::from_onnx(code).ok_or_else(|| {
        OnnxError::tensor(
            &name,
            format!("the input has element type {} ({code}), which xcc does not support", DType::onnx_name(code)),
        )
    })?;
    // A given shape was checked against the declaration by dim_symbols.
    let given = shapes.get(&name);
    if tensor.shape.is_none() && given.is_none() {
        return Err(OnnxError::tensor(&name, format!("the input has no shape: give it with --shape {name}=D0xD1x...")));
    }
    let declared = declared_dims(vi);
    let mut dims = Vec::new();
    for i in 0..given.map_or(declared.len(), Vec::len) {
        use proto::tensor_shape_proto::dimension::Value;
        let d = declared.get(i);
        dims.push(match (given.map(|g| g[i]), d.and_then(|d| d.value.as_ref())) {
            (Some(DimSize::Fixed(v)), _) => Dim::fixed(v),
            (_, Some(Value::DimValue(v))) if *v >= 0 => Dim::fixed(*v as usize),
            // Left to run time (within a range, when one is given): the run functions take the
            // symbol's value.
            (_, Some(Value::DimParam(p))) if let Some(e) = dim_expression(p, plain, symbols, names) => e,
            _ => {
                let s = dim_symbol(&name, i, d, names).expect("not a fixed dim");
                match symbols.get(&s) {
                    Some(&(DimSize::Fixed(v), _)) => Dim::fixed(v),
                    _ => Dim::symbol(&s),
                }
            }
        });
    }
    let ty = TensorType::with_dims(dtype, dims);
    checked_fixed_bytes(&name, &ty)?;
    Ok(ty)
}

/// `--shape` may give the dims the model leaves open (symbolic or unknown), not change the ones
/// it fixes, nor the rank it declares (ONNX Runtime rejects such inputs too).
fn check_shape_override(name: &str, declared: Option<&proto::TensorShapeProto>, given: &[DimSize]) -> OResult<()> {
    use proto::tensor_shape_proto::dimension::Value;
    let Some(declared) = declared else { return Ok(()) };
    if declared.dim.len() != given.len() {
        return Err(OnnxError::tensor(
            name,
            format!(
                "--shape {name}={} has rank {}, but the model declares the input with rank {}",
                dims_text(given),
                given.len(),
                declared.dim.len()
            ),
        ));
    }
    for (i, (d, &g)) in declared.dim.iter().zip(given).enumerate() {
        if let Some(Value::DimValue(v)) = d.value {
            if v >= 0 && DimSize::Fixed(v as usize) != g {
                return Err(OnnxError::tensor(
                    name,
                    format!("--shape {name}={}: dimension {i} is fixed to {v} by the model, not {g}", dims_text(given)),
                ));
            }
        }
    }
    Ok(())
}

/// [`checked_bytes`] of the dims known at compile time (all of them for a static type): the
/// arithmetic on a type's dims then stays within 64 bits whatever the run-time dims are.
pub fn checked_fixed_bytes(name: &str, t: &TensorType) -> OResult<usize> {
    let fixed: Vec<usize> = t.dims().iter().filter_map(Dim::as_fixed).collect();
    checked_bytes(name, t.dtype, &fixed)
}

/// The most bytes of one tensor (256 TiB): far past any model, and far enough from 2^63 that
/// the arithmetic on dims (products of a tensor's dims, their sums in a Concat, coefficients of
/// run-time dims) cannot overflow.
pub const MAX_TENSOR_BYTES: usize = 1 << 48;

/// A tensor's size in bytes, or an error naming it where it passes [`MAX_TENSOR_BYTES`].
/// A tensor of a sub-byte type: ONNX packs `8 / bits` elements per byte, the first in the low
/// bits (in raw_data, external data, or int32_data's bytes); xcc keeps one per byte.
fn unpacked(t: &proto::TensorProto, base: &Path, dtype: DType, shape: Vec<usize>, bits: usize) -> OResult<Tensor> {
    let numel: usize = shape.iter().product();
    let packed_len = (numel * bits).div_ceil(8);
    let packed: Vec<u8> = if t.data_location == Some(1) {
        read_external(t, base, packed_len)?
    } else if let Some(raw) = t.raw_data.as_ref().filter(|r| !r.is_empty() || packed_len == 0) {
        raw.clone()
    } else {
        t.int32_data.iter().map(|&v| v as u8).collect()
    };
    if packed.len() != packed_len {
        return err(format!(
            "holds {} bytes of data, but {numel} {} elements packed take {packed_len}",
            packed.len(),
            dtype.name()
        ));
    }
    let per_byte = 8 / bits;
    let data = (0..numel)
        .map(|i| {
            let code = (packed[i / per_byte] >> ((i % per_byte) * bits)) & ((1 << bits) - 1);
            match dtype {
                DType::F4E2M1 => code,
                _ => wrap_to_width(f64::from(code), dtype),
            }
        })
        .collect();
    Ok(Tensor { ty: TensorType::new(dtype, shape), data })
}

pub fn checked_bytes(name: &str, dtype: DType, shape: &[usize]) -> OResult<usize> {
    // A zero dim makes the tensor empty but not the other dims' products small: the bound
    // counts it as 1.
    let mut bound: usize = dtype.size();
    for &d in shape {
        bound = bound.checked_mul(d.max(1)).filter(|&n| n <= MAX_TENSOR_BYTES).ok_or_else(|| {
            OnnxError::tensor(
                name,
                format!("dims {shape:?} are too large: more than {MAX_TENSOR_BYTES} bytes (256 TiB), xcc's limit"),
            )
        })?;
    }
    Ok(if shape.contains(&0) { 0 } else { bound })
}

pub fn decode_tensor(t: &proto::TensorProto, base: &Path) -> OResult<Tensor> {
    let code = t.data_type.unwrap_or(0);
    let dtype = DType::from_onnx(code)
        .ok_or_else(|| OnnxError::msg(format!("element type {} ({code}) is not supported", DType::onnx_name(code))))?;
    let mut shape = Vec::new();
    for &d in &t.dims {
        if d < 0 {
            return err(format!("negative dimension {d}"));
        }
        shape.push(d as usize);
    }
    let name = t.name.clone().unwrap_or_default();
    let bytes = checked_bytes(&name, dtype, &shape)?;
    let numel: usize = shape.iter().product();
    if let Some(bits) = dtype.packed_bits() {
        return unpacked(t, base, dtype, shape, bits);
    }
    let data: Vec<u8> = if t.data_location == Some(1) {
        read_external(t, base, bytes)?
    } else if let Some(raw) = t.raw_data.as_ref().filter(|r| !r.is_empty() || bytes == 0) {
        raw.clone()
    } else {
        match dtype {
            DType::F32 => t.float_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DType::F64 => t.double_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DType::I64 => t.int64_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DType::I32 => t.int32_data.iter().flat_map(|v| v.to_le_bytes()).collect(),
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
                t.int32_data.iter().flat_map(|&v| (v as u16).to_le_bytes()).collect()
            }
            DType::U32 => t.uint64_data.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect(),
            DType::U64 => t.uint64_data.iter().flat_map(|&v| v.to_le_bytes()).collect(),
            DType::I8 | DType::U8 | DType::Bool => t.int32_data.iter().map(|&v| v as u8).collect(),
            DType::F8E4M3FN | DType::F8E4M3FNUZ | DType::F8E5M2 | DType::F8E5M2FNUZ | DType::F8E8M0 => {
                t.int32_data.iter().map(|&v| v as u8).collect()
            }
            DType::U4 | DType::I4 | DType::U2 | DType::I2 | DType::F4E2M1 => unreachable!("unpacked above"),
            DType::Str => crate::strings::table_of(&t.string_data),
        }
    };
    if data.len() != bytes {
        return err(format!(
            "holds {} bytes of data, but its type {}{:?} needs {bytes}",
            data.len(),
            dtype.name(),
            shape
        ));
    }
    let _ = numel;
    Ok(Tensor { ty: TensorType::new(dtype, shape), data })
}

/// External data: `location` relative to the model's directory and inside it (no absolute
/// path, no `..`, no symlink leading out), `offset`/`length` within the file.
fn read_external(t: &proto::TensorProto, base: &Path, bytes: usize) -> OResult<Vec<u8>> {
    let mut location = None;
    let mut offset = 0u64;
    let mut length = None;
    for e in &t.external_data {
        let v = e.value.clone().unwrap_or_default();
        match e.key.as_deref().unwrap_or("") {
            "location" => location = Some(v),
            "offset" => {
                offset = v.parse().map_err(|_| OnnxError::msg(format!("external data offset '{v}' is not a number")))?
            }
            "length" => {
                length = Some(
                    v.parse::<u64>()
                        .map_err(|_| OnnxError::msg(format!("external data length '{v}' is not a number")))?,
                )
            }
            _ => {}
        }
    }
    let Some(location) = location else { return err("external data without a 'location'") };
    let rel = Path::new(&location);
    if rel.is_absolute()
        || rel.components().any(|c| matches!(c, std::path::Component::ParentDir | std::path::Component::Prefix(_)))
    {
        return err(format!("external data location '{location}' escapes the model's directory"));
    }
    let dir = base.canonicalize().map_err(|e| OnnxError::msg(format!("cannot resolve the model's directory: {e}")))?;
    let full = dir.join(rel);
    let real =
        full.canonicalize().map_err(|e| OnnxError::msg(format!("cannot open external data '{location}': {e}")))?;
    if !real.starts_with(&dir) {
        return err(format!(
            "external data location '{location}' escapes the model's directory (through a symbolic link)"
        ));
    }
    let file_len = std::fs::metadata(&real)
        .map_err(|e| OnnxError::msg(format!("cannot open external data '{location}': {e}")))?
        .len();
    let length = length.unwrap_or(bytes as u64);
    if offset.checked_add(length).is_none_or(|end| end > file_len) {
        return err(format!("external data '{location}': offset {offset} + length {length} is past the end of the file ({file_len} bytes)"));
    }
    if length != bytes as u64 {
        return err(format!("external data '{location}' has length {length}, but the tensor needs {bytes} bytes"));
    }
    // Only the tensor's bytes: models keep every tensor in one file, which read whole per tensor
    // made the import quadratic (208 MB read 230 times for a 155M-parameter int4 Llama).
    let read = || -> std::io::Result<Vec<u8>> {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = std::fs::File::open(&real)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut data = vec![0; bytes];
        file.read_exact(&mut data)?;
        Ok(data)
    };
    read().map_err(|e| OnnxError::msg(format!("cannot read external data '{location}': {e}")))
}

fn convert_attr(a: &proto::AttributeProto, base: &Path, versions: &Versions) -> OResult<Option<Attr>> {
    // AttributeType: FLOAT=1 INT=2 STRING=3 TENSOR=4 GRAPH=5 FLOATS=6 INTS=7 STRINGS=8.
    let s = |b: &Vec<u8>| String::from_utf8_lossy(b).into_owned();
    Ok(Some(match a.r#type.unwrap_or(0) {
        1 => Attr::Float(a.f.unwrap_or(0.0)),
        2 => Attr::Int(a.i.unwrap_or(0)),
        3 => Attr::Str(a.s.as_ref().map(s).unwrap_or_default()),
        4 => Attr::Tensor(decode_tensor(
            a.t.as_ref().ok_or_else(|| OnnxError::msg("tensor attribute without a tensor"))?,
            base,
        )?),
        6 => Attr::Floats(a.floats.clone()),
        7 => Attr::Ints(a.ints.clone()),
        8 => Attr::Strs(a.strings.iter().map(s).collect()),
        5 => Attr::Graph(Box::new(import_subgraph(
            a.g.as_ref().ok_or_else(|| OnnxError::msg("graph attribute without a graph"))?,
            base,
            versions,
        )?)),
        10 => return err("attributes holding lists of graphs are not supported"),
        _ => return Ok(None),
    }))
}
