//! The inferred, folded graph as a module at the kernel level: `func.func @NAME_run` computes the
//! model with kernel operations and parallel loops over memrefs, each node lowered by its
//! operator (the `lower` callback: [`crate::ops::OnnxOp::lower`] through the registry); the
//! default pipeline fuses, packs and lowers it.
//!
//! Memory: inputs and outputs are the caller's buffers; weights are `memref.global` constants in
//! read-only data; every intermediate tensor is a `memref.alloc`, which `plan-workspace` places in
//! the caller's workspace (the run function's last argument, `xcc.workspace`) by liveness, so a
//! run does no heap allocation and two threads with two workspaces can run concurrently.
//! `NAME_workspace_size` and `NAME_run_alloc` read the planned size through
//! `kernel.workspace_size`.

mod entries;
mod nodes;

use super::graph::*;
use entries::*;
use std::collections::HashMap;
/// The private function that computes model `name` (`plan-workspace` records its workspace size
/// on it as `xcc.workspace_bytes`).
pub use xcc_abi::compute_symbol;
use xcc_abi::ModelInterface;
use xcc_ir::affine::AffineMap;
use xcc_ir::attributes::DenseValues;
use xcc_ir::builder::memref_descriptor::MemRefDescriptor;
pub use xcc_ir::builder::{Extent, LoopBuilder};
use xcc_ir::dialects::kernel::Generic;
use xcc_ir::parser::forms::segment_sizes;
use xcc_ir::types::{FunctionType, MemRefType};
use xcc_ir::{Attribute, BlockId, Module, OpSpec, Span, Type, ValueId};
use xcc_runtime_c::{status, CHECK_WORKSPACE};

pub struct Emitter {
    pub m: Module,
    pub block: BlockId,
    pub buffers: HashMap<String, ValueId>,
    globals: usize,
    prefix: String,
    /// The run's status (`memref<1xi32>`): 0, or the code of a failed run-time check.
    status: Option<ValueId>,
    /// The value (an index) of each dim symbol, from the function's leading arguments.
    symbols: HashMap<String, ValueId>,
    /// Whether the target computes rows as vectors (CPUs; not [`crate::OnnxOptions::gpu`]).
    pub vector_rows: bool,
    /// The dims the run computes and finds ([`DataDims::found`]: a found dim is defined in
    /// `symbols` once its operator has counted it).
    data: DataDims,
    /// Where the tensors whose found dims are not yet known go once they are.
    pending: HashMap<String, Pending>,
    /// The small constants already made in a block (its type and bytes): an unrolled loop's
    /// copies of one constant are one buffer, so that a kernel fusing their readers reads it once.
    small_constants: HashMap<(BlockId, String, Vec<u8>), ValueId>,
}

/// The largest constant (in bytes) that [`Emitter::constant_buffer`] makes once per block.
const SMALL_CONSTANT_BYTES: usize = 64;

/// The memory of a tensor whose dims its operator finds while it runs.
#[derive(Clone, Copy)]
enum Pending {
    /// A flat workspace buffer of the tensor's capacity.
    Capacity(ValueId),
    /// The caller's pointer, for an output.
    Output(ValueId),
}

/// The buffer type of a tensor type: `?` for each dim known only at run time.
pub fn memref_type(t: &TensorType) -> Type {
    let shape = match &t.symbolic {
        None => t.shape.iter().map(|&d| Some(d as u64)).collect(),
        Some(dims) => dims.iter().map(|d| d.as_fixed().map(|n| n as u64)).collect(),
    };
    Type::MemRef(MemRefType {
        shape,
        elem: Box::new(t.dtype.ir_type()),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    })
}

const ALIGN: i64 = 64;

/// `func.func @name(inputs) -> results` with an empty entry block; returns the block.
fn function(m: &mut Module, name: &str, inputs: Vec<Type>, results: Vec<Type>) -> (xcc_ir::OpId, BlockId) {
    let top = m.body_block();
    let region = m.new_region();
    let f = m.build(
        top,
        OpSpec::new("func.func", Span::UNKNOWN)
            .attr("sym_name", Attribute::String(name.to_string()))
            .attr("function_type", Attribute::Type(Type::Function(FunctionType { inputs: inputs.clone(), results })))
            .region(region),
    );
    let entry = m.append_block(region, Span::UNKNOWN);
    for t in inputs {
        m.add_block_arg(entry, t, Span::UNKNOWN);
    }
    (f, entry)
}

