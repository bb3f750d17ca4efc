//! The ONNX IR protobuf schema (`onnx.proto`, `package onnx`, `syntax = "proto2"`), written out
//! by hand as `prost` messages: no build script and no `protoc`.
//!
//! Conventions, the same as `prost-build` would produce for a proto2 file:
//! - `optional` scalars and strings are `Option<T>`, so "absent" and "default" stay distinct;
//! - enum-typed fields hold the raw `i32` (`Option<i32>`), so unknown values from newer
//!   writers still decode; the enums below name the known values;
//! - a nested message or enum of `FooProto` lives in the module `foo_proto`;
//! - repeated numeric fields are unpacked on the wire unless the schema says `[packed = true]`
//!   (prost accepts both encodings when decoding either way).
//!
//! Tag numbers are part of the wire format and must never change.

/// Known IR versions; [`ModelProto::ir_version`] holds one of these numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum Version {
    StartVersion = 0,
    IrVersion20171010 = 1,
    IrVersion20171030 = 2,
    IrVersion2017113 = 3,
    IrVersion2019122 = 4,
    IrVersion2019318 = 5,
    IrVersion2019919 = 6,
    IrVersion202058 = 7,
    IrVersion2021730 = 8,
    IrVersion202355 = 9,
    IrVersion2024325 = 10,
    IrVersion20250512 = 11,
    IrVersion20250826 = 12,
    IrVersion20251106 = 13,
    IrVersion = 14,
}

/// Whether an operator or function is still allowed to change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum OperatorStatus {
    Experimental = 0,
    Stable = 1,
}

/// A named attribute of a node; `type` says which one of the value fields is meaningful.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// The attribute's name (required).
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Inside a function body: the name of the caller's attribute this one refers to.
    #[prost(string, optional, tag = "21")]
    pub ref_attr_name: Option<String>,
    #[prost(string, optional, tag = "13")]
    pub doc_string: Option<String>,
    /// An [`attribute_proto::AttributeType`] value.
    #[prost(enumeration = "attribute_proto::AttributeType", optional, tag = "20")]
    pub r#type: Option<i32>,
    #[prost(float, optional, tag = "2")]
    pub f: Option<f32>,
    #[prost(int64, optional, tag = "3")]
    pub i: Option<i64>,
    /// A string value, as bytes (UTF-8 by convention).
    #[prost(bytes = "vec", optional, tag = "4")]
    pub s: Option<Vec<u8>>,
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    #[prost(message, optional, tag = "6")]
    pub g: Option<GraphProto>,
    #[prost(message, optional, tag = "22")]
    pub sparse_tensor: Option<SparseTensorProto>,
    #[prost(message, optional, tag = "14")]
    pub tp: Option<TypeProto>,
    #[prost(float, repeated, packed = "false", tag = "7")]
    pub floats: Vec<f32>,
    #[prost(int64, repeated, packed = "false", tag = "8")]
    pub ints: Vec<i64>,
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
    #[prost(message, repeated, tag = "10")]
    pub tensors: Vec<TensorProto>,
    #[prost(message, repeated, tag = "11")]
    pub graphs: Vec<GraphProto>,
    #[prost(message, repeated, tag = "23")]
    pub sparse_tensors: Vec<SparseTensorProto>,
    #[prost(message, repeated, tag = "15")]
    pub type_protos: Vec<TypeProto>,
}

/// Types nested in [`AttributeProto`].
pub mod attribute_proto {
    /// Which value field of an attribute is in use.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum AttributeType {
        Undefined = 0,
        Float = 1,
        Int = 2,
        String = 3,
        Tensor = 4,
        Graph = 5,
        SparseTensor = 11,
        TypeProto = 13,
        Floats = 6,
        Ints = 7,
        Strings = 8,
        Tensors = 9,
        Graphs = 10,
        SparseTensors = 12,
        TypeProtos = 14,
    }
}

