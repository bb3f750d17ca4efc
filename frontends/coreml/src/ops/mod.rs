//! The MIL operators xcc compiles, one family per file, each operator a function from the
//! operation to the ONNX nodes that compute it, registered by MIL name in [`registry`].
//!
//! An [`OpContext`] gives a converter the operation's parameters: tensors by graph name
//! ([`OpContext::input`]), compile-time values ([`OpContext::ints`], [`OpContext::string`], ...),
//! the types the program declares, and the nodes it writes ([`OpContext::emit`]).

mod activation;
mod attention;
mod classify;
mod constexpr;
mod control;
mod elementwise;
pub(crate) mod fold;
mod linear;
mod norm;
mod pool;
mod recurrent;
mod reduce;
mod shape;

use crate::import::{self, Importer};
use crate::proto::{self, argument::binding::Binding};
use crate::value::{self, Const};
use std::collections::HashMap;
use std::sync::OnceLock;
use xcc_frontend_onnx::graph::{Attr, DType, Tensor};

/// Writes the nodes of one operation.
pub type Convert = fn(&mut OpContext) -> Result<(), String>;

/// Every supported MIL operator by name.
pub fn registry() -> &'static HashMap<&'static str, Convert> {
    static REGISTRY: OnceLock<HashMap<&'static str, Convert>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut r: HashMap<&'static str, Convert> = HashMap::new();
        for family in [
            activation::register,
            attention::register,
            classify::register,
            constexpr::register,
            control::register,
            elementwise::register,
            linear::register,
            norm::register,
            pool::register,
            recurrent::register,
            reduce::register,
            shape::register,
        ] {
            family(&mut r);
        }
        r
    })
}

pub struct OpContext<'o, 'i, 'b> {
    pub op: &'o proto::Operation,
    pub im: &'i mut Importer<'b>,
    /// The graph names of the operation's outputs.
    pub outs: &'o [String],
}