/// Builds the module; `lower` writes one node's outputs (the operator registry's lowering).
///
/// The model computes in the private `NAME_compute`, which takes every dim: the model's symbols,
/// then the data dims. The exported `NAME_run` checks its arguments, computes the data dims from
/// the inputs and calls it; `NAME_run_with` and `NAME_run_alloc` call `NAME_run`.
pub fn generate(
    g: &Graph,
    name: &str,
    vector_rows: bool,
    lower: impl Fn(&Node, &Graph, &mut Emitter) -> OResult<()>,
) -> OResult<(Module, ModelInterface)> {
    let inputs: Vec<(String, TensorType)> = g.inputs.iter().map(|i| (i.clone(), g.types[i].clone())).collect();
    let outputs: Vec<(String, TensorType)> =
        g.outputs.iter().map(|o| Ok((o.clone(), g.ty(o)?.clone()))).collect::<OResult<_>>()?;
    let data = g.data_dims.borrow().clone();
    check_found_dims(g, &data)?;
    let found_outputs: Vec<usize> = (0..outputs.len()).filter(|&k| reads_found(&data, &outputs[k].1)).collect();
    if let Some((o, _)) = outputs.iter().find(|(o, _)| g.optional_inputs.contains(o)) {
        return Err(OnnxError::tensor(o, "an optional input that is also an output is not supported"));
    }
    if let Some(&k) = found_outputs.iter().find(|&&k| outputs[k].1.dtype == DType::Str) {
        return Err(OnnxError::tensor(&outputs[k].0, "a STRING output whose dims the run finds is not supported"));
    }
    let sig = Signature {
        symbols: g.symbols.len(),
        data: data.dims.len(),
        inputs: inputs.len(),
        outputs: outputs.len(),
        found: found_outputs.len(),
    };
    let mut m = Module::new();
    let compute = compute_symbol(name);
    let (f, entry) = function(&mut m, &compute, sig.compute_types(), vec![Type::i32()]);
    m.set_attr(f, "xcc.workspace", Attribute::i64(sig.compute_len() as i64 - 1));
    m.set_attr(f, "sym_visibility", Attribute::String("private".into()));
    let (sym_args, params) = m.blocks[entry].args.split_at(sig.symbols + sig.data);
    let (sym_args, params) = (sym_args.to_vec(), params.to_vec());
    let mut e = Emitter {
        m,
        block: entry,
        buffers: HashMap::new(),
        globals: 0,
        prefix: name.to_string(),
        status: None,
        symbols: HashMap::new(),
        vector_rows,
        data: data.clone(),
        pending: HashMap::new(),
        small_constants: HashMap::new(),
    };
    let all_symbols: Vec<String> = g.symbols.iter().cloned().chain(data.dims.iter().map(|(n, _)| n.clone())).collect();
    for (s, &a) in all_symbols.iter().zip(&sym_args) {
        let v = e.value_op("arith.index_cast", &[a], Type::Index);
        e.symbols.insert(s.clone(), v);
    }
    e.status = Some(e.status_buffer());
    for (k, (n, t)) in inputs.iter().chain(outputs.iter()).enumerate() {
        if reads_found(&data, t) {
            e.pending.insert(n.clone(), Pending::Output(params[k]));
            continue;
        }
        let v = e.memref_from_ptr(params[k], t);
        e.buffers.entry(n.clone()).or_insert(v);
    }
    nodes::lower_nodes(&mut e, g, &lower)?;
    // Outputs that are constants or inputs (no node writes them).
    let produced: Vec<&String> = g.nodes.iter().flat_map(|n| n.outputs.iter()).collect();
    for (k, (o, t)) in outputs.iter().enumerate() {
        if !produced.contains(&o) {
            let src = match e.folded_buffer(g, o) {
                Some(v) => v,
                None => e.buffers[o],
            };
            let dst = e.memref_from_ptr(params[inputs.len() + k], t);
            e.copy(src, dst);
        }
    }
    let found_dims = &params[inputs.len() + outputs.len()..][..found_outputs.len()];
    for (&k, &p) in found_outputs.iter().zip(found_dims) {
        let (o, t) = &outputs[k];
        if e.pending.contains_key(o) {
            return Err(OnnxError::tensor(o, "internal: its operator did not say the dims it found"));
        }
        e.write_dims(p, &t.dims());
    }
    let at = e.idx(0);
    let status = e.status();
    let rc = e.load(status, &[at]);
    e.op(OpSpec::new("func.return", Span::UNKNOWN).operands([rc]));
    let entries = Entries {
        name: name.to_string(),
        compute,
        sig,
        checks: DimChecks::of(g, &data),
        data,
        inputs: inputs.clone(),
        outputs: outputs.clone(),
        strings: g.types.values().any(|t| t.dtype == DType::Str) || makes_strings(&e.m),
        optional: inputs.iter().map(|(n, _)| g.optional_inputs.contains(n)).collect(),
        shared: shared_buffers(g, &inputs, &outputs),
        apart: concatenated_caches(g, &inputs, &outputs),
    };
    entries.checked_run(&mut e);
    entries.workspace_size(&mut e);
    let maxima = entries.checks.maxima().filter(|m| !m.is_empty() && !entries.reads_inputs());
    if let Some(maxima) = &maxima {
        check_ranges(g, &entries.data, maxima)?;
        entries.workspace_size_max(&mut e, maxima);
    }
    entries.run_alloc(&mut e);
    if entries.computes_dims() {
        entries.output_dims(&mut e);
        entries.failed_check(&mut e);
    }
    entries.run_with_options(&mut e);
    let shared_buffers = entries.shared.clone();
    let iface = ModelInterface {
        name: name.to_string(),
        inputs: abi_tensors(&inputs),
        outputs: abi_tensors(&outputs),
        symbols: g.symbols.clone(),
        symbol_sources: g.symbols.iter().map(|s| g.symbol_sources.get(s).cloned()).collect(),
        data_dims: entries.data.dims.iter().map(|(n, x)| (n.clone(), x.to_string())).collect(),
        conditions: entries.conditions(),
        shared_buffers,
        separate_buffers: entries.apart.clone(),
        shape_inputs: entries.data.inputs_read(),
        computes_dims: entries.computes_dims(),
        ranges: g.symbols.iter().map(|s| g.bounds.get(s).copied()).collect(),
        workspace_size_max: maxima.is_some(),
        workspace_bytes: 0,
        class_labels: Vec::new(),
        found_outputs,
        finds_dims: !entries.data.found.is_empty(),
        uses_strings: entries.strings,
        optional_inputs: entries.optional.clone(),
    };
    Ok((e.m, iface))
}

