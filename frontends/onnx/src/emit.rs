//! Loop generation: the inferred, folded graph becomes one `func.func @NAME_run` in the standard
//! dialect (scf loops over memrefs, arith and math), which then goes down the same backbone as
//! MLIR input.
//!
//! Memory: inputs and outputs are the caller's buffers; weights are `memref.global` constants in
//! read-only data; every intermediate is a `memref.view` into one workspace whose layout is
//! planned here from liveness (first-fit over the tensors alive at each node), so a run does no
//! heap allocation and two threads with two workspaces can run concurrently.

use super::graph::*;
use super::ops;
use std::collections::HashMap;
use xcc_ir::attributes::DenseValues;
use xcc_ir::types::{FunctionType, MemRefType};
use xcc_ir::{Attribute, BlockId, Module, OpSpec, Span, Type, ValueId};
pub use xcc_lowering::builder::LoopBuilder;
use xcc_lowering::conversion::memref_descriptor::MemRefDescriptor;

/// The workspace entry holding a node's scratch space.
pub fn scratch_name(n: &Node) -> String {
    format!("{}#scratch", n.outputs[0])
}

/// What the C header describes.
#[derive(Clone, Debug)]
pub struct ModelInterface {
    pub name: String,
    pub inputs: Vec<(String, TensorType)>,
    pub outputs: Vec<(String, TensorType)>,
    pub workspace_bytes: usize,
}

pub struct Emitter {
    pub m: Module,
    pub block: BlockId,
    pub buffers: HashMap<String, ValueId>,
    globals: usize,
    prefix: String,
}

pub fn memref_type(t: &TensorType) -> Type {
    Type::MemRef(MemRefType {
        shape: t.shape.iter().map(|&d| Some(d as u64)).collect(),
        elem: Box::new(t.dtype.ir_type()),
        layout: xcc_ir::types::Layout::Identity,
        memory_space: None,
    })
}

const ALIGN: usize = 64;

/// Byte offsets in the workspace for each intermediate tensor: a tensor occupies its range from
/// the node defining it to its last use.
fn plan_workspace(
    g: &Graph,
    intermediates: &[String],
    scratch: &HashMap<String, (usize, usize)>,
) -> (HashMap<String, usize>, usize) {
    let mut def = HashMap::new();
    let mut last = HashMap::new();
    for (name, &(node, _)) in scratch {
        def.insert(name.clone(), node);
        last.insert(name.clone(), node);
    }
    for (i, n) in g.nodes.iter().enumerate() {
        for o in &n.outputs {
            def.insert(o.clone(), i);
            last.insert(o.clone(), i);
        }
        for x in &n.inputs {
            if last.contains_key(x) {
                last.insert(x.clone(), i);
            }
        }
    }
    let mut order: Vec<&String> = intermediates.iter().collect();
    order.sort_by_key(|t| def[*t]);
    let mut placed: Vec<(usize, usize, usize)> = Vec::new(); // offset, size, last use
    let mut offsets = HashMap::new();
    let mut total = 0;
    for t in order {
        let bytes = scratch.get(t).map(|s| s.1).unwrap_or_else(|| g.types[t].bytes());
        let size = bytes.div_ceil(ALIGN) * ALIGN;
        let d = def[t];
        let active: Vec<(usize, usize)> = placed.iter().filter(|p| p.2 >= d).map(|p| (p.0, p.0 + p.1)).collect();
        let mut candidates: Vec<usize> = std::iter::once(0).chain(active.iter().map(|a| a.1)).collect();
        candidates.sort();
        let offset =
            candidates.into_iter().find(|&o| active.iter().all(|&(s, e)| o + size <= s || o >= e)).unwrap_or(0);
        placed.push((offset, size, last[t]));
        offsets.insert(t.clone(), offset);
        total = total.max(offset + size);
    }
    (offsets, total)
}