impl OpContext<'_, '_, '_> {
    /// The operation's name, for its nodes' names.
    pub fn name(&self) -> String {
        import::op_name(self.op)
    }

    fn bindings(&self, param: &str) -> &[proto::argument::Binding] {
        self.op.inputs.get(param).map_or(&[], |a| a.arguments.as_slice())
    }

    pub fn has(&self, param: &str) -> bool {
        !self.bindings(param).is_empty()
    }

    /// The graph value of a required single-tensor parameter.
    pub fn input(&mut self, param: &str) -> Result<String, String> {
        self.opt_input(param)?.ok_or_else(|| format!("the parameter '{param}' is missing"))
    }

    pub fn opt_input(&mut self, param: &str) -> Result<Option<String>, String> {
        match self.bindings(param) {
            [] => Ok(None),
            [b] => self.binding_value(b.clone(), param).map(Some),
            _ => Err(format!("the parameter '{param}' has several values where one is expected")),
        }
    }

    /// The graph values of a variadic parameter (`concat`'s `values`).
    pub fn inputs(&mut self, param: &str) -> Result<Vec<String>, String> {
        let bindings = self.bindings(param).to_vec();
        bindings.into_iter().map(|b| self.binding_value(b, param)).collect()
    }

    fn binding_value(&mut self, b: proto::argument::Binding, param: &str) -> Result<String, String> {
        match b.binding {
            Some(Binding::Name(mil)) => {
                let name = self.im.resolve(&mil);
                if !self.im.is_defined(&mil)
                    && !self.im.graph.types.contains_key(&name)
                    && !self.im.consts.contains_key(&name)
                {
                    return Err(format!("the parameter '{param}' reads '{mil}', which nothing defines before it"));
                }
                self.im.value(&name)
            }
            Some(Binding::Value(v)) => {
                let what = format!("the parameter '{param}'");
                let c = value::decode(&v, self.im.blobs, &what)?;
                let t = c.tensor().ok_or_else(|| format!("{what} is not a tensor"))?.clone();
                Ok(self.im.constant(param, t))
            }
            None => Err(format!("the parameter '{param}' has an empty binding")),
        }
    }

    /// The compile-time value of a parameter (`None` when absent); an error when it is only
    /// known at run time.
    pub fn known(&self, param: &str) -> Result<Option<Const>, String> {
        let b = match self.bindings(param) {
            [] => return self.attribute(param),
            [b] => b,
            several => {
                let items = several.iter().map(|b| self.binding_const(b, param)).collect::<Result<Vec<_>, _>>()?;
                return Ok(Some(Const::List(items)));
            }
        };
        self.binding_const(b, param).map(Some)
    }

    /// A constexpr operation's parameters may be attributes rather than inputs.
    fn attribute(&self, param: &str) -> Result<Option<Const>, String> {
        match self.op.attributes.get(param) {
            Some(v) => value::decode(v, self.im.blobs, &format!("the attribute '{param}'")).map(Some),
            None => Ok(None),
        }
    }

    fn binding_const(&self, b: &proto::argument::Binding, param: &str) -> Result<Const, String> {
        match &b.binding {
            Some(Binding::Value(v)) => value::decode(v, self.im.blobs, &format!("the parameter '{param}'")),
            Some(Binding::Name(mil)) => {
                let name = &self.im.resolve(mil);
                if let Some(c) = self.im.consts.get(name) {
                    return Ok(c.clone());
                }
                if let Some(t) = self.im.graph.consts.get(name) {
                    return Ok(Const::Tensor(t.clone()));
                }
                Err(format!(
                    "the parameter '{param}' must be known at compile time, but '{mil}' is computed by the program"
                ))
            }
            None => Err(format!("the parameter '{param}' has an empty binding")),
        }
    }

    pub fn required(&self, param: &str) -> Result<Const, String> {
        self.known(param)?.ok_or_else(|| format!("the parameter '{param}' is missing"))
    }

    pub fn ints(&self, param: &str) -> Result<Option<Vec<i64>>, String> {
        match self.known(param)? {
            None => Ok(None),
            Some(c) => c.ints().map(Some).ok_or_else(|| format!("the parameter '{param}' is not a tensor of integers")),
        }
    }

    pub fn int(&self, param: &str, default: i64) -> Result<i64, String> {
        Ok(self.ints(param)?.and_then(|v| v.first().copied()).unwrap_or(default))
    }

    pub fn float(&self, param: &str, default: f64) -> Result<f64, String> {
        match self.known(param)? {
            None => Ok(default),
            Some(c) => c
                .floats()
                .and_then(|v| v.first().copied())
                .ok_or_else(|| format!("the parameter '{param}' is not a number")),
        }
    }

    pub fn boolean(&self, param: &str, default: bool) -> Result<bool, String> {
        Ok(self.ints(param)?.and_then(|v| v.first().copied()).map_or(default, |v| v != 0))
    }

    pub fn bools(&self, param: &str, n: usize) -> Result<Vec<bool>, String> {
        Ok(self.ints(param)?.map_or(vec![false; n], |v| v.iter().map(|&b| b != 0).collect()))
    }

    pub fn string(&self, param: &str, default: &str) -> Result<String, String> {
        match self.known(param)? {
            None => Ok(default.to_string()),
            Some(c) => c.string().map(str::to_string).ok_or_else(|| format!("the parameter '{param}' is not a string")),
        }
    }

    /// The declared shape of the value a parameter reads.
    pub fn input_shape(&self, param: &str) -> Result<Vec<usize>, String> {
        let known = |shape: Vec<usize>| Ok(shape);
        match self.bindings(param).first().and_then(|b| b.binding.as_ref()) {
            Some(Binding::Name(mil)) => {
                let name = &self.im.resolve(mil);
                if let Some(t) = self.im.graph.types.get(name) {
                    return known(t.shape.clone());
                }
                if let Some(Const::Tensor(t)) = self.im.consts.get(name) {
                    return known(t.ty.shape.clone());
                }
                self.im
                    .declared
                    .get(name)
                    .cloned()
                    .ok_or_else(|| format!("the shape of '{name}' (parameter '{param}') is not declared"))
            }
            Some(Binding::Value(_)) => match self.known(param)? {
                Some(Const::Tensor(t)) => known(t.ty.shape.clone()),
                _ => Err(format!("the parameter '{param}' is not a tensor")),
            },
            None => Err(format!("the parameter '{param}' is missing")),
        }
    }

    /// The sizes of dims `dims` of the value a parameter reads, which must be known at compile
    /// time (`what` says what they are).
    pub fn fixed_dims(&self, param: &str, dims: std::ops::RangeFrom<usize>, what: &str) -> Result<Vec<usize>, String> {
        let shape = self.input_shape(param)?;
        let sizes = shape.get(dims).ok_or_else(|| format!("'{param}' has rank {}", shape.len()))?.to_vec();
        if sizes.contains(&0) {
            return Err(format!("{what} must be known at compile time (a dim of '{param}' is left to run time)"));
        }
        Ok(sizes)
    }

    pub fn input_rank(&self, param: &str) -> Result<usize, String> {
        self.input_shape(param).map(|s| s.len())
    }

    /// The name of output `i`.
    pub fn out(&self, i: usize) -> Result<String, String> {
        self.outs.get(i).cloned().ok_or_else(|| format!("the operation has no output {i}"))
    }

    /// Adds a node computing `outputs`.
    pub fn emit<'k>(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        outputs: Vec<String>,
        attrs: impl IntoIterator<Item = (&'k str, Attr)>,
    ) {
        let name = self.name();
        self.im.node(op, &name, inputs, outputs, attrs);
    }

    /// Adds a node with one output, a new value, and returns its name.
    pub fn temp<'k>(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        attrs: impl IntoIterator<Item = (&'k str, Attr)>,
    ) -> String {
        let out = self.im.fresh(&self.name());
        self.emit(op, inputs, vec![out.clone()], attrs);
        out
    }

    /// Adds the node that computes output 0.
    pub fn finish<'k>(
        &mut self,
        op: &str,
        inputs: Vec<String>,
        attrs: impl IntoIterator<Item = (&'k str, Attr)>,
    ) -> Result<(), String> {
        let out = self.out(0)?;
        self.emit(op, inputs, vec![out], attrs);
        Ok(())
    }

    pub fn i64s(&mut self, values: &[i64]) -> String {
        self.im.constant("ints", Tensor::from_i64(vec![values.len()], values))
    }

    pub fn scalar(&mut self, v: f64, dtype: DType) -> String {
        self.im.constant("scalar", Tensor::from_f64(dtype, vec![], &[v]))
    }

    /// A compile-time value as the output `i` (a constant, not a node).
    pub fn define_const(&mut self, i: usize, c: Const) -> Result<(), String> {
        let name = self.out(i)?;
        self.im.consts.insert(name, c);
        Ok(())
    }
}

