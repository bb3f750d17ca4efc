//! Comparisons (to bool), the boolean And, Or, Xor and Not, and Where (a select with
//! broadcasting).

use super::{on_dims, Element, ElementwiseOp as Op, Emit, Output};
use crate::emit::{compute_type, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::schema::{Elements, Group, Schema};
use xcc_ir::{Type, ValueId};

const fn comparison(
    name: &'static str,
    emit: fn(&mut Emitter, &Element, &[ValueId]) -> OResult<ValueId>,
    eval: fn(&Element, &[f64]) -> f64,
) -> Op {
    Op::new(name, Emit::Custom(emit), eval).output(Output::Bool).mixed_types()
}

const fn boolean(name: &'static str, op: &'static str, eval: fn(&Element, &[f64]) -> f64) -> Op {
    Op::new(name, Emit::Fold { float: None, signed: Some(op), unsigned: Some(op) }, eval)
        .output(Output::Bool)
        .mixed_types()
}

fn truth(b: bool) -> f64 {
    b as i32 as f64
}

pub const OPS: &[Op] = &[
    comparison("Equal", |e, el, a| Ok(compare(e, el, a, "oeq", "eq", "eq")), |_, a| truth(a[0] == a[1]))
        .schema(Schema::exactly(2).same_type(Group::All).elements(Elements::Strings))
        .on_dims(on_dims::equal),
    comparison("Less", |e, el, a| Ok(compare(e, el, a, "olt", "slt", "ult")), |_, a| truth(a[0] < a[1]))
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::less),
    comparison("LessOrEqual", |e, el, a| Ok(compare(e, el, a, "ole", "sle", "ule")), |_, a| truth(a[0] <= a[1]))
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::less_or_equal),
    comparison("Greater", |e, el, a| Ok(compare(e, el, a, "ogt", "sgt", "ugt")), |_, a| truth(a[0] > a[1]))
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::greater),
    comparison("GreaterOrEqual", |e, el, a| Ok(compare(e, el, a, "oge", "sge", "uge")), |_, a| truth(a[0] >= a[1]))
        .schema(Schema::exactly(2).same_type(Group::All))
        .on_dims(on_dims::greater_or_equal),
    boolean("And", "arith.andi", |_, a| truth(a[0] != 0.0 && a[1] != 0.0))
        .schema(Schema::exactly(2).same_type(Group::All).bools(&[0, 1]))
        .on_dims(on_dims::and),
    boolean("Or", "arith.ori", |_, a| truth(a[0] != 0.0 || a[1] != 0.0))
        .schema(Schema::exactly(2).same_type(Group::All).bools(&[0, 1]))
        .on_dims(on_dims::or),
    boolean("Xor", "arith.xori", |_, a| truth((a[0] != 0.0) != (a[1] != 0.0)))
        .schema(Schema::exactly(2).same_type(Group::All).bools(&[0, 1])),
    comparison("Not", not, |_, a| truth(a[0] == 0.0)).schema(Schema::exactly(1).bools(&[0])).on_dims(on_dims::not),
    Op::new("Where", Emit::Custom(select), |_, a| if a[0] != 0.0 { a[1] } else { a[2] })
        .schema(Schema::exactly(3).same_type(Group::Inputs(&[1, 2])).bools(&[0]).elements(Elements::Strings))
        .output(Output::Input(1))
        .mixed_types()
        .computes_on(1)
        .on_dims(on_dims::select),
];

/// `cmpf` for floats, `cmpi` with the signed or unsigned predicate for integers (the uint
/// types and bool are unsigned).
fn compare(e: &mut Emitter, el: &Element, a: &[ValueId], float: &str, signed: &str, unsigned: &str) -> ValueId {
    match el.dtype {
        DType::Str => {
            // Only Equal takes strings (its schema): their bytes compared by runtime-c.
            let same = crate::emit::runtime_call(e, "xcc_string_equal", a, Type::i32());
            let zero = e.const_int(0, Type::i32());
            e.cmpi("ne", same, zero)
        }
        d if d.is_float() => e.cmpf(float, a[0], a[1]),
        d if d.is_unsigned() => e.cmpi(unsigned, a[0], a[1]),
        _ => e.cmpi(signed, a[0], a[1]),
    }
}

fn not(e: &mut Emitter, _: &Element, a: &[ValueId]) -> OResult<ValueId> {
    let one = e.const_int(1, Type::i1());
    Ok(e.value_op("arith.xori", &[a[0], one], Type::i1()))
}

fn select(e: &mut Emitter, el: &Element, a: &[ValueId]) -> OResult<ValueId> {
    Ok(e.value_op("arith.select", &[a[0], a[1], a[2]], compute_type(el.out)))
}
