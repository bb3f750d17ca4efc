//! ONNX model bytes -> decode -> import -> shape inference and constant folding -> fusion -> the
//! kernel-level module, which must verify. Any input may be rejected with an error; a panic, an
//! abort, a hang or an unbounded allocation is a finding, and so is an accepted model whose
//! module does not verify, and a compile that costs more time or memory than the input's size
//! allows (`xcc_fuzz::within_budget`).
//!
//! Byte-level mutations of a protobuf mostly break its framing, so three times in four the
//! mutator decodes the model and changes its structure instead (a dim, an element type, an
//! attribute, an operator, an input, the opset), which reaches shape inference and the
//! operators' rules with models that still decode.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};
use prost::Message;
use std::path::Path;
use xcc_frontend_onnx::proto::tensor_shape_proto::dimension::Value as Dim;
use xcc_frontend_onnx::proto::{type_proto, AttributeProto, GraphProto, ModelProto, ValueInfoProto};
use xcc_frontend_onnx::OnnxOptions;

#[global_allocator]
static ALLOCATOR: xcc_fuzz::CountingAllocator = xcc_fuzz::CountingAllocator;

fuzz_target!(|data: &[u8]| xcc_fuzz::within_budget(data.len(), || compile(data)));

fn compile(data: &[u8]) {
    let options = OnnxOptions {
        name: "m",
        shapes: Default::default(),
        binds: Default::default(),
        dims: Default::default(),
        progress: None,
        gpu: None,
        fold_budget: None,
    };
    let Ok((module, _)) = xcc_frontend_onnx::compile(data, Path::new("fuzz.onnx"), &options) else { return };
    if let Err(d) = xcc_ir::verifier::verify(&module) {
        panic!("an accepted model's module does not verify: {}", d.message);
    }
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    let mut rng = Rng(u64::from(seed) | 1 << 32);
    if rng.below(4) != 0 {
        if let Ok(mut model) = ModelProto::decode(&data[..size]) {
            if let Some(g) = model.graph.as_mut() {
                mutate(g, &mut model.opset_import, &mut rng);
                let bytes = model.encode_to_vec();
                if bytes.len() <= max_size {
                    data[..bytes.len()].copy_from_slice(&bytes);
                    return bytes.len();
                }
            }
        }
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
});

/// xorshift64: the mutation is a function of libFuzzer's seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    fn int(&mut self) -> i64 {
        self.pick(INTS)
    }
}

/// Integers at the edges: signs, zero, one, small sizes, and sizes whose arithmetic overflows.
const INTS: &[i64] = &[
    i64::MIN,
    -(1 << 31),
    -3,
    -2,
    -1,
    0,
    1,
    2,
    3,
    4,
    7,
    64,
    1 << 16,
    (1 << 31) - 1,
    1 << 31,
    1 << 40,
    1 << 62,
    i64::MAX,
];

/// `TensorProto.DataType` codes, the ones xcc reads and some it does not.
const ELEM_TYPES: &[i32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17];

/// Operators to swap in: xcc's, and some it does not have.
const OPS: &[&str] = &[
    "Add",
    "MatMul",
    "Gemm",
    "Conv",
    "ConvTranspose",
    "MaxPool",
    "AveragePool",
    "Reshape",
    "Transpose",
    "Concat",
    "Split",
    "Slice",
    "Gather",
    "GatherElements",
    "GatherND",
    "ScatterND",
    "Expand",
    "Tile",
    "Pad",
    "Resize",
    "ReduceSum",
    "ReduceMean",
    "Softmax",
    "LayerNormalization",
    "BatchNormalization",
    "Where",
    "Cast",
    "Range",
    "ConstantOfShape",
    "Shape",
    "Squeeze",
    "Unsqueeze",
    "Flatten",
    "TopK",
    "Trilu",
    "ArgMax",
    "Einsum",
    "LSTM",
];

const ATTRS: &[&str] =
    &["axis", "axes", "perm", "kernel_shape", "pads", "strides", "dilations", "group", "keepdims", "to", "k"];