/// Tensors as the C interface describes them ([`xcc_abi::Tensor`]).
fn abi_tensors(list: &[(String, TensorType)]) -> Vec<(String, xcc_abi::Tensor)> {
    list.iter().map(|(name, t)| (name.clone(), t.abi())).collect()
}

/// A call of runtime-c's function `name`, declared from the arguments' types. Pointers go as
/// i64 addresses, which the C ABIs of xcc's 64-bit targets pass as they pass `void *`.
pub fn runtime_call(e: &mut Emitter, name: &str, args: &[ValueId], result: Type) -> ValueId {
    let params: Vec<Type> = args.iter().map(|&a| e.ty(a).clone()).collect();
    xcc_ir::builder::declare_function(&mut e.m, name, params, vec![result.clone()]);
    let spec = OpSpec::new("llvm.call", Span::UNKNOWN).operands(args.iter().copied()).results([result]);
    let op = e.op(spec.attr("callee", Attribute::symbol(name)));
    e.m.result(op, 0)
}

/// [`runtime_call`] of a function that returns nothing.
pub fn runtime_call_void(e: &mut Emitter, name: &str, args: &[ValueId]) {
    let params: Vec<Type> = args.iter().map(|&a| e.ty(a).clone()).collect();
    xcc_ir::builder::declare_function(&mut e.m, name, params, vec![]);
    let spec = OpSpec::new("llvm.call", Span::UNKNOWN).operands(args.iter().copied());
    e.op(spec.attr("callee", Attribute::symbol(name)));
}

/// runtime-c's entry points that make a run's options current and restore the previous ones.
const RUN_OPTIONS_ENTER: &str = "xcc_run_options_enter";
const RUN_OPTIONS_LEAVE: &str = "xcc_run_options_leave";

impl LoopBuilder for Emitter {
    fn module(&mut self) -> &mut Module {
        &mut self.m
    }
    fn block(&self) -> BlockId {
        self.block
    }
    fn set_block(&mut self, block: BlockId) -> BlockId {
        std::mem::replace(&mut self.block, block)
    }
}

impl Emitter {
    /// The run's status buffer, which run-time checks (an index out of range) set.
    fn status(&self) -> ValueId {
        self.status.expect("created with the function")
    }

    /// An index read at run time into a dim of size `dim` (negative counts from the end): one
    /// outside the dim makes the run return `XCC_ERROR_INDEX_OUT_OF_RANGE` and reads element 0
    /// instead ([`LoopBuilder::checked_index`]).
    pub fn run_time_index(&mut self, raw: ValueId, dim: usize) -> ValueId {
        self.run_time_index_over(raw, Extent::Fixed(dim))
    }

    /// [`Emitter::run_time_index`] into a dim that may be known only at run time.
    pub fn run_time_index_over(&mut self, raw: ValueId, dim: Extent) -> ValueId {
        let status = self.status();
        self.checked_index(raw, dim, status, status::INDEX_OUT_OF_RANGE)
    }

    /// The address (an i64) of the run's status, for runtime-c functions that report a failure
    /// themselves: they write their code where the status is still `XCC_OK`.
    pub fn status_address(&mut self) -> ValueId {
        let status = self.status();
        self.address_of(status)
    }

    /// Makes the run return `code` when `cond` (an i1) holds; the code after it runs on (as an
    /// index out of range does), so it must not need `cond` to be false to be safe.
    pub fn fail_run_if(&mut self, cond: ValueId, code: i32) {
        let status = self.status();
        self.fail_if(cond, status, code);
    }

