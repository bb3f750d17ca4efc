//! An ML Program's `main` function -> the graph of ONNX operators that the ONNX frontend
//! compiles ([`xcc_frontend_onnx::graph::Graph`]): each MIL operation becomes the ONNX nodes
//! that compute it ([`crate::ops`]), `const` operations and the `constexpr_*` decompressions
//! become constants, and the function's inputs and outputs keep their names and types.

use crate::blob::BlobFiles;
use crate::ops::{self, OpContext};
use crate::proto;
use crate::value::{self, Const};
use std::collections::{BTreeMap, HashMap};
use xcc_frontend_onnx::dim::DimSize;
use xcc_frontend_onnx::graph::{Attr, DType, Dim, Graph, Node, Tensor, TensorType};

/// The opset of the ONNX operators the importer writes.
pub const OPSET: i64 = 21;

/// The imported graph and what the header adds for it.
pub struct Imported {
    pub graph: Graph,
    /// A classifier's class labels (from its `classify` operation), in the order of the
    /// probabilities.
    pub class_labels: Vec<String>,
}

/// Imports the `main` function of `program`; `description` (the model's) gives the ranges of the
/// inputs' flexible dims.
pub fn import(
    program: &proto::Program,
    description: Option<&proto::ModelDescription>,
    blobs: &BlobFiles,
    fixed: &HashMap<String, DimSize>,
) -> Result<Imported, String> {
    let main = program.functions.get("main").ok_or_else(|| {
        let names: Vec<&str> = program.functions.keys().map(String::as_str).collect();
        format!("the program has no function 'main' (it has: {})", names.join(", "))
    })?;
    let block = main
        .block_specializations
        .get(&main.opset)
        .or_else(|| main.block_specializations.values().next())
        .ok_or("the function 'main' has no block")?;
    let mut im = Importer {
        graph: Graph::default(),
        consts: HashMap::new(),
        blobs,
        declared: HashMap::new(),
        names: HashMap::new(),
        used: Default::default(),
        declared_types: HashMap::new(),
        fixed_symbols: Vec::new(),
        fresh: 0,
        class_labels: Vec::new(),
    };
    im.graph.name = "main".into();
    let ranges = flexible_ranges(description);
    for input in &main.inputs {
        im.add_input(input, ranges.get(&input.name), fixed)?;
    }
    if let Some(unknown) = fixed.keys().find(|k| !im.graph.symbols.contains(k) && !im.fixed_symbols.contains(*k)) {
        return Err(format!("--dim {unknown}: the program has no flexible dim named '{unknown}'"));
    }
    check_supported(&block.operations)?;
    im.operations(&block.operations)?;
    for name in &block.outputs {
        im.add_output(name)?;
    }
    Ok(Imported { graph: im.graph, class_labels: im.class_labels })
}

pub struct Importer<'a> {
    pub graph: Graph,
    /// The values known at compile time, by graph name (`const` outputs, decompressed weights).
    pub consts: HashMap<String, Const>,
    pub blobs: &'a BlobFiles,
    /// The shapes the program declares for its values (an operation's output types).
    pub declared: HashMap<String, Vec<usize>>,
    /// The graph name each MIL name stands for now. MIL scopes let an operation's output reuse
    /// a name defined before it (coremltools names a reshape's output `input` in a function
    /// whose input is `input`); the graph's names are unique, so a reused name gets a new one.
    names: HashMap<String, String>,
    /// The graph names given so far.
    used: std::collections::HashSet<String>,
    /// The flexible dims `--dim` fixed.
    fixed_symbols: Vec<String>,
    /// The element type the program declares for each value (half floats as such).
    pub declared_types: HashMap<String, DType>,
    fresh: usize,
    pub class_labels: Vec<String>,
}