/// ONNX's `pads` (all begins, then all ends) from MIL's `pad` (begin and end per spatial dim).
pub fn onnx_pads(mil: &[i64]) -> Vec<i64> {
    let begins = mil.iter().step_by(2).copied();
    let ends = mil.iter().skip(1).step_by(2).copied();
    begins.chain(ends).collect()
}

/// ONNX's `auto_pad` and `pads` for a MIL `pad_type` (and `pad` for "custom").
pub fn padding(cx: &OpContext, spatial: usize) -> Result<Vec<(&'static str, Attr)>, String> {
    let pad_type = cx.string("pad_type", "valid")?;
    Ok(match pad_type.as_str() {
        "valid" => vec![("pads", Attr::Ints(vec![0; 2 * spatial]))],
        "same" => vec![("auto_pad", Attr::Str("SAME_UPPER".into()))],
        "same_lower" => vec![("auto_pad", Attr::Str("SAME_LOWER".into()))],
        "custom" => {
            let pad = cx.ints("pad")?.unwrap_or(vec![0; 2 * spatial]);
            if pad.len() != 2 * spatial {
                return Err(format!("'pad' has {} values for {spatial} spatial dims", pad.len()));
            }
            vec![("pads", Attr::Ints(onnx_pads(&pad)))]
        }
        other => return Err(format!("unknown pad_type '{other}'")),
    })
}

/// The graph's element type for a MIL `dtype` string (`"fp32"`, `"int32"`, ...); half floats
/// compute in float32.
pub fn dtype_named(name: &str) -> Result<DType, String> {
    Ok(match name {
        "fp32" | "fp16" | "bf16" => DType::F32,
        "fp64" => DType::F64,
        "int8" => DType::I8,
        "int16" => DType::I16,
        "int32" => DType::I32,
        "int64" => DType::I64,
        "uint8" => DType::U8,
        "uint16" => DType::U16,
        "uint32" => DType::U32,
        "uint64" => DType::U64,
        "bool" => DType::Bool,
        other => return Err(format!("unknown dtype '{other}'")),
    })
}