    /// A stack `memref<1xi32>` holding 0: allocated once in the entry block, so the parallel
    /// tasks outlined later capture it like any buffer.
    fn status_buffer(&mut self) -> ValueId {
        let t = Type::MemRef(MemRefType {
            shape: vec![Some(1)],
            elem: Box::new(Type::i32()),
            layout: xcc_ir::types::Layout::Identity,
            memory_space: None,
        });
        let buf = self.value_attr("memref.alloca", &[], t, vec![("operandSegmentSizes", segment_sizes(&[0, 0]))]);
        let (zero, at) = (self.const_int(0, Type::i32()), self.idx(0));
        self.store(zero, buf, &[at]);
        buf
    }

    /// A constant of `dtype`'s compute type (f16 computes in f32).
    pub fn const_of(&mut self, v: f64, dtype: DType) -> ValueId {
        let t = compute_type(dtype);
        if dtype.is_float() {
            self.const_float(v, t)
        } else {
            self.const_int(v as i128, t)
        }
    }

    /// A memref over a raw pointer (an input or output): contiguous, row-major, offset 0, built
    /// with the conversion's own descriptor helper.
    fn memref_from_ptr(&mut self, p: ValueId, t: &TensorType) -> ValueId {
        let Type::MemRef(mt) = memref_type(t) else { unreachable!("a memref type") };
        let sizes: Vec<ValueId> =
            self.dynamic_sizes(t).into_iter().map(|v| self.value_op("arith.index_cast", &[v], Type::i64())).collect();
        let block = self.block;
        let mut b = xcc_ir::builder::Builder::at_end(&mut self.m, block, Span::UNKNOWN);
        let d = MemRefDescriptor::from_pointers(&mut b, p, p, &mt, &sizes);
        self.value_op("builtin.unrealized_conversion_cast", &[d.value], Type::MemRef(mt))
    }

    /// Converts one element between element types, with ONNX Cast semantics.
    pub fn convert(&mut self, v: ValueId, from: DType, to: DType) -> ValueId {
        self.convert_saturating(v, from, to, true)
    }

    /// `v` (of type `from`) as a FLOAT8E8M0 code, through f32.
    pub fn convert_to_e8m0(
        &mut self,
        v: ValueId,
        from: DType,
        saturate: bool,
        rounding: crate::float8e8m0::Rounding,
    ) -> ValueId {
        let wide = self.convert(v, from, DType::F32);
        crate::float8e8m0::emit_encode(self, wide, saturate, rounding)
    }

    /// [`Emitter::convert`], with Cast's `saturate` for a float8 result: past its range, the
    /// largest value (true) or infinity or NaN (false).
    pub fn convert_saturating(&mut self, v: ValueId, from: DType, to: DType, saturate: bool) -> ValueId {
        if from == to {
            return v;
        }
        if let Some(f) = from.float8() {
            let wide = f.emit_decode(self, v);
            return self.convert_saturating(wide, DType::F32, to, saturate);
        }
        if let Some(f) = to.float8() {
            let wide = self.convert(v, from, DType::F32);
            return f.emit_encode(self, wide, saturate);
        }
        if from == DType::F8E8M0 {
            let wide = crate::float8e8m0::emit_decode(self, v);
            return self.convert_saturating(wide, DType::F32, to, saturate);
        }
        if to == DType::F8E8M0 {
            return self.convert_to_e8m0(v, from, saturate, crate::float8e8m0::Rounding::Up);
        }
        if from == DType::F4E2M1 {
            let wide = crate::float4::emit_decode(self, v);
            return self.convert_saturating(wide, DType::F32, to, saturate);
        }
        if to == DType::F4E2M1 {
            let wide = self.convert(v, from, DType::F32);
            return crate::float4::emit_encode(self, wide);
        }
        if let Some(bits) = to.packed_bits() {
            // To a sub-byte integer: through i64, then wrapped to the width (int4: -9 is 7).
            let wide = self.convert(v, from, DType::I64);
            let shift = self.const_int(64 - bits as i128, Type::i64());
            let up = self.value_op("arith.shli", &[wide, shift], Type::i64());
            let back = if to.is_unsigned() { "arith.shrui" } else { "arith.shrsi" };
            let wrapped = self.value_op(back, &[up, shift], Type::i64());
            return self.value_op("arith.trunci", &[wrapped], Type::i8());
        }
        let (ft, tt) = (compute_type(from), compute_type(to));
        if ft == tt {
            return v;
        }
        let unsigned = DType::is_unsigned;
        match (from.is_float(), to.is_float()) {
            (true, true) => {
                let wider = tt.element_or_self().clone();
                let w = |t: &Type| match t {
                    Type::Float(k) => k.width(),
                    _ => 0,
                };
                self.value_op(if w(&wider) > w(&ft) { "arith.extf" } else { "arith.truncf" }, &[v], tt)
            }
            (false, true) => self.value_op(if unsigned(from) { "arith.uitofp" } else { "arith.sitofp" }, &[v], tt),
            (true, false) if to == DType::Bool => {
                let z = self.const_float(0.0, ft);
                self.cmpf("une", v, z)
            }
            (true, false) => self.value_op(if unsigned(to) { "arith.fptoui" } else { "arith.fptosi" }, &[v], tt),
            (false, false) if to == DType::Bool => {
                let z = self.const_int(0, ft);
                self.cmpi("ne", v, z)
            }
            (false, false) => {
                let (a, b) = (ft.int_width().unwrap_or(64), tt.int_width().unwrap_or(64));
                if b > a {
                    self.value_op(if unsigned(from) { "arith.extui" } else { "arith.extsi" }, &[v], tt)
                } else {
                    self.value_op("arith.trunci", &[v], tt)
                }
            }
        }
    }