fn mutate(g: &mut GraphProto, opsets: &mut [xcc_frontend_onnx::proto::OperatorSetIdProto], rng: &mut Rng) {
    match rng.below(9) {
        0 | 1 => mutate_value_info(g, rng),
        2 | 3 => mutate_attribute(g, rng),
        4 => {
            if let Some(n) = pick_mut(&mut g.node, rng) {
                n.op_type = Some(rng.pick(OPS).to_string());
            }
        }
        5 => mutate_node_inputs(g, rng),
        6 => {
            if let Some(o) = pick_mut(opsets, rng) {
                o.version = Some(1 + rng.below(26) as i64);
            }
        }
        7 => {
            if let Some(t) = pick_mut(&mut g.initializer, rng) {
                match rng.below(2) {
                    0 => {
                        if let Some(d) = pick_mut(&mut t.dims, rng) {
                            *d = rng.int();
                        }
                    }
                    _ => t.data_type = Some(rng.pick(ELEM_TYPES)),
                }
            }
        }
        _ => {
            if !g.node.is_empty() {
                let i = rng.below(g.node.len());
                if rng.below(2) == 0 {
                    let copy = g.node[i].clone();
                    g.node.push(copy);
                } else {
                    g.node.remove(i);
                }
            }
        }
    }
}

fn pick_mut<'a, T>(items: &'a mut [T], rng: &mut Rng) -> Option<&'a mut T> {
    if items.is_empty() {
        None
    } else {
        let i = rng.below(items.len());
        items.get_mut(i)
    }
}

/// A graph input's or output's element type or one of its dims.
fn mutate_value_info(g: &mut GraphProto, rng: &mut Rng) {
    let values: &mut Vec<ValueInfoProto> = if rng.below(3) == 0 { &mut g.output } else { &mut g.input };
    let Some(v) = pick_mut(values, rng) else { return };
    let Some(type_proto::Value::TensorType(t)) = v.r#type.as_mut().and_then(|t| t.value.as_mut()) else { return };
    match rng.below(4) {
        0 => t.elem_type = Some(rng.pick(ELEM_TYPES)),
        1 => {
            if let Some(shape) = t.shape.as_mut() {
                if rng.below(2) == 0 {
                    shape.dim.pop();
                } else {
                    shape.dim.push(Default::default());
                }
            }
        }
        _ => {
            if let Some(d) = t.shape.as_mut().and_then(|s| pick_mut(&mut s.dim, rng)) {
                d.value = Some(match rng.below(3) {
                    0 => Dim::DimParam(rng.pick(&["n", "batch", "", "seq"]).to_string()),
                    _ => Dim::DimValue(rng.int()),
                });
            }
        }
    }
}

/// A node's attribute: a value changed, its kind changed, or one added.
fn mutate_attribute(g: &mut GraphProto, rng: &mut Rng) {
    let Some(n) = pick_mut(&mut g.node, rng) else { return };
    if n.attribute.is_empty() || rng.below(3) == 0 {
        n.attribute.push(AttributeProto { name: Some(rng.pick(ATTRS).to_string()), ..Default::default() });
    }
    let a = pick_mut(&mut n.attribute, rng).expect("one at least");
    match rng.below(4) {
        0 => {
            a.i = Some(rng.int());
            a.r#type = Some(2);
        }
        1 => {
            let len = rng.below(6);
            a.ints = (0..len).map(|_| rng.int()).collect();
            a.r#type = Some(7);
        }
        2 => {
            if let Some(v) = pick_mut(&mut a.ints, rng) {
                *v = rng.int();
            }
        }
        _ => {
            a.f = Some(rng.pick(&[0.0, -1.0, f32::NAN, f32::INFINITY, 1e30]));
            a.r#type = Some(1);
        }
    }
}

/// A node's input renamed to another value of the graph, emptied, or one added or dropped.
fn mutate_node_inputs(g: &mut GraphProto, rng: &mut Rng) {
    let mut names: Vec<String> = g.input.iter().filter_map(|v| v.name.clone()).collect();
    names.extend(g.initializer.iter().filter_map(|t| t.name.clone()));
    names.extend(g.node.iter().flat_map(|n| n.output.iter().cloned()));
    names.push(String::new());
    let Some(n) = pick_mut(&mut g.node, rng) else { return };
    let name = names[rng.below(names.len())].clone();
    match rng.below(3) {
        0 => {
            if let Some(i) = pick_mut(&mut n.input, rng) {
                *i = name;
            }
        }
        1 => n.input.push(name),
        _ => {
            n.input.pop();
        }
    }
}