/// A named value with its (optional) type: graph inputs, outputs and intermediate values.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
    #[prost(string, optional, tag = "3")]
    pub doc_string: Option<String>,
    #[prost(message, repeated, tag = "4")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// One operator application in a graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Input value names; an empty name marks an omitted optional input.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    #[prost(string, optional, tag = "3")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub op_type: Option<String>,
    /// The operator set domain; absent or empty means the default ONNX domain.
    #[prost(string, optional, tag = "7")]
    pub domain: Option<String>,
    /// Selects one overload of a model-local function.
    #[prost(string, optional, tag = "8")]
    pub overload: Option<String>,
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
    #[prost(string, optional, tag = "6")]
    pub doc_string: Option<String>,
    #[prost(message, repeated, tag = "9")]
    pub metadata_props: Vec<StringStringEntryProto>,
    #[prost(message, repeated, tag = "10")]
    pub device_configurations: Vec<NodeDeviceConfigurationProto>,
}

/// A key with a list of integers (used by sharding specs).
#[derive(Clone, PartialEq, prost::Message)]
pub struct IntIntListEntryProto {
    #[prost(int64, optional, tag = "1")]
    pub key: Option<i64>,
    #[prost(int64, repeated, packed = "false", tag = "2")]
    pub value: Vec<i64>,
}

/// How one node is placed on a device configuration of the model.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeDeviceConfigurationProto {
    #[prost(string, optional, tag = "1")]
    pub configuration_id: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub sharding_spec: Vec<ShardingSpecProto>,
    #[prost(int32, optional, tag = "3")]
    pub pipeline_stage: Option<i32>,
}

/// How one tensor of a node is split across devices.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ShardingSpecProto {
    #[prost(string, optional, tag = "1")]
    pub tensor_name: Option<String>,
    #[prost(int64, repeated, packed = "false", tag = "2")]
    pub device: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub index_to_device_group_map: Vec<IntIntListEntryProto>,
    #[prost(message, repeated, tag = "4")]
    pub sharded_dim: Vec<ShardedDimProto>,
}

/// The sharding of one axis of a tensor.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ShardedDimProto {
    #[prost(int64, optional, tag = "1")]
    pub axis: Option<i64>,
    #[prost(message, repeated, tag = "2")]
    pub simple_sharding: Vec<SimpleShardedDimProto>,
}

/// A run of an axis split evenly into `num_shards` pieces.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SimpleShardedDimProto {
    #[prost(int64, optional, tag = "3")]
    pub num_shards: Option<i64>,
    #[prost(oneof = "simple_sharded_dim_proto::Dim", tags = "1, 2")]
    pub dim: Option<simple_sharded_dim_proto::Dim>,
}

/// Types nested in [`SimpleShardedDimProto`].
pub mod simple_sharded_dim_proto {
    /// The length of the sharded run: a number or a symbol.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Dim {
        #[prost(int64, tag = "1")]
        DimValue(i64),
        #[prost(string, tag = "2")]
        DimParam(String),
    }
}

/// Initialization and training steps stored alongside the inference graph.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TrainingInfoProto {
    #[prost(message, optional, tag = "1")]
    pub initialization: Option<GraphProto>,
    #[prost(message, optional, tag = "2")]
    pub algorithm: Option<GraphProto>,
    /// initializer name -> output of `initialization`.
    #[prost(message, repeated, tag = "3")]
    pub initialization_binding: Vec<StringStringEntryProto>,
    /// initializer name -> output of `algorithm`.
    #[prost(message, repeated, tag = "4")]
    pub update_binding: Vec<StringStringEntryProto>,
}

/// The top-level message of an `.onnx` file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// The IR version (see [`Version`]).
    #[prost(int64, optional, tag = "1")]
    pub ir_version: Option<i64>,
    /// The operator sets (domain, version) the graph's nodes bind against.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    #[prost(string, optional, tag = "2")]
    pub producer_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub producer_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub domain: Option<String>,
    #[prost(int64, optional, tag = "5")]
    pub model_version: Option<i64>,
    #[prost(string, optional, tag = "6")]
    pub doc_string: Option<String>,
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
    #[prost(message, repeated, tag = "20")]
    pub training_info: Vec<TrainingInfoProto>,
    /// Model-local functions, callable from nodes by (domain, name, overload).
    #[prost(message, repeated, tag = "25")]
    pub functions: Vec<FunctionProto>,
    #[prost(message, repeated, tag = "26")]
    pub configuration: Vec<DeviceConfigurationProto>,
}