    /// The value (an index) of a [`DataExpr`]: dims from their symbols, elements from the
    /// input buffers. A division by zero divides by 1 instead: the checks that refuse such
    /// inputs run first, and the division must not trap meanwhile.
    pub fn data_value(&mut self, x: &DataExpr) -> ValueId {
        use crate::data_dim::DataOp;
        let (op, args) = match x {
            DataExpr::Dim(d) => return self.dim_value(d),
            DataExpr::Element { input, index } => {
                let v = self.data_element(input, *index);
                return self.value_op("arith.index_cast", &[v], Type::Index);
            }
            DataExpr::RealElement { .. } => unreachable!("a real used as an integer: {x:?}"),
            DataExpr::Measured { input, count, measure } => {
                let v = match measure {
                    crate::data_dim::Measure::ImageSide { width } => {
                        crate::ops::image::measure(self, input, count, *width)
                    }
                    _ => crate::ops::string::measure(self, input, count, measure),
                }
                .expect("a measured input is a graph input, whose buffer the prologue has");
                return self.value_op("arith.index_cast", &[v], Type::Index);
            }
            DataExpr::Op(op, args) => (op, args),
        };
        if matches!(op, DataOp::Floor | DataOp::Ceil | DataOp::Round) {
            return self.rounded_real(*op, &args[0]);
        }
        if *op == DataOp::RealLt {
            let (a, b) = (self.data_real(&args[0]), self.data_real(&args[1]));
            let c = self.cmpf("olt", a, b);
            let (one, zero) = (self.idx(1), self.idx(0));
            return self.value_op("arith.select", &[c, one, zero], Type::Index);
        }
        assert!(!op.is_real(), "a real used as an integer: {x:?}");
        let a: Vec<ValueId> = args.iter().map(|x| self.data_value(x)).collect();
        let (zero, one) = (self.idx(0), self.idx(1));
        let binary = |e: &mut Self, name: &str| e.value_op(name, &[a[0], a[1]], Type::Index);
        let flag = |e: &mut Self, pred: &str| {
            let c = e.cmpi(pred, a[0], a[1]);
            e.value_op("arith.select", &[c, one, zero], Type::Index)
        };
        match op {
            DataOp::Add => binary(self, "arith.addi"),
            DataOp::Sub => binary(self, "arith.subi"),
            DataOp::Mul => binary(self, "arith.muli"),
            DataOp::Min => binary(self, "arith.minsi"),
            DataOp::Max => binary(self, "arith.maxsi"),
            DataOp::Eq => flag(self, "eq"),
            DataOp::Lt => flag(self, "slt"),
            DataOp::FloorDiv => {
                let by_zero = self.cmpi("eq", a[1], zero);
                let divisor = self.value_op("arith.select", &[by_zero, one, a[1]], Type::Index);
                self.value_op("arith.floordivsi", &[a[0], divisor], Type::Index)
            }
            DataOp::Select => {
                let c = self.cmpi("ne", a[0], zero);
                self.value_op("arith.select", &[c, a[1], a[2]], Type::Index)
            }
            _ => unreachable!("handled above"),
        }
    }

    /// Element `index` of the input `input` (a scalar for rank 0), as stored.
    fn data_element(&mut self, input: &str, index: usize) -> ValueId {
        let buf = self.buffers[input];
        let rank = self.ty(buf).as_memref().map_or(0, |m| m.rank());
        let at = if rank == 0 { vec![] } else { vec![self.idx(index as i64)] };
        self.load(buf, &at)
    }

    /// The value (an f64) of a real [`DataExpr`]; an integer one is converted.
    pub fn data_real(&mut self, x: &DataExpr) -> ValueId {
        use crate::data_dim::DataOp;
        let f64t = f64_type();
        match x {
            DataExpr::RealElement { input, index } => {
                let v = self.data_element(input, *index);
                if self.m.ty(v).clone() == f64t {
                    v
                } else {
                    self.value_op("arith.extf", &[v], f64t)
                }
            }
            DataExpr::Op(op, args) if op.is_real() => {
                let (a, b) = (self.data_real(&args[0]), self.data_real(&args[1]));
                let name = match op {
                    DataOp::RealAdd => "arith.addf",
                    DataOp::RealSub => "arith.subf",
                    DataOp::RealMul => "arith.mulf",
                    DataOp::RealDiv => "arith.divf",
                    DataOp::RealMin => "arith.minimumf",
                    _ => "arith.maximumf",
                };
                self.value_op(name, &[a, b], f64t)
            }
            _ => {
                let v = self.data_value(x);
                let v = self.value_op("arith.index_cast", &[v], Type::i64());
                self.value_op("arith.sitofp", &[v], f64t)
            }
        }
    }

