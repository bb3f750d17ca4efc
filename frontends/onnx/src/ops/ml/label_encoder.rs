//! LabelEncoder: each element looked up among `keys` and replaced by the value at the same
//! position, or by the default where it is not a key. Keys and values are strings, int64s,
//! floats, or tensors of any of xcc's types (opset 4); a float NaN key matches a NaN. String
//! keys are found by runtime-c's `xcc_string_find`, numeric ones by a scan of the keys; string
//! values are the library's constant strings.

use crate::emit::{runtime_call, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::string::{bytes_address, c_string};
use crate::ops::OnnxOp;
use crate::strings;
use xcc_ir::builder::Extent;
use xcc_ir::{Type, ValueId};

pub struct LabelEncoder;

/// A 1-D constant from the `{kind}_strings`, `{kind}_int64s`, `{kind}_floats` or `{kind}_tensor`
/// attribute.
fn list(node: &Node, kind: &str) -> OResult<Tensor> {
    let a = &node.attrs;
    if let Some(Attr::Strs(v)) = a.get(&format!("{kind}_strings")) {
        let v: Vec<Vec<u8>> = v.iter().map(|s| s.as_bytes().to_vec()).collect();
        return Ok(strings::tensor(vec![v.len()], &v));
    }
    if let Some(Attr::Ints(v)) = a.get(&format!("{kind}_int64s")) {
        return Ok(Tensor::from_i64(vec![v.len()], v));
    }
    if let Some(Attr::Floats(v)) = a.get(&format!("{kind}_floats")) {
        let v: Vec<f64> = v.iter().map(|&f| f as f64).collect();
        return Ok(Tensor::from_f64(DType::F32, vec![v.len()], &v));
    }
    if let Some(Attr::Tensor(t)) = a.get(&format!("{kind}_tensor")) {
        let n = t.ty.numel();
        return Ok(Tensor { ty: TensorType::new(t.ty.dtype, vec![n]), data: t.data.clone() });
    }
    err(format!("LabelEncoder needs {kind}_strings, {kind}_int64s, {kind}_floats or {kind}_tensor"))
}

/// The value for a missing key, of the values' type: `default_tensor`, or the typed attribute
/// with ONNX's defaults ("_Unused"; -1 for integers, default_int64; -0.0 for reals).
fn default(node: &Node, dtype: DType) -> OResult<Tensor> {
    if let Some(Attr::Tensor(t)) = node.attrs.get("default_tensor") {
        if t.ty.dtype != dtype || t.ty.numel() != 1 {
            return err(format!("LabelEncoder's default_tensor must be one {} value", dtype.name()));
        }
        return Ok(Tensor { ty: TensorType::new(dtype, vec![]), data: t.data.clone() });
    }
    Ok(match dtype {
        DType::Str => {
            strings::tensor(vec![], &[node.string("default_string").unwrap_or("_Unused").as_bytes().to_vec()])
        }
        d if d.is_real() => Tensor::from_f64(d, vec![], &[node.float("default_float", -0.0) as f64]),
        // An integer type's default is default_int64 (-1), whatever its width (values_tensor).
        d => Tensor::from_f64(d, vec![], &[node.int("default_int64", -1) as f64]),
    })
}

impl OnnxOp for LabelEncoder {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let x = g.ty(&node.inputs[0])?;
        let (keys, values) = (list(node, "keys")?, list(node, "values")?);
        if keys.ty.dtype != x.dtype {
            return err(format!(
                "LabelEncoder's keys are {}, its input '{}' {}",
                keys.ty.dtype.name(),
                node.inputs[0],
                x.dtype.name()
            ));
        }
        if keys.ty.numel() == 0 {
            return err("LabelEncoder needs at least one key");
        }
        if keys.ty.numel() != values.ty.numel() {
            return err(format!("LabelEncoder has {} keys and {} values", keys.ty.numel(), values.ty.numel()));
        }
        default(node, values.ty.dtype)?;
        Ok(vec![TensorType::with_dims(values.ty.dtype, x.dims())])
    }

    fn takes_run_time_dims(&self) -> bool {
        true
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let xt = g.ty(&node.inputs[0])?.clone();
        let (keys, values) = (list(node, "keys")?, list(node, "values")?);
        let vt = values.ty.dtype;
        let fallback = default(node, vt)?;
        let (x, y) = (e.buf(&node.inputs[0])?, e.buf(&node.outputs[0])?);
        let (x, y) = if xt.shape.is_empty() { (x, y) } else { (e.flat(x), e.flat(y)) };
        let n = Dim::product(&xt.dims());
        let n = e.dim_extent(&n);
        let lookup = Lookup::new(e, &keys);
        let table =
            if vt == DType::Str { crate::ops::string::constant(e, &values) } else { e.constant_buffer(&values) };
        let fallback = match vt {
            DType::Str => c_string(e, &strings::values(&fallback)[0]),
            d => e.const_of(fallback.to_f64()[0], d),
        };
        let rank = xt.shape.len().min(1);
        e.for_loop_over(n, |e, i| {
            let idx = crate::ops::string::at(rank, i);
            let v = e.load(x, &idx);
            let k = lookup.find(e, v);
            let zero = e.const_int(0, Type::i64());
            let found = e.cmpi("sge", k, zero);
            let k = e.value_op("arith.select", &[found, k, zero], Type::i64());
            let k = e.value_op("arith.index_cast", &[k], Type::Index);
            let hit = e.load(table, &[k]);
            let hit = e.widen_f16(hit);
            let ty = e.ty(hit).clone();
            let r = e.value_op("arith.select", &[found, hit, fallback], ty);
            let r = e.narrow_to(r, &vt.ir_type());
            e.store(r, y, &idx);
        });
        Ok(())
    }
}

