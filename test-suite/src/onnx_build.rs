//! Building small ONNX models in tests with the protobuf structs of `xcc_frontend_onnx::proto`.

use prost::Message;
use xcc_frontend_onnx::proto::{
    attribute_proto, tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

pub const FLOAT: i32 = 1;
/// TensorProto.DataType INT64.
pub const INT64: i32 = 7;
/// TensorProto.DataType DOUBLE.
pub const DOUBLE: i32 = 11;
/// TensorProto.DataType STRING.
pub const STRING: i32 = 8;
/// TensorProto.DataType BOOL.
pub const BOOL: i32 = 9;

pub fn value(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem),
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|&d| tensor_shape_proto::Dimension {
                            value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
                            ..Default::default()
                        })
                        .collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub fn node(name: &str, op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        name: Some(name.into()),
        op_type: Some(op.into()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// Adds an INTS attribute.
pub fn with_ints(mut n: NodeProto, name: &str, values: &[i64]) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Ints as i32),
        ints: values.to_vec(),
        ..Default::default()
    });
    n
}

/// Adds an INT attribute.
pub fn with_int(mut n: NodeProto, name: &str, value: i64) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(value),
        ..Default::default()
    });
    n
}

/// Adds a GRAPH attribute (a Loop's or Scan's body, an If's branch).
pub fn with_graph(mut n: NodeProto, name: &str, graph: GraphProto) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Graph as i32),
        g: Some(graph),
        ..Default::default()
    });
    n
}

/// Adds a FLOATS attribute.
pub fn with_floats(mut n: NodeProto, name: &str, values: &[f32]) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Floats as i32),
        floats: values.to_vec(),
        ..Default::default()
    });
    n
}

/// Adds a FLOAT attribute.
pub fn with_float(mut n: NodeProto, name: &str, value: f32) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Float as i32),
        f: Some(value),
        ..Default::default()
    });
    n
}

/// `y = Relu(x)` over `x: float[n]`, the smallest model there is.
pub fn relu_model(n: i64) -> Vec<u8> {
    model(
        vec![node("relu0", "Relu", &["x"], &["y"])],
        vec![value("x", FLOAT, &[n])],
        vec![value("y", FLOAT, &[n])],
        vec![],
    )
}

pub fn model(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    inits: Vec<TensorProto>,
) -> Vec<u8> {
    ModelProto {
        ir_version: Some(8),
        opset_import: vec![OperatorSetIdProto { domain: Some(String::new()), version: Some(17) }],
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            initializer: inits,
            input: inputs,
            output: outputs,
            ..Default::default()
        }),
        ..Default::default()
    }
    .encode_to_vec()
}

/// [`model`] importing more domains: `(domain, version)` besides the default opset 17.
pub fn model_with_domains(
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    domains: &[(&str, i64)],
) -> Vec<u8> {
    let mut m = ModelProto::decode(model(nodes, inputs, outputs, vec![]).as_slice()).expect("just encoded");
    for &(domain, version) in domains {
        m.opset_import.push(OperatorSetIdProto { domain: Some(domain.into()), version: Some(version) });
    }
    m.encode_to_vec()
}

pub fn floats(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(FLOAT),
        float_data: values.to_vec(),
        ..Default::default()
    }
}

/// Deterministic pseudo-random values in [-1, 1).
pub fn pseudo_random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// An input of dims `dims`: numbers are fixed dims, names are symbolic ones.
pub fn symbolic(name: &str, elem: i32, dims: &[&str]) -> ValueInfoProto {
    let mut v = value(name, elem, &vec![1; dims.len()]);
    if let Some(type_proto::Value::TensorType(t)) = v.r#type.as_mut().and_then(|t| t.value.as_mut()) {
        for (d, p) in t.shape.as_mut().unwrap().dim.iter_mut().zip(dims) {
            d.value = Some(match p.parse::<i64>() {
                Ok(n) => tensor_shape_proto::dimension::Value::DimValue(n),
                Err(_) => tensor_shape_proto::dimension::Value::DimParam(p.to_string()),
            });
        }
    }
    v
}

/// An INT64 initializer.
pub fn int64s(name: &str, dims: &[i64], values: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(INT64),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// Adds a STRING attribute.
pub fn with_string(mut n: NodeProto, name: &str, value: &str) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::String as i32),
        s: Some(value.as_bytes().to_vec()),
        ..Default::default()
    });
    n
}

/// Adds a STRINGS attribute.
pub fn with_strings(mut n: NodeProto, name: &str, values: &[&str]) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Strings as i32),
        strings: values.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..Default::default()
    });
    n
}

/// A STRING initializer.
pub fn strings(name: &str, dims: &[i64], values: &[&str]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: dims.to_vec(),
        data_type: Some(STRING),
        string_data: values.iter().map(|s| s.as_bytes().to_vec()).collect(),
        ..Default::default()
    }
}

/// A model's bytes with `domain` imported at `version` (the default domain's replaced).
pub fn with_opset(bytes: &[u8], domain: &str, version: i64) -> Vec<u8> {
    let mut m = ModelProto::decode(bytes).expect("a model");
    m.opset_import.retain(|o| o.domain.as_deref().unwrap_or("") != domain);
    m.opset_import.push(OperatorSetIdProto { domain: Some(domain.into()), version: Some(version) });
    m.encode_to_vec()
}

/// An input of optional type holding a tensor of `elem` and `dims`.
pub fn optional(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    let mut v = value(name, elem, dims);
    let tensor = v.r#type.take().expect("a type");
    v.r#type = Some(TypeProto {
        value: Some(type_proto::Value::OptionalType(type_proto::Optional { elem_type: Some(Box::new(tensor)) })),
        ..Default::default()
    });
    v
}