impl Importer<'_> {
    /// Imports a block's operations, in order (a control-flow operation imports its blocks'
    /// through this too); [`check_supported`] has seen them.
    pub fn operations(&mut self, operations: &[proto::Operation]) -> Result<(), String> {
        let registry = ops::registry();
        for op in operations {
            let outs: Vec<String> = op.outputs.iter().map(|o| self.unique_name(&o.name)).collect();
            for (out, name) in op.outputs.iter().zip(&outs) {
                let Some(t) = tensor_type(out.r#type.as_ref()) else { continue };
                self.declared.insert(name.clone(), value::declared_shape(t));
                if let Some(dtype) = interface_dtype(t.data_type) {
                    self.declared_types.insert(name.clone(), dtype);
                }
            }
            let convert = registry[op.r#type.as_str()];
            let mut cx = OpContext { op, im: self, outs: &outs };
            if !ops::fold::small_integers(&mut cx)? {
                convert(&mut cx).map_err(|e| format!("operation '{}' ({}): {e}", op_name(op), op.r#type))?;
            }
            // The outputs' names hold from the next operation on (an input of this one that
            // reuses an output's name read the earlier value).
            for (out, name) in op.outputs.iter().zip(outs) {
                self.names.insert(out.name.clone(), name);
            }
        }
        Ok(())
    }

    /// A graph name for a value the program names `mil`: the same, unless taken.
    fn unique_name(&mut self, mil: &str) -> String {
        let name = if self.used.contains(mil) { self.fresh(mil) } else { mil.to_string() };
        self.used.insert(name.clone());
        name
    }

    /// Makes `mil` stand for the graph value `name` (a block's inputs, bound to its operands).
    pub fn bind(&mut self, mil: &str, name: &str) {
        self.names.insert(mil.to_string(), name.to_string());
    }

    /// Whether an earlier operation (or a block's binding) defines the value the program calls
    /// `mil`.
    pub fn is_defined(&self, mil: &str) -> bool {
        self.names.contains_key(mil)
    }

    /// The graph name of the value the program calls `mil` at this point.
    pub fn resolve(&self, mil: &str) -> String {
        self.names.get(mil).cloned().unwrap_or_else(|| mil.to_string())
    }

    /// An input's dims: its sizes, and a dim symbol (`NAME_dimK`, in `ranges` when the model
    /// gives one) for each dim left to run time (coremltools' `RangeDim` and enumerated shapes),
    /// unless `fixed` (`--dim`) gives it a size or a range.
    fn input_dims(
        &mut self,
        input: &proto::NamedValueType,
        tt: &proto::TensorType,
        ranges: Option<&Vec<Option<(usize, usize)>>>,
        fixed: &HashMap<String, DimSize>,
    ) -> Result<Vec<Dim>, String> {
        let mut dims = Vec::new();
        for (k, d) in tt.dimensions.iter().enumerate() {
            match &d.dimension {
                Some(proto::dimension::Dimension::Constant(c)) => {
                    let size = i64::try_from(c.size).map_err(|_| format!("input '{}': a dim too large", input.name))?;
                    dims.push(Dim::constant(size));
                }
                _ => {
                    let symbol = format!("{}_dim{k}", xcc_frontend_onnx::c_identifier(&input.name));
                    match fixed.get(&symbol) {
                        Some(&DimSize::Fixed(n)) => {
                            self.fixed_symbols.push(symbol);
                            dims.push(Dim::constant(n as i64));
                            continue;
                        }
                        Some(&DimSize::Range { min, max }) => {
                            self.graph.bounds.insert(symbol.clone(), (min, max));
                        }
                        None => {
                            if let Some(&Some(range)) = ranges.and_then(|r| r.get(k)) {
                                self.graph.bounds.insert(symbol.clone(), range);
                            }
                        }
                    }
                    self.graph.symbols.push(symbol.clone());
                    dims.push(Dim::symbol(&symbol));
                }
            }
        }
        Ok(dims)
    }

    fn add_input(
        &mut self,
        input: &proto::NamedValueType,
        ranges: Option<&Vec<Option<(usize, usize)>>>,
        fixed: &HashMap<String, DimSize>,
    ) -> Result<(), String> {
        let what = format!("input '{}'", input.name);
        self.used.insert(input.name.clone());
        let tt = tensor_type(input.r#type.as_ref()).ok_or_else(|| format!("{what} is not a tensor"))?;
        let dims = self.input_dims(input, tt, ranges, fixed)?;
        let Some(interface) = interface_dtype(tt.data_type) else {
            return Err(format!(
                "{what} has element type {}, which xcc does not compile",
                value::mil_type_name(tt.data_type)
            ));
        };
        let compute = value::compute_dtype(tt.data_type).expect("interface types compute");
        self.graph.inputs.push(input.name.clone());
        if interface == compute {
            self.graph.types.insert(input.name.clone(), TensorType::with_dims(interface, dims));
            return Ok(());
        }
        // A half-float input: the C interface takes the declared type, the program computes in
        // float32 from a cast of it, which the program's name stands for.
        self.graph.types.insert(input.name.clone(), TensorType::with_dims(interface, dims));
        let computed = self.unique_name(&format!("{}_{}", input.name, compute.name()));
        let to = Attr::Int(compute.onnx_code() as i64);
        self.node("Cast", &input.name, vec![input.name.clone()], vec![computed.clone()], [("to", to)]);
        self.names.insert(input.name.clone(), computed);
        Ok(())
    }

    fn add_output(&mut self, mil: &str) -> Result<(), String> {
        let resolved = self.resolve(mil);
        let name = resolved.as_str();
        if let Some(c) = self.consts.get(name).cloned() {
            let t = c.tensor().ok_or_else(|| format!("output '{name}' is not a tensor"))?.clone();
            self.graph.types.insert(name.to_string(), t.ty.clone());
            self.graph.consts.insert(name.to_string(), t);
        }
        if self.graph.outputs.iter().any(|o| o == name) {
            return Ok(());
        }
        if let Some(&half @ (DType::F16 | DType::BF16)) = self.declared_types.get(name) {
            // Computed in float32, given to the caller as declared: the value takes a new name
            // and a cast of it the output's.
            let computed = self.fresh(name);
            for n in &mut self.graph.nodes {
                for v in n.inputs.iter_mut().chain(n.outputs.iter_mut()).filter(|v| *v == name) {
                    v.clone_from(&computed);
                }
            }
            let to = Attr::Int(half.onnx_code() as i64);
            self.node("Cast", name, vec![computed], vec![name.to_string()], [("to", to)]);
        }
        self.graph.outputs.push(name.to_string());
        Ok(())
    }

    /// A name no MIL value has: MIL identifiers have no `.`.
    pub fn fresh(&mut self, hint: &str) -> String {
        self.fresh += 1;
        format!("{hint}.{}", self.fresh)
    }

    /// Adds an ONNX node of the default domain.
    pub fn node<'k>(
        &mut self,
        op: &str,
        name: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        attrs: impl IntoIterator<Item = (&'k str, Attr)>,
    ) {
        let attrs = attrs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        let name = format!("{name}/{op}{}", self.graph.nodes.len());
        self.graph.nodes.push(Node {
            name,
            op: op.into(),
            domain: String::new(),
            inputs,
            outputs,
            attrs,
            opset: OPSET,
            guard: None,
        });
    }

    /// A constant tensor in the graph under a new name.
    pub fn constant(&mut self, hint: &str, t: Tensor) -> String {
        let name = self.fresh(hint);
        self.graph.types.insert(name.clone(), t.ty.clone());
        self.graph.consts.insert(name.clone(), t);
        name
    }

    /// The graph value of MIL value `name`: a constant is put in the graph the first time.
    pub fn value(&mut self, name: &str) -> Result<String, String> {
        if !self.graph.consts.contains_key(name) {
            if let Some(c) = self.consts.get(name) {
                let t = c.tensor().ok_or_else(|| format!("'{name}' is not a tensor"))?.clone();
                self.graph.types.insert(name.to_string(), t.ty.clone());
                self.graph.consts.insert(name.to_string(), t);
            }
        }
        Ok(name.to_string())
    }
}

/// The `(min, max)` of each dim of each input whose feature description allows other sizes: a
/// range per dim (an upper bound of -1 leaves it unbounded), or the extremes of enumerated shapes.
fn flexible_ranges(description: Option<&proto::ModelDescription>) -> HashMap<String, Vec<Option<(usize, usize)>>> {
    let mut ranges = HashMap::new();
    for feature in description.map_or(&[][..], |d| &d.input) {
        let Some(array) = feature.r#type.as_ref().and_then(|t| t.multi_array_type.as_ref()) else { continue };
        let per_dim: Vec<Option<(usize, usize)>> = if let Some(r) = &array.shape_range {
            r.size_ranges
                .iter()
                .map(|s| (s.upper_bound > 0).then(|| ((s.lower_bound as usize).max(1), s.upper_bound as usize)))
                .collect()
        } else if let Some(e) = array.enumerated_shapes.as_ref().filter(|e| !e.shapes.is_empty()) {
            (0..e.shapes[0].shape.len())
                .map(|k| {
                    let sizes = e.shapes.iter().filter_map(|s| s.shape.get(k)).map(|&d| d.max(1) as usize);
                    Some((sizes.clone().min()?, sizes.max()?))
                })
                .collect()
        } else {
            continue;
        };
        ranges.insert(feature.name.clone(), per_dim);
    }
    ranges
}

/// One error listing every operator (in nested blocks too) that no converter handles.
fn check_supported(operations: &[proto::Operation]) -> Result<(), String> {
    let mut unsupported: BTreeMap<&str, usize> = BTreeMap::new();
    count_unsupported(operations, ops::registry(), &mut unsupported);
    if unsupported.is_empty() {
        return Ok(());
    }
    let list: Vec<String> =
        unsupported.iter().map(|(op, n)| if *n > 1 { format!("{op} (x{n})") } else { op.to_string() }).collect();
    Err(format!(
        "unsupported MIL operator(s), {} operation(s) in all: {}",
        unsupported.values().sum::<usize>(),
        list.join(", ")
    ))
}

/// Counts the operations (in nested blocks too) that no converter handles.
fn count_unsupported<'p>(
    operations: &'p [proto::Operation],
    registry: &HashMap<&'static str, ops::Convert>,
    unsupported: &mut BTreeMap<&'p str, usize>,
) {
    for op in operations {
        if !registry.contains_key(op.r#type.as_str()) {
            *unsupported.entry(op.r#type.as_str()).or_default() += 1;
        }
        for block in &op.blocks {
            count_unsupported(&block.operations, registry, unsupported);
        }
    }
}

/// The tensor type of a value type, if it is one.
pub fn tensor_type(t: Option<&proto::ValueType>) -> Option<&proto::TensorType> {
    match t.and_then(|t| t.r#type.as_ref()) {
        Some(proto::value_type::Type::TensorType(tt)) => Some(tt),
        _ => None,
    }
}

/// The element type a model input or output has at the C interface: the declared one, half
/// floats included.
fn interface_dtype(code: i32) -> Option<DType> {
    match code {
        proto::data_type::FLOAT16 => Some(DType::F16),
        proto::data_type::BFLOAT16 => Some(DType::BF16),
        proto::data_type::INT4 | proto::data_type::UINT1 | proto::data_type::UINT2 => None,
        c => value::compute_dtype(c),
    }
}

/// An operation's name (its `name` attribute, else its first output's).
pub fn op_name(op: &proto::Operation) -> String {
    let attr = op.attributes.get("name").and_then(|v| match &v.value {
        Some(proto::value::Value::ImmediateValue(iv)) => match &iv.value {
            Some(proto::value::immediate_value::Value::Tensor(t)) => match &t.value {
                Some(proto::tensor_value::Value::Strings(s)) => s.values.first().cloned(),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    });
    attr.or_else(|| op.outputs.first().map(|o| o.name.clone())).unwrap_or_default()
}