/// How an element's key is found: its position (an i64), or -1.
enum Lookup {
    Strings { list: ValueId, count: ValueId },
    Numbers { keys: ValueId, count: usize, float: bool },
}

impl Lookup {
    fn new(e: &mut Emitter, keys: &Tensor) -> Lookup {
        if keys.ty.dtype == DType::Str {
            let list = bytes_address(e, &strings::joined(&strings::values(keys)));
            let count = e.const_int(keys.ty.numel() as i128, Type::i64());
            return Lookup::Strings { list, count };
        }
        let buf = e.constant_buffer(keys);
        Lookup::Numbers { keys: buf, count: keys.ty.numel(), float: keys.ty.dtype.is_float() }
    }

    /// The first position whose key is `x`, or -1.
    fn find(&self, e: &mut Emitter, x: ValueId) -> ValueId {
        match *self {
            Lookup::Strings { list, count } => runtime_call(e, "xcc_string_find", &[x, list, count], Type::i64()),
            Lookup::Numbers { keys, count, float } => {
                let x = e.widen_f16(x);
                let none = e.const_int(-1, Type::i64());
                e.for_acc_over(Extent::Fixed(count), none, |e, j, first| {
                    let key = e.load(keys, &[j]);
                    let key = e.widen_f16(key);
                    let same = if float {
                        let equal = e.cmpf("oeq", x, key);
                        let both_nan = {
                            let (a, b) = (e.cmpf("uno", x, x), e.cmpf("uno", key, key));
                            e.value_op("arith.andi", &[a, b], Type::i1())
                        };
                        e.value_op("arith.ori", &[equal, both_nan], Type::i1())
                    } else {
                        e.cmpi("eq", x, key)
                    };
                    let zero = e.const_int(0, Type::i64());
                    let unset = e.cmpi("slt", first, zero);
                    let take = e.value_op("arith.andi", &[same, unset], Type::i1());
                    let j = e.value_op("arith.index_cast", &[j], Type::i64());
                    e.value_op("arith.select", &[take, j, first], Type::i64())
                })
            }
        }
    }
}
