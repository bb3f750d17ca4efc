//! The Core ML model schema, the parts xcc reads: the `Model` wrapper (`Model.proto`,
//! `package CoreML.Specification`, proto3) and the MIL `Program` of an ML Program
//! (`MIL.proto`, `package CoreML.Specification.MILSpec`), written out by hand as `prost`
//! messages from `../shared/specs/coreml-mil-program.txt`: no build script and no `protoc`.
//!
//! Tag numbers are part of the wire format and must never change. Maps are `BTreeMap`s so that
//! whatever is built from them comes out in one order. The wrapper's other model kinds are read
//! as bytes only to name them in the error that says xcc compiles ML Programs.

use std::collections::BTreeMap;

/// A `.mlmodel` file: the description of the features and one kind of model.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Model {
    #[prost(int32, tag = "1")]
    pub specification_version: i32,
    #[prost(message, optional, tag = "2")]
    pub description: Option<ModelDescription>,
    #[prost(message, optional, tag = "502")]
    pub ml_program: Option<Program>,
    /// The other kinds of model, kept as their bytes (see [`Model::kind`]).
    #[prost(bytes = "vec", optional, tag = "200")]
    pub pipeline_classifier: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "201")]
    pub pipeline_regressor: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "202")]
    pub pipeline: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "303")]
    pub neural_network_regressor: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "403")]
    pub neural_network_classifier: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "500")]
    pub neural_network: Option<Vec<u8>>,
}