pub fn generate(g: &Graph, name: &str) -> OResult<(Module, ModelInterface)> {
    let mut m = Module::new();
    let top = m.body_block();
    let span = Span::UNKNOWN;
    let inputs: Vec<(String, TensorType)> = g.inputs.iter().map(|i| (i.clone(), g.types[i].clone())).collect();
    let outputs: Vec<(String, TensorType)> =
        g.outputs.iter().map(|o| Ok((o.clone(), g.ty(o)?.clone()))).collect::<OResult<_>>()?;

    let produced: Vec<String> =
        g.nodes.iter().flat_map(|n| n.outputs.iter().filter(|o| !o.is_empty()).cloned()).collect();
    let mut intermediates: Vec<String> = produced.iter().filter(|t| !g.outputs.contains(t)).cloned().collect();
    // Scratch space some nodes need while they run (im2col columns), planned like a tensor that
    // lives only during its node.
    let mut scratch: HashMap<String, (usize, usize)> = HashMap::new();
    for (i, n) in g.nodes.iter().enumerate() {
        if let Some(bytes) = ops::gemm::scratch_bytes(n, g) {
            scratch.insert(scratch_name(n), (i, bytes));
            intermediates.push(scratch_name(n));
        }
    }
    let (offsets, ws_bytes) = plan_workspace(g, &intermediates, &scratch);

    let n_params = inputs.len() + outputs.len() + 1;
    let run_ty = FunctionType { inputs: vec![Type::ptr(); n_params], results: vec![Type::i32()] };
    let region = m.new_region();
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_run")))
            .attr("function_type", Attribute::Type(Type::Function(run_ty)))
            .region(region),
    );
    let entry = m.append_block(region, span);
    let params: Vec<ValueId> = (0..n_params).map(|_| m.add_block_arg(entry, Type::ptr(), span)).collect();
    let mut e = Emitter { m, block: entry, buffers: HashMap::new(), globals: 0, prefix: name.to_string() };

    for (k, (n, t)) in inputs.iter().chain(outputs.iter()).enumerate() {
        let v = e.memref_from_ptr(params[k], t);
        e.buffers.entry(n.clone()).or_insert(v);
    }
    let ws_ty = TensorType { dtype: DType::U8, shape: vec![ws_bytes.max(1)] };
    let ws = e.memref_from_ptr(params[n_params - 1], &ws_ty);
    for t in &intermediates {
        let off = e.idx(offsets[t] as i64);
        let ty = match scratch.get(t) {
            Some(&(_, bytes)) => memref_type(&TensorType { dtype: DType::F32, shape: vec![bytes.div_ceil(4)] }),
            None => memref_type(&g.types[t]),
        };
        let v = e.value_op("memref.view", &[ws, off], ty);
        e.buffers.insert(t.clone(), v);
    }
    for node in &g.nodes {
        for x in node.inputs.iter().filter(|x| !x.is_empty()) {
            if !e.buffers.contains_key(x) {
                let t =
                    g.consts.get(x).ok_or_else(|| OnnxError::msg(format!("internal: tensor '{x}' has no buffer")))?;
                let v = e.global(t);
                e.buffers.insert(x.clone(), v);
            }
        }
        e.emit_node(node, g).map_err(|err| err.in_node(&node))?;
    }
    // Outputs that are constants or inputs (no node writes them).
    for (o, t) in &outputs {
        if !produced.contains(o) {
            let src = match g.consts.get(o) {
                Some(c) => e.global(c),
                None => e.buffers[&g.inputs[g.inputs.iter().position(|i| i == o).expect("an input")]],
            };
            let dst = e.memref_from_ptr(params[inputs.len() + outputs.iter().position(|x| &x.0 == o).unwrap()], t);
            e.copy(src, dst, t);
        }
    }
    let zero = e.const_int(0, Type::i32());
    let ret = OpSpec::new("func.return", span).operands([zero]);
    e.m.build(e.block, ret);

    // NAME_workspace_size() and NAME_run_alloc(...), which allocates the workspace itself.
    let mut m = e.m;
    let i64t = Type::i64();
    let region = m.new_region();
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_workspace_size")))
            .attr(
                "function_type",
                Attribute::Type(Type::Function(FunctionType { inputs: vec![], results: vec![i64t.clone()] })),
            )
            .region(region),
    );
    let b = m.append_block(region, span);
    let c = m.build(
        b,
        OpSpec::new("arith.constant", span)
            .results([i64t.clone()])
            .attr("value", Attribute::int(ws_bytes as i128, i64t.clone())),
    );
    let c = m.result(c, 0);
    m.build(b, OpSpec::new("func.return", span).operands([c]));

    // NAME_run_alloc: the workspace from memref.alloc (runtime-c's xcc_alloc once lowered),
    // passed to NAME_run by its address, then freed.
    let region = m.new_region();
    let alloc_ty = FunctionType { inputs: vec![Type::ptr(); n_params - 1], results: vec![Type::i32()] };
    m.build(
        top,
        OpSpec::new("func.func", span)
            .attr("sym_name", Attribute::String(format!("{name}_run_alloc")))
            .attr("function_type", Attribute::Type(Type::Function(alloc_ty)))
            .region(region),
    );
    let b = m.append_block(region, span);
    let args: Vec<ValueId> = (0..n_params - 1).map(|_| m.add_block_arg(b, Type::ptr(), span)).collect();
    let ws_type = memref_type(&TensorType { dtype: DType::U8, shape: vec![ws_bytes.max(1)] });
    let ws = m.build(
        b,
        OpSpec::new("memref.alloc", span)
            .results([ws_type])
            .attr("alignment", Attribute::i64(ALIGN as i64))
            .attr("operandSegmentSizes", xcc_ir::parser::forms::segment_sizes(&[0, 0])),
    );
    let ws = m.result(ws, 0);
    let addr =
        m.build(b, OpSpec::new("memref.extract_aligned_pointer_as_index", span).operands([ws]).results([Type::Index]));
    let addr = m.result(addr, 0);
    let addr = m.build(b, OpSpec::new("arith.index_cast", span).operands([addr]).results([i64t.clone()]));
    let addr = m.result(addr, 0);
    let wsp = m.build(b, OpSpec::new("llvm.inttoptr", span).operands([addr]).results([Type::ptr()]));
    let wsp = m.result(wsp, 0);
    let mut call_args = args.clone();
    call_args.push(wsp);
    let rc = m.build(
        b,
        OpSpec::new("func.call", span)
            .operands(call_args)
            .results([Type::i32()])
            .attr("callee", Attribute::symbol(format!("{name}_run"))),
    );
    let rc = m.result(rc, 0);
    m.build(b, OpSpec::new("memref.dealloc", span).operands([ws]));
    m.build(b, OpSpec::new("func.return", span).operands([rc]));

    Ok((m, ModelInterface { name: name.to_string(), inputs, outputs, workspace_bytes: ws_bytes }))
}

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
    /// A constant of `dtype`'s compute type (f16 computes in f32).
    pub fn const_of(&mut self, v: f64, dtype: DType) -> ValueId {
        let t = compute_type(dtype);
        if dtype.is_float() {
            self.const_float(v, t)
        } else {
            self.const_int(v as i128, t)
        }
    }

    /// A memref descriptor over a raw pointer: contiguous, row-major, offset 0.
    /// A memref over a raw pointer (an input, output or the workspace): contiguous, row-major,
    /// offset 0, built with the conversion's own descriptor helper.
    fn memref_from_ptr(&mut self, p: ValueId, t: &TensorType) -> ValueId {
        let mt = match memref_type(t) {
            Type::MemRef(mt) => mt,
            _ => unreachable!("a memref type"),
        };
        let block = self.block;
        let mut b = xcc_lowering::builder::Builder::at_end(&mut self.m, block, Span::UNKNOWN);
        let d = MemRefDescriptor::from_pointers(&mut b, p, p, &mt, &[]);
        self.value_op("builtin.unrealized_conversion_cast", &[d.value], Type::MemRef(mt))
    }

    /// A read-only global holding data computed at compile time (e.g. repacked weights).
    pub fn constant_buffer(&mut self, t: &Tensor) -> ValueId {
        self.global(t)
    }

    /// A read-only global holding a constant tensor.
    fn global(&mut self, t: &Tensor) -> ValueId {
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

    /// Copies `src` into `dst` element by element in row-major order (same element count).
    pub fn copy(&mut self, src: ValueId, dst: ValueId, t: &TensorType) {
        let src_shape: Vec<usize> =
            self.m.ty(src).as_memref().unwrap().shape.iter().map(|d| d.unwrap() as usize).collect();
        let dst_shape: Vec<usize> =
            self.m.ty(dst).as_memref().unwrap().shape.iter().map(|d| d.unwrap() as usize).collect();
        let n = t.numel();
        self.for_loop(0, n, |e, i| {
            let si = e.unflatten(i, &src_shape);
            let di = e.unflatten(i, &dst_shape);
            let v = e.load(src, &si);
            e.store(v, dst, &di);
        });
    }

    pub fn buf(&self, name: &str) -> OResult<ValueId> {
        self.buffers
            .get(name)
            .copied()
            .ok_or_else(|| OnnxError::msg(format!("internal: tensor '{name}' has no buffer")))
    }

    fn emit_node(&mut self, node: &Node, g: &Graph) -> OResult<()> {
        let op = node.op.as_str();
        if ops::elementwise::unary_kind(op).is_some()
            || ops::elementwise::is_binary(op)
            || ops::elementwise::is_variadic(op)
        {
            self.emit_elementwise(node, g)
        } else if ops::tensor::OPS.contains(&op) {
            self.emit_data_movement(node, g)
        } else if ops::reduce::OPS.contains(&op) {
            self.emit_reduce(node, g)
        } else if ops::resize::OPS.contains(&op) {
            self.emit_resize(node, g)
        } else {
            self.emit_nn(node, g)
        }
    }
}

/// The type arithmetic happens in: f16 tensors compute in f32.
pub fn compute_type(d: DType) -> Type {
    if d == DType::F16 {
        Type::f32()
    } else {
        d.ir_type()
    }
}