    /// A real rounded to an index; NaN and magnitudes from 2^62 on give -1.
    fn rounded_real(&mut self, op: crate::data_dim::DataOp, x: &DataExpr) -> ValueId {
        use crate::data_dim::DataOp;
        let f64t = f64_type();
        let v = self.data_real(x);
        let r = match op {
            DataOp::Floor => self.value_op("math.floor", &[v], f64t.clone()),
            DataOp::Ceil => self.value_op("math.ceil", &[v], f64t.clone()),
            _ => self.value_op("math.round", &[v], f64t.clone()),
        };
        let mag = self.value_op("math.absf", &[r], f64t.clone());
        let limit = self.const_float(crate::data_dim::ROUNDED_LIMIT, f64t.clone());
        let fits = self.cmpf("olt", mag, limit);
        let minus_one = self.const_float(-1.0, f64t.clone());
        let r = self.value_op("arith.select", &[fits, r, minus_one], f64t);
        let i = self.value_op("arith.fptosi", &[r], Type::i64());
        self.value_op("arith.index_cast", &[i], Type::Index)
    }

    /// The value of a dim as an i64, as runtime-c's functions take sizes.
    pub fn dim_i64(&mut self, d: &Dim) -> ValueId {
        let v = self.dim_value(d);
        self.value_op("arith.index_cast", &[v], Type::i64())
    }

    /// The value (an index) of a dim.
    pub fn dim_value(&mut self, d: &Dim) -> ValueId {
        if let Some(n) = d.as_const() {
            return self.idx(n);
        }
        let mut total: Option<ValueId> = None;
        for (c, syms) in d.terms() {
            let mut term = (c != 1 || syms.is_empty()).then(|| self.idx(c));
            for s in syms {
                let v = self.symbols[s.as_str()];
                term = Some(match term {
                    Some(t) => self.value_op("arith.muli", &[t, v], Type::Index),
                    None => v,
                });
            }
            let term = term.expect("a term has a coefficient or a symbol");
            total = Some(match total {
                Some(t) => self.value_op("arith.addi", &[t, term], Type::Index),
                None => term,
            });
        }
        total.expect("a symbolic dim has a term")
    }

    /// The buffer of a tensor folded at compile time (no node writes it): a constant's global,
    /// or a shape value's dims filled at run time; `None` for any other tensor.
    pub fn folded_buffer(&mut self, g: &Graph, name: &str) -> Option<ValueId> {
        match (g.consts.get(name), g.shape_values.get(name)) {
            (Some(t), _) if t.ty.dtype == DType::Str => Some(crate::ops::string::constant(self, t)),
            (Some(t), _) => Some(self.constant_buffer(t)),
            (None, Some(v)) => Some(self.shape_value_buffer(v)),
            (None, None) => None,
        }
    }

    /// A buffer holding a shape value's dims, computed at run time, for an operator that reads
    /// the shape as data.
    fn shape_value_buffer(&mut self, v: &ShapeValue) -> ValueId {
        let buf = self.alloc_tensor(&v.ty());
        for (i, d) in v.values.iter().enumerate() {
            let x = self.dim_value(d);
            let x = if v.dtype.is_float() {
                let n = self.value_op("arith.index_cast", &[x], Type::i64());
                self.value_op("arith.sitofp", &[n], v.dtype.ir_type())
            } else {
                self.value_op("arith.index_cast", &[x], v.dtype.ir_type())
            };
            let at = if v.shape.is_empty() { vec![] } else { vec![self.idx(i as i64)] };
            self.store(x, buf, &at);
        }
        buf
    }

    /// A dim as a loop extent: static, or its value.
    pub fn dim_extent(&mut self, d: &Dim) -> Extent {
        match d.as_fixed() {
            Some(n) => Extent::Fixed(n),
            None => Extent::Value(self.dim_value(d)),
        }
    }

    pub fn dim_extents(&mut self, dims: &[Dim]) -> Vec<Extent> {
        dims.iter().map(|d| self.dim_extent(d)).collect()
    }

    /// The values of a type's run-time dims, in order (what `memref.alloc` and a descriptor
    /// take for the `?` dims).
    pub fn dynamic_sizes(&mut self, t: &TensorType) -> Vec<ValueId> {
        let Some(dims) = &t.symbolic else { return Vec::new() };
        dims.iter().filter(|d| !d.is_fixed()).map(|d| self.dim_value(d)).collect()
    }