impl Model {
    /// What kind of model this is, when it is not an ML Program (`None` when it is, or when the
    /// file holds no model kind xcc can name).
    pub fn other_kind(&self) -> Option<&'static str> {
        [
            (self.pipeline_classifier.is_some(), "a pipeline classifier"),
            (self.pipeline_regressor.is_some(), "a pipeline regressor"),
            (self.pipeline.is_some(), "a pipeline"),
            (self.neural_network_regressor.is_some(), "a NeuralNetwork regressor"),
            (self.neural_network_classifier.is_some(), "a NeuralNetwork classifier"),
            (self.neural_network.is_some(), "a NeuralNetwork (the format before ML Programs)"),
        ]
        .into_iter()
        .find_map(|(present, kind)| present.then_some(kind))
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelDescription {
    #[prost(message, repeated, tag = "1")]
    pub input: Vec<FeatureDescription>,
    #[prost(message, repeated, tag = "10")]
    pub output: Vec<FeatureDescription>,
    #[prost(string, tag = "11")]
    pub predicted_feature_name: String,
    #[prost(string, tag = "12")]
    pub predicted_probabilities_name: String,
    #[prost(message, optional, tag = "100")]
    pub metadata: Option<Metadata>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct FeatureDescription {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(string, tag = "2")]
    pub short_description: String,
    #[prost(message, optional, tag = "3")]
    pub r#type: Option<FeatureType>,
}

/// A feature's type; xcc reads which kind it is (the program's types give the tensors).
#[derive(Clone, PartialEq, prost::Message)]
pub struct FeatureType {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub int64_type: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub double_type: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub string_type: Option<Vec<u8>>,
    #[prost(message, optional, tag = "4")]
    pub image_type: Option<ImageFeatureType>,
    #[prost(message, optional, tag = "5")]
    pub multi_array_type: Option<ArrayFeatureType>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub dictionary_type: Option<Vec<u8>>,
}

/// A multi-array feature: its default shape, and the shapes it may take instead (a range per dim,
/// or a list of whole shapes).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayFeatureType {
    #[prost(int64, repeated, tag = "1")]
    pub shape: Vec<i64>,
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    #[prost(message, optional, tag = "21")]
    pub enumerated_shapes: Option<EnumeratedShapes>,
    #[prost(message, optional, tag = "31")]
    pub shape_range: Option<ShapeRange>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EnumeratedShapes {
    #[prost(message, repeated, tag = "1")]
    pub shapes: Vec<EnumeratedShape>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EnumeratedShape {
    #[prost(int64, repeated, tag = "1")]
    pub shape: Vec<i64>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ShapeRange {
    #[prost(message, repeated, tag = "1")]
    pub size_ranges: Vec<SizeRange>,
}

/// A dim's bounds; an upper bound of -1 is none.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SizeRange {
    #[prost(uint64, tag = "1")]
    pub lower_bound: u64,
    #[prost(int64, tag = "2")]
    pub upper_bound: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ImageFeatureType {
    #[prost(int64, tag = "1")]
    pub width: i64,
    #[prost(int64, tag = "2")]
    pub height: i64,
    /// 10 grayscale, 20 RGB, 30 BGR, 40 grayscale float16.
    #[prost(int32, tag = "3")]
    pub color_space: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Metadata {
    #[prost(string, tag = "1")]
    pub short_description: String,
    #[prost(string, tag = "2")]
    pub version_string: String,
    #[prost(string, tag = "3")]
    pub author: String,
    #[prost(string, tag = "4")]
    pub license: String,
    #[prost(btree_map = "string, string", tag = "100")]
    pub user_defined: BTreeMap<String, String>,
}

// ---- MIL ------------------------------------------------------------------------------------

/// The top-level container: functions by name (the entry point is `main`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Program {
    #[prost(int64, tag = "1")]
    pub version: i64,
    #[prost(btree_map = "string, message", tag = "2")]
    pub functions: BTreeMap<String, Function>,
    #[prost(string, tag = "3")]
    pub doc_string: String,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// A function: named, typed inputs and one block per opset specialization (`CoreML5`, ...).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    #[prost(string, tag = "2")]
    pub opset: String,
    #[prost(btree_map = "string, message", tag = "3")]
    pub block_specializations: BTreeMap<String, Block>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// A basic block in SSA form: its operations in topological order, then the names it returns.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Block {
    #[prost(message, repeated, tag = "1")]
    pub inputs: Vec<NamedValueType>,
    #[prost(string, repeated, tag = "2")]
    pub outputs: Vec<String>,
    #[prost(message, repeated, tag = "3")]
    pub operations: Vec<Operation>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

/// One parameter's bindings: usually one, a list for variadic parameters (`concat`'s values).
#[derive(Clone, PartialEq, prost::Message)]
pub struct Argument {
    #[prost(message, repeated, tag = "1")]
    pub arguments: Vec<argument::Binding>,
}

pub mod argument {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Binding {
        #[prost(oneof = "binding::Binding", tags = "1, 2")]
        pub binding: Option<binding::Binding>,
    }

    pub mod binding {
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Binding {
            /// A value by name: a function input or an earlier operation's output.
            #[prost(string, tag = "1")]
            Name(String),
            /// A value known when the program was written.
            #[prost(message, tag = "2")]
            Value(super::super::Value),
        }
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Operation {
    /// The operator (`conv`, `const`, ...).
    #[prost(string, tag = "1")]
    pub r#type: String,
    #[prost(btree_map = "string, message", tag = "2")]
    pub inputs: BTreeMap<String, Argument>,
    #[prost(message, repeated, tag = "3")]
    pub outputs: Vec<NamedValueType>,
    #[prost(message, repeated, tag = "4")]
    pub blocks: Vec<Block>,
    /// `name`, and a `const`'s `val`.
    #[prost(btree_map = "string, message", tag = "5")]
    pub attributes: BTreeMap<String, Value>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NamedValueType {
    #[prost(string, tag = "1")]
    pub name: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    #[prost(oneof = "value_type::Type", tags = "1, 2, 3, 4, 5")]
    pub r#type: Option<value_type::Type>,
}

pub mod value_type {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Type {
        #[prost(message, tag = "1")]
        TensorType(super::TensorType),
        #[prost(message, tag = "2")]
        ListType(Box<super::ListType>),
        #[prost(message, tag = "3")]
        TupleType(super::TupleType),
        #[prost(message, tag = "4")]
        DictionaryType(Box<super::DictionaryType>),
        /// A state (a model's mutable buffer), kept as bytes: xcc does not compile states.
        #[prost(bytes, tag = "5")]
        StateType(Vec<u8>),
    }
}

/// The element types of MIL (`DataType`).
pub mod data_type {
    pub const BOOL: i32 = 1;
    pub const STRING: i32 = 2;
    pub const FLOAT16: i32 = 10;
    pub const FLOAT32: i32 = 11;
    pub const FLOAT64: i32 = 12;
    pub const BFLOAT16: i32 = 13;
    pub const INT8: i32 = 21;
    pub const INT16: i32 = 22;
    pub const INT32: i32 = 23;
    pub const INT64: i32 = 24;
    pub const INT4: i32 = 25;
    pub const UINT8: i32 = 31;
    pub const UINT16: i32 = 32;
    pub const UINT32: i32 = 33;
    pub const UINT64: i32 = 34;
    pub const UINT4: i32 = 35;
    pub const UINT2: i32 = 36;
    pub const UINT1: i32 = 37;
    pub const UINT6: i32 = 38;
    pub const UINT3: i32 = 39;
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorType {
    /// A [`data_type`] code.
    #[prost(int32, tag = "1")]
    pub data_type: i32,
    #[prost(int64, tag = "2")]
    pub rank: i64,
    #[prost(message, repeated, tag = "3")]
    pub dimensions: Vec<Dimension>,
    #[prost(btree_map = "string, message", tag = "4")]
    pub attributes: BTreeMap<String, Value>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleType {
    #[prost(message, repeated, tag = "1")]
    pub types: Vec<ValueType>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ListType {
    #[prost(message, optional, tag = "1")]
    pub r#type: Option<ValueType>,
    #[prost(message, optional, tag = "2")]
    pub length: Option<Dimension>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct DictionaryType {
    #[prost(message, optional, tag = "1")]
    pub key_type: Option<ValueType>,
    #[prost(message, optional, tag = "2")]
    pub value_type: Option<ValueType>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Dimension {
    #[prost(oneof = "dimension::Dimension", tags = "1, 2")]
    pub dimension: Option<dimension::Dimension>,
}

pub mod dimension {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Dimension {
        #[prost(message, tag = "1")]
        Constant(ConstantDimension),
        #[prost(message, tag = "2")]
        Unknown(UnknownDimension),
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ConstantDimension {
        #[prost(uint64, tag = "1")]
        pub size: u64,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct UnknownDimension {
        #[prost(bool, tag = "1")]
        pub variadic: bool,
    }
}

/// A value known when the program was written: inline, or in a weights blob file.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Value {
    #[prost(string, tag = "1")]
    pub doc_string: String,
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<ValueType>,
    #[prost(oneof = "value::Value", tags = "3, 5")]
    pub value: Option<value::Value>,
}

pub mod value {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "3")]
        ImmediateValue(ImmediateValue),
        #[prost(message, tag = "5")]
        BlobFileValue(BlobFileValue),
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ImmediateValue {
        #[prost(oneof = "immediate_value::Value", tags = "1, 2, 3, 4")]
        pub value: Option<immediate_value::Value>,
    }

    pub mod immediate_value {
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            #[prost(message, tag = "1")]
            Tensor(super::super::TensorValue),
            #[prost(message, tag = "2")]
            Tuple(super::super::TupleValue),
            #[prost(message, tag = "3")]
            List(super::super::ListValue),
            /// A dictionary, kept as bytes: no operator xcc compiles takes one.
            #[prost(bytes, tag = "4")]
            Dictionary(Vec<u8>),
        }
    }

    /// Where a value's bytes are: the blob file (`@model_path/weights/weight.bin`) and the
    /// offset of the blob's metadata in it.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct BlobFileValue {
        #[prost(string, tag = "1")]
        pub file_name: String,
        #[prost(uint64, tag = "2")]
        pub offset: u64,
    }
}

/// A tensor's elements, in one of the forms below (`bytes` for the 8- and 16-bit types).
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorValue {
    #[prost(oneof = "tensor_value::Value", tags = "1, 2, 3, 4, 5, 6, 7")]
    pub value: Option<tensor_value::Value>,
}

pub mod tensor_value {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(message, tag = "1")]
        Floats(RepeatedFloats),
        #[prost(message, tag = "2")]
        Ints(RepeatedInts),
        #[prost(message, tag = "3")]
        Bools(RepeatedBools),
        #[prost(message, tag = "4")]
        Strings(RepeatedStrings),
        #[prost(message, tag = "5")]
        LongInts(RepeatedLongInts),
        #[prost(message, tag = "6")]
        Doubles(RepeatedDoubles),
        #[prost(message, tag = "7")]
        Bytes(RepeatedBytes),
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedFloats {
        #[prost(float, repeated, tag = "1")]
        pub values: Vec<f32>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedDoubles {
        #[prost(double, repeated, tag = "1")]
        pub values: Vec<f64>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedInts {
        #[prost(int32, repeated, tag = "1")]
        pub values: Vec<i32>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedLongInts {
        #[prost(int64, repeated, tag = "1")]
        pub values: Vec<i64>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBools {
        #[prost(bool, repeated, tag = "1")]
        pub values: Vec<bool>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedStrings {
        #[prost(string, repeated, tag = "1")]
        pub values: Vec<String>,
    }
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct RepeatedBytes {
        #[prost(bytes = "vec", tag = "1")]
        pub values: Vec<u8>,
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TupleValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ListValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<Value>,
}