/// A named set of devices a model can be distributed over.
#[derive(Clone, PartialEq, prost::Message)]
pub struct DeviceConfigurationProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub num_devices: Option<i32>,
    #[prost(string, repeated, tag = "3")]
    pub device: Vec<String>,
}

/// A key/value pair of strings (the schema's stand-in for a map entry).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

/// Quantization parameters attached to a tensor (e.g. its scale and zero-point tensors).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorAnnotation {
    #[prost(string, optional, tag = "1")]
    pub tensor_name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub quant_parameter_tensor_names: Vec<StringStringEntryProto>,
}

/// A computation graph: nodes (topologically sorted), constants, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// Named constant tensors; their names may also appear among the inputs.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "15")]
    pub sparse_initializer: Vec<SparseTensorProto>,
    #[prost(string, optional, tag = "10")]
    pub doc_string: Option<String>,
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
    /// Types of intermediate values (optional, e.g. from shape inference).
    #[prost(message, repeated, tag = "13")]
    pub value_info: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "14")]
    pub quantization_annotation: Vec<TensorAnnotation>,
    #[prost(message, repeated, tag = "16")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// A value of an optional type, or none (`onnx-data.proto`): how the ONNX node tests store an
/// optional input. Only the tensor case is read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OptionalProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(int32, optional, tag = "2")]
    pub elem_type: Option<i32>,
    #[prost(message, optional, tag = "3")]
    pub tensor_value: Option<TensorProto>,
}

/// A dense tensor value. Its data is in exactly one place: `raw_data` (little-endian,
/// fixed width), one of the typed `*_data` fields, or an external file (`data_location`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    pub dims: Vec<i64>,
    /// A [`tensor_proto::DataType`] value.
    #[prost(int32, optional, tag = "2")]
    pub data_type: Option<i32>,
    #[prost(message, optional, tag = "3")]
    pub segment: Option<tensor_proto::Segment>,
    /// float and complex64 elements.
    #[prost(float, repeated, packed = "true", tag = "4")]
    pub float_data: Vec<f32>,
    /// int32, int16, int8, uint16, uint8, bool and 16-bit float elements (one per entry).
    #[prost(int32, repeated, packed = "true", tag = "5")]
    pub int32_data: Vec<i32>,
    /// string elements.
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_data: Vec<Vec<u8>>,
    /// int64 elements.
    #[prost(int64, repeated, packed = "true", tag = "7")]
    pub int64_data: Vec<i64>,
    #[prost(string, optional, tag = "8")]
    pub name: Option<String>,
    #[prost(string, optional, tag = "12")]
    pub doc_string: Option<String>,
    #[prost(bytes = "vec", optional, tag = "9")]
    pub raw_data: Option<Vec<u8>>,
    /// `location`, `offset`, `length`, `checksum` of data stored outside the model.
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// A [`tensor_proto::DataLocation`] value.
    #[prost(enumeration = "tensor_proto::DataLocation", optional, tag = "14")]
    pub data_location: Option<i32>,
    /// double and complex128 elements.
    #[prost(double, repeated, packed = "true", tag = "10")]
    pub double_data: Vec<f64>,
    /// uint32 and uint64 elements.
    #[prost(uint64, repeated, packed = "true", tag = "11")]
    pub uint64_data: Vec<u64>,
    #[prost(message, repeated, tag = "16")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