    /// A new buffer for a tensor of type `t` (placed in the workspace by `plan-workspace`); one
    /// with dims found by the run takes its capacity, seen at its dims.
    pub fn alloc_tensor(&mut self, t: &TensorType) -> ValueId {
        if reads_found(&self.data, t) {
            let flat = self.alloc_capacity(t);
            let dims = self.dim_extents(&t.dims());
            return self.reshaped_over(flat, &dims);
        }
        let sizes = self.dynamic_sizes(t);
        let op = self.op(OpSpec::new("memref.alloc", Span::UNKNOWN)
            .operands(sizes.iter().copied())
            .results([memref_type(t)])
            .attr("alignment", Attribute::i64(ALIGN))
            .attr("operandSegmentSizes", segment_sizes(&[sizes.len(), 0])));
        self.m.result(op, 0)
    }

    /// A flat buffer of a tensor's capacity, whose size the prologue knows.
    fn alloc_capacity(&mut self, t: &TensorType) -> ValueId {
        let n = Dim::product(&capacity_dims(&self.data, t));
        self.alloc_tensor(&TensorType::with_dims(t.dtype, vec![n]))
    }

    /// The buffer a node's output `o` is written to: a new one, the caller's for an output, or
    /// `None` while its dims wait for a count its operator finds ([`Emitter::found_buffer`]).
    fn output_buffer(&mut self, o: &str, t: &TensorType) -> Option<ValueId> {
        if !reads_found(&self.data, t) {
            return Some(self.alloc_tensor(t));
        }
        let known = t.dims().iter().flat_map(|d| d.symbols()).all(|s| self.symbols.contains_key(s));
        match (known, self.pending.get(o).copied()) {
            (true, Some(Pending::Output(p))) => {
                self.pending.remove(o);
                Some(self.memref_from_ptr(p, t))
            }
            (true, _) => Some(self.alloc_tensor(t)),
            (false, Some(_)) => None,
            (false, None) => {
                let flat = self.alloc_capacity(t);
                self.pending.insert(o.to_string(), Pending::Capacity(flat));
                None
            }
        }
    }

    /// Found dim `name`'s value (an index, at most its capacity), which the tensors after it
    /// read.
    pub fn define_found(&mut self, name: &str, count: ValueId) {
        self.symbols.insert(name.to_string(), count);
    }

    /// Output `o` of the node being lowered, whose found dims are now defined: its capacity (or
    /// the caller's buffer) seen at its dims.
    pub fn found_buffer(&mut self, o: &str, t: &TensorType) -> OResult<ValueId> {
        let v = match self.pending.remove(o) {
            Some(Pending::Output(p)) => self.memref_from_ptr(p, t),
            Some(Pending::Capacity(flat)) => {
                let dims = self.dim_extents(&t.dims());
                self.reshaped_over(flat, &dims)
            }
            None => return self.buf(o),
        };
        self.buffers.insert(o.to_string(), v);
        Ok(v)
    }

    /// Output `o` of the node being lowered, whose found dims are not yet known, seen at its
    /// capacity (each found dim at its largest): where an operator writes before it knows how
    /// many it wrote. The rows it writes stay where [`Emitter::found_buffer`] sees them when the
    /// found dim is the leading one (a Loop's scan outputs).
    pub fn capacity_view(&mut self, o: &str, t: &TensorType) -> OResult<ValueId> {
        let dims = capacity_dims(&self.data, t);
        match self.pending.get(o).copied() {
            Some(Pending::Output(p)) => Ok(self.memref_from_ptr(p, &TensorType::with_dims(t.dtype, dims))),
            Some(Pending::Capacity(flat)) => {
                let extents = self.dim_extents(&dims);
                Ok(self.reshaped_over(flat, &extents))
            }
            None => self.buf(o),
        }
    }

    /// Stores `dims`' values (i64 each) at pointer `p`.
    fn write_dims(&mut self, p: ValueId, dims: &[Dim]) {
        let buf = self.memref_from_ptr(p, &TensorType::new(DType::I64, vec![dims.len()]));
        for (j, d) in dims.iter().enumerate() {
            let v = self.dim_value(d);
            let v = self.value_op("arith.index_cast", &[v], Type::i64());
            let at = self.idx(j as i64);
            self.store(v, buf, &[at]);
        }
    }

    /// A new buffer for an intermediate tensor (placed in the workspace by `plan-workspace`).
    pub fn alloc(&mut self, t: Type) -> ValueId {
        let op = self.op(OpSpec::new("memref.alloc", Span::UNKNOWN)
            .results([t])
            .attr("alignment", Attribute::i64(ALIGN))
            .attr("operandSegmentSizes", segment_sizes(&[0, 0])));
        self.m.result(op, 0)
    }

    /// The address (an i64) of a buffer's first element (one with no offset: a global, an
    /// allocation, an argument).
    pub fn address_of(&mut self, buf: ValueId) -> ValueId {
        let p = self.value_op("memref.extract_aligned_pointer_as_index", &[buf], Type::Index);
        self.value_op("arith.index_cast", &[p], Type::i64())
    }