/// Types nested in [`TensorProto`].
pub mod tensor_proto {
    /// Element types of tensors.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum DataType {
        Undefined = 0,
        Float = 1,
        Uint8 = 2,
        Int8 = 3,
        Uint16 = 4,
        Int16 = 5,
        Int32 = 6,
        Int64 = 7,
        String = 8,
        Bool = 9,
        Float16 = 10,
        Double = 11,
        Uint32 = 12,
        Uint64 = 13,
        Complex64 = 14,
        Complex128 = 15,
        Bfloat16 = 16,
        Float8e4m3fn = 17,
        Float8e4m3fnuz = 18,
        Float8e5m2 = 19,
        Float8e5m2fnuz = 20,
        Uint4 = 21,
        Int4 = 22,
        Float4e2m1 = 23,
        Float8e8m0 = 24,
        Uint2 = 25,
        Int2 = 26,
        Float6e2m3 = 27,
        Float6e3m2 = 28,
    }

    /// The element range `[begin, end)` a chunked tensor's message holds.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Segment {
        #[prost(int64, optional, tag = "1")]
        pub begin: Option<i64>,
        #[prost(int64, optional, tag = "2")]
        pub end: Option<i64>,
    }

    /// Where a tensor's data lives.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum DataLocation {
        /// In the message itself.
        Default = 0,
        /// In a file named by `external_data`.
        External = 1,
    }
}

/// A sparse tensor: `values` at `indices` of a dense tensor of shape `dims`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SparseTensorProto {
    /// The non-default values, shape `[NNZ]`.
    #[prost(message, optional, tag = "1")]
    pub values: Option<TensorProto>,
    /// Their positions: `[NNZ, rank]` coordinates or `[NNZ]` linear indices, ascending.
    #[prost(message, optional, tag = "2")]
    pub indices: Option<TensorProto>,
    #[prost(int64, repeated, packed = "false", tag = "3")]
    pub dims: Vec<i64>,
}

/// A tensor shape; each dimension is a number, a symbol, or unknown.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<tensor_shape_proto::Dimension>,
}

/// Types nested in [`TensorShapeProto`].
pub mod tensor_shape_proto {
    /// One dimension of a shape.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dimension {
        /// A standard name for the axis's meaning (e.g. `DATA_BATCH`).
        #[prost(string, optional, tag = "3")]
        pub denotation: Option<String>,
        /// `None` means the dimension is unknown.
        #[prost(oneof = "dimension::Value", tags = "1, 2")]
        pub value: Option<dimension::Value>,
    }

    /// Types nested in [`Dimension`].
    pub mod dimension {
        /// A dimension's size.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            /// A known size.
            #[prost(int64, tag = "1")]
            DimValue(i64),
            /// A symbolic size.
            #[prost(string, tag = "2")]
            DimParam(String),
        }
    }
}

/// The type of a value: a tensor, sequence, map, optional, sparse tensor or opaque type.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// A standard name for the value's meaning (e.g. `IMAGE`).
    #[prost(string, optional, tag = "6")]
    pub denotation: Option<String>,
    #[prost(oneof = "type_proto::Value", tags = "1, 4, 5, 9, 8, 7")]
    pub value: Option<type_proto::Value>,
}

/// Types nested in [`TypeProto`].
pub mod type_proto {
    /// A dense tensor type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tensor {
        /// A [`super::tensor_proto::DataType`] value.
        #[prost(int32, optional, tag = "1")]
        pub elem_type: Option<i32>,
        /// `None` means the rank is unknown.
        #[prost(message, optional, tag = "2")]
        pub shape: Option<super::TensorShapeProto>,
    }

    /// A sequence of values of one type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Sequence {
        #[prost(message, optional, boxed, tag = "1")]
        pub elem_type: Option<Box<super::TypeProto>>,
    }

    /// A map from an integer or string key type to values of one type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Map {
        /// A [`super::tensor_proto::DataType`] value (an integer type or string).
        #[prost(int32, optional, tag = "1")]
        pub key_type: Option<i32>,
        #[prost(message, optional, boxed, tag = "2")]
        pub value_type: Option<Box<super::TypeProto>>,
    }

    /// A value of one type, or nothing.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Optional {
        #[prost(message, optional, boxed, tag = "1")]
        pub elem_type: Option<Box<super::TypeProto>>,
    }

    /// A sparse tensor type.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct SparseTensor {
        /// A [`super::tensor_proto::DataType`] value.
        #[prost(int32, optional, tag = "1")]
        pub elem_type: Option<i32>,
        #[prost(message, optional, tag = "2")]
        pub shape: Option<super::TensorShapeProto>,
    }

    /// A type known only by (domain, name).
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Opaque {
        #[prost(string, optional, tag = "1")]
        pub domain: Option<String>,
        #[prost(string, optional, tag = "2")]
        pub name: Option<String>,
    }

    /// Which kind of type this is.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "1")]
        TensorType(Tensor),
        #[prost(message, tag = "4")]
        SequenceType(Sequence),
        #[prost(message, tag = "5")]
        MapType(Map),
        #[prost(message, tag = "9")]
        OptionalType(Optional),
        #[prost(message, tag = "8")]
        SparseTensorType(SparseTensor),
        #[prost(message, tag = "7")]
        OpaqueType(Opaque),
    }
}