    /// A read-only global holding a constant tensor (a weight, or a table computed at compile
    /// time such as Resize's indices).
    pub fn constant_buffer(&mut self, t: &Tensor) -> ValueId {
        let key = (t.data.len() <= SMALL_CONSTANT_BYTES)
            .then(|| (self.block, memref_type(&t.ty).to_string(), t.data.clone()));
        if let Some(&v) = key.as_ref().and_then(|k| self.small_constants.get(k)) {
            return v;
        }
        let v = self.new_constant_buffer(t);
        if let Some(k) = key {
            self.small_constants.insert(k, v);
        }
        v
    }

    /// A new global holding `t`, and its buffer.
    fn new_constant_buffer(&mut self, t: &Tensor) -> ValueId {
        let sym = format!("{}_w{}", self.prefix, self.globals);
        self.globals += 1;
        let top = self.m.body_block();
        let data_ty = Type::Tensor { shape: Some(vec![Some(t.data.len() as u64)]), elem: Box::new(Type::i8()) };
        let g = self.m.create_op(
            OpSpec::new("memref.global", Span::UNKNOWN)
                .attr("sym_name", Attribute::String(sym.clone()))
                .attr("sym_visibility", Attribute::String("private".into()))
                .attr("type", Attribute::Type(memref_type(&t.ty)))
                .attr("initial_value", Attribute::Dense { values: DenseValues::Hex(t.data.clone()), ty: data_ty })
                .attr("constant", Attribute::Unit),
        );
        // Globals go before the functions that use them.
        self.m.ops[g].parent = Some(top);
        self.m.blocks[top].ops.insert(0, g);
        self.value_attr("memref.get_global", &[], memref_type(&t.ty), vec![("name", Attribute::symbol(sym))])
    }

    /// `kernel.copy`: `src`'s elements into `dst` in row-major order (same element count).
    pub fn copy(&mut self, src: ValueId, dst: ValueId) {
        self.op(OpSpec::new("kernel.copy", Span::UNKNOWN).operands([src, dst]));
    }

    /// A `kernel.generic` over `loops` (true: parallel), reading `inputs` and writing `outputs`
    /// at their maps; `body` gets one element of each operand and returns the outputs' elements.
    pub fn generic(
        &mut self,
        inputs: &[(ValueId, AffineMap)],
        outputs: &[(ValueId, AffineMap)],
        loops: Vec<bool>,
        body: impl FnOnce(&mut Self, &[ValueId]) -> OResult<Vec<ValueId>>,
    ) -> OResult<()> {
        let region = self.m.new_region();
        let block = self.m.append_block(region, Span::UNKNOWN);
        let args: Vec<ValueId> = inputs
            .iter()
            .chain(outputs)
            .map(|(v, _)| {
                let elem = (*self.m.ty(*v).as_memref().expect("a buffer").elem).clone();
                self.m.add_block_arg(block, elem, Span::UNKNOWN)
            })
            .collect();
        let saved = self.set_block(block);
        let results = body(self, &args);
        let results = match results {
            Ok(r) => r,
            Err(e) => {
                self.set_block(saved);
                return Err(e);
            }
        };
        self.op(OpSpec::new("kernel.yield", Span::UNKNOWN).operands(results));
        self.set_block(saved);
        let g = Generic {
            inputs: inputs.iter().map(|(v, _)| *v).collect(),
            outputs: outputs.iter().map(|(v, _)| *v).collect(),
            maps: inputs.iter().chain(outputs).map(|(_, m)| m.clone()).collect(),
            parallel: loops,
            body: region,
        };
        self.op(g.spec(Span::UNKNOWN));
        Ok(())
    }

    pub fn buf(&self, name: &str) -> OResult<ValueId> {
        self.buffers.get(name).copied().ok_or_else(|| OnnxError::tensor(name, "internal: the tensor has no buffer"))
    }
}

/// The identity map over `rank` loops.
pub fn identity(rank: usize) -> AffineMap {
    AffineMap {
        num_dims: rank as u32,
        num_symbols: 0,
        results: (0..rank).map(|d| xcc_ir::affine::AffineExpr::Dim(d as u32)).collect(),
    }
}

/// The map reading a tensor of `shape`, broadcast (numpy rules, right-aligned) into an iteration
/// space of `rank` loops: size-1 dims read index 0.
pub fn broadcast_map(shape: &[usize], out: &[usize]) -> AffineMap {
    use xcc_ir::affine::AffineExpr;
    let off = out.len() - shape.len();
    let results = shape
        .iter()
        .enumerate()
        .map(
            |(i, &d)| {
                if d == 1 && out[i + off] != 1 {
                    AffineExpr::Const(0)
                } else {
                    AffineExpr::Dim((i + off) as u32)
                }
            },
        )
        .collect();
    AffineMap { num_dims: out.len() as u32, num_symbols: 0, results }
}

/// The type arithmetic happens in: f16 tensors compute in f32.
pub fn compute_type(d: DType) -> Type {
    if matches!(d, DType::F16 | DType::BF16) {
        Type::f32()
    } else {
        d.ir_type()
    }
}

/// The f64 type, where operators compute what f32 would round too coarsely.
pub fn f64_type() -> Type {
    Type::Float(xcc_ir::types::FloatKind::F64)
}