/// An operator set reference: (domain, version).
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// Absent, `""` or `"ai.onnx"` name the default ONNX operator set.
    #[prost(string, optional, tag = "1")]
    pub domain: Option<String>,
    #[prost(int64, optional, tag = "2")]
    pub version: Option<i64>,
}

/// A model-local function: a named, parameterized body of nodes usable like an operator.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FunctionProto {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(string, repeated, tag = "4")]
    pub input: Vec<String>,
    #[prost(string, repeated, tag = "5")]
    pub output: Vec<String>,
    /// Names of attributes without default values.
    #[prost(string, repeated, tag = "6")]
    pub attribute: Vec<String>,
    /// Attributes with default values.
    #[prost(message, repeated, tag = "11")]
    pub attribute_proto: Vec<AttributeProto>,
    #[prost(message, repeated, tag = "7")]
    pub node: Vec<NodeProto>,
    #[prost(string, optional, tag = "8")]
    pub doc_string: Option<String>,
    #[prost(message, repeated, tag = "9")]
    pub opset_import: Vec<OperatorSetIdProto>,
    #[prost(string, optional, tag = "10")]
    pub domain: Option<String>,
    #[prost(string, optional, tag = "13")]
    pub overload: Option<String>,
    #[prost(message, repeated, tag = "12")]
    pub value_info: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "14")]
    pub metadata_props: Vec<StringStringEntryProto>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn s(x: &str) -> Option<String> {
        Some(x.to_string())
    }

    fn sample_model() -> ModelProto {
        use tensor_shape_proto::{dimension, Dimension};
        let dim = |v: dimension::Value| Dimension { value: Some(v), denotation: None };
        let tensor_type = |elem: tensor_proto::DataType, dims: Vec<Dimension>| TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(elem as i32),
                shape: Some(TensorShapeProto { dim: dims }),
            })),
            denotation: None,
        };
        let weight = TensorProto {
            dims: vec![2, 3],
            data_type: Some(tensor_proto::DataType::Float as i32),
            name: s("w"),
            raw_data: Some([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect()),
            ..Default::default()
        };
        let bias = TensorProto {
            dims: vec![3],
            data_type: Some(tensor_proto::DataType::Float as i32),
            name: s("b"),
            float_data: vec![0.5, -0.5, 0.0],
            ..Default::default()
        };
        let external = TensorProto {
            dims: vec![4],
            data_type: Some(tensor_proto::DataType::Int64 as i32),
            name: s("e"),
            data_location: Some(tensor_proto::DataLocation::External as i32),
            external_data: vec![
                StringStringEntryProto { key: s("location"), value: s("e.bin") },
                StringStringEntryProto { key: s("offset"), value: s("0") },
            ],
            ..Default::default()
        };
        let shape_const = TensorProto {
            dims: vec![2],
            data_type: Some(tensor_proto::DataType::Int64 as i32),
            int64_data: vec![-1, 3],
            ..Default::default()
        };
        let node = |op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>| NodeProto {
            input: inputs.iter().map(|x| x.to_string()).collect(),
            output: outputs.iter().map(|x| x.to_string()).collect(),
            name: s(&format!("{op}_0")),
            op_type: s(op),
            domain: s(""),
            attribute: attrs,
            ..Default::default()
        };
        use attribute_proto::AttributeType as A;
        let attr = |name: &str, ty: A| AttributeProto { name: s(name), r#type: Some(ty as i32), ..Default::default() };
        let then_branch = GraphProto {
            name: s("then"),
            node: vec![node("Identity", &["y"], &["z"], vec![])],
            output: vec![ValueInfoProto { name: s("z"), ..Default::default() }],
            ..Default::default()
        };
        let sequence_of_maps = TypeProto {
            value: Some(type_proto::Value::SequenceType(type_proto::Sequence {
                elem_type: Some(Box::new(TypeProto {
                    value: Some(type_proto::Value::MapType(type_proto::Map {
                        key_type: Some(tensor_proto::DataType::String as i32),
                        value_type: Some(Box::new(TypeProto {
                            value: Some(type_proto::Value::OptionalType(type_proto::Optional {
                                elem_type: Some(Box::new(tensor_type(tensor_proto::DataType::Float, vec![]))),
                            })),
                            denotation: None,
                        })),
                    })),
                    denotation: s("TENSOR"),
                })),
            })),
            denotation: None,
        };
        let graph = GraphProto {
            name: s("sample"),
            node: vec![
                node(
                    "Gemm",
                    &["x", "w", "b"],
                    &["y"],
                    vec![
                        AttributeProto { f: Some(1.5), ..attr("alpha", A::Float) },
                        AttributeProto { i: Some(1), ..attr("transB", A::Int) },
                    ],
                ),
                node(
                    "Reshape",
                    &["y", "shape", ""],
                    &["r"],
                    vec![
                        AttributeProto { ints: vec![1, -2, 1 << 40], ..attr("perm", A::Ints) },
                        AttributeProto { floats: vec![0.25, -1.0], ..attr("scales", A::Floats) },
                        AttributeProto { s: Some(b"NOTSET".to_vec()), ..attr("auto_pad", A::String) },
                        AttributeProto { strings: vec![b"a".to_vec(), vec![]], ..attr("names", A::Strings) },
                        AttributeProto { t: Some(shape_const.clone()), ..attr("value", A::Tensor) },
                        AttributeProto { g: Some(then_branch.clone()), ..attr("then_branch", A::Graph) },
                        AttributeProto { graphs: vec![then_branch], ..attr("branches", A::Graphs) },
                        AttributeProto { tp: Some(sequence_of_maps.clone()), ..attr("dtype", A::TypeProto) },
                        AttributeProto { ref_attr_name: s("outer"), ..attr("inner", A::Int) },
                    ],
                ),
            ],
            initializer: vec![weight, bias, external],
            sparse_initializer: vec![SparseTensorProto {
                values: Some(TensorProto {
                    dims: vec![2],
                    data_type: Some(1),
                    float_data: vec![7.0, 8.0],
                    name: s("sp"),
                    ..Default::default()
                }),
                indices: Some(TensorProto {
                    dims: vec![2],
                    data_type: Some(7),
                    int64_data: vec![0, 5],
                    ..Default::default()
                }),
                dims: vec![2, 3],
            }],
            input: vec![ValueInfoProto {
                name: s("x"),
                r#type: Some(tensor_type(
                    tensor_proto::DataType::Float,
                    vec![
                        dim(dimension::Value::DimParam("N".into())),
                        dim(dimension::Value::DimValue(2)),
                        Dimension::default(),
                    ],
                )),
                ..Default::default()
            }],
            output: vec![ValueInfoProto {
                name: s("r"),
                r#type: Some(tensor_type(tensor_proto::DataType::Float, vec![dim(dimension::Value::DimValue(3))])),
                doc_string: s("the result"),
                ..Default::default()
            }],
            value_info: vec![ValueInfoProto { name: s("seq"), r#type: Some(sequence_of_maps), ..Default::default() }],
            quantization_annotation: vec![TensorAnnotation {
                tensor_name: s("y"),
                quant_parameter_tensor_names: vec![StringStringEntryProto {
                    key: s("SCALE_TENSOR"),
                    value: s("y_scale"),
                }],
            }],
            ..Default::default()
        };
        ModelProto {
            ir_version: Some(Version::IrVersion202058 as i64),
            opset_import: vec![
                OperatorSetIdProto { domain: s(""), version: Some(17) },
                OperatorSetIdProto { domain: s("com.example"), version: Some(1) },
            ],
            producer_name: s("xcc-test"),
            producer_version: s("0"),
            model_version: Some(3),
            graph: Some(graph),
            metadata_props: vec![StringStringEntryProto { key: s("k"), value: None }],
            training_info: vec![TrainingInfoProto {
                algorithm: Some(GraphProto { name: s("step"), ..Default::default() }),
                update_binding: vec![StringStringEntryProto { key: s("w"), value: s("w_new") }],
                ..Default::default()
            }],
            functions: vec![FunctionProto {
                name: s("Twice"),
                domain: s("com.example"),
                input: vec!["a".into()],
                output: vec!["b".into()],
                attribute: vec!["k".into()],
                node: vec![node("Add", &["a", "a"], &["b"], vec![])],
                opset_import: vec![OperatorSetIdProto { domain: None, version: Some(17) }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn round_trips_a_model_built_in_rust() {
        let model = sample_model();
        let bytes = model.encode_to_vec();
        assert_eq!(bytes.len(), model.encoded_len());
        let back = ModelProto::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(back, model);
        // Absent optional fields stay absent; explicit defaults stay present.
        assert_eq!(back.doc_string, None);
        assert_eq!(back.graph.as_ref().unwrap().node[0].domain.as_deref(), Some(""));
        assert_eq!(back.metadata_props[0].value, None);
        assert_eq!(back.graph.as_ref().unwrap().input[0].r#type.as_ref().unwrap().value.as_ref().map(|_| ()), Some(()));
    }

    #[test]
    fn unknown_fields_and_enum_values_are_tolerated() {
        // A TensorProto with an unknown field 99 (varint), data_type 1000 and data_location 7.
        let mut bytes =
            TensorProto { dims: vec![1], data_type: Some(1000), data_location: Some(7), ..Default::default() }
                .encode_to_vec();
        bytes.extend_from_slice(&[0x98, 0x06, 0x01]); // tag (99 << 3 | 0) = 792 as a varint, value 1
        let t = TensorProto::decode(bytes.as_slice()).expect("decodes");
        assert_eq!(t.data_type, Some(1000));
        assert_eq!(t.data_location, Some(7));
        assert!(tensor_proto::DataLocation::try_from(7).is_err());
    }

    #[test]
    fn wire_format_of_proto2_scalars() {
        // Repeated int64 `dims` are unpacked (one key per element), as proto2 writes them.
        let t = TensorProto { dims: vec![2, 3], ..Default::default() };
        assert_eq!(t.encode_to_vec(), [0x08, 0x02, 0x08, 0x03]);
        // ...but packed input (as some writers emit) decodes too.
        let packed = [0x0a, 0x02, 0x02, 0x03];
        assert_eq!(TensorProto::decode(&packed[..]).unwrap().dims, [2, 3]);
        // `float_data` is declared packed: one length-delimited record.
        let t = TensorProto { float_data: vec![1.0, 2.0], ..Default::default() };
        let mut expect = vec![0x22, 0x08];
        expect.extend(1.0f32.to_le_bytes());
        expect.extend(2.0f32.to_le_bytes());
        assert_eq!(t.encode_to_vec(), expect);
        // An explicitly set default (0 / "") is written and read back as present.
        let d = tensor_shape_proto::Dimension {
            value: Some(tensor_shape_proto::dimension::Value::DimValue(0)),
            denotation: s(""),
        };
        let bytes = d.encode_to_vec();
        assert_eq!(bytes, [0x08, 0x00, 0x1a, 0x00]);
        assert_eq!(tensor_shape_proto::Dimension::decode(bytes.as_slice()).unwrap(), d);
        // Field numbers of the top-level model: ir_version = 1, graph = 7, opset_import = 8.
        let m = ModelProto {
            ir_version: Some(8),
            graph: Some(GraphProto::default()),
            opset_import: vec![OperatorSetIdProto { domain: None, version: Some(17) }],
            ..Default::default()
        };
        assert_eq!(m.encode_to_vec(), [0x08, 0x08, 0x3a, 0x00, 0x42, 0x02, 0x10, 0x11]);
    }
}
