//! Type rules shared by several operations (MLIR's `SameOperandsAndResultType`, `SignlessIntegerLike`,
//! cast compatibility, ...). Each is a [`crate::op_def::VerifyFn`]; the op tables name them.

use crate::attributes::Attribute;
use crate::entity::OpId;
use crate::module::Module;
use crate::types::Type;

pub type VResult = Result<(), String>;

pub fn operand_types(m: &Module, op: OpId) -> Vec<&Type> {
    m.ops[op].operands.iter().map(|&v| m.ty(v)).collect()
}

pub fn result_types(m: &Module, op: OpId) -> Vec<&Type> {
    m.ops[op].results.iter().map(|&v| m.ty(v)).collect()
}

pub fn is_int_like(t: &Type) -> bool {
    matches!(t.element_or_self(), Type::Integer { .. } | Type::Index)
}

pub fn is_float_like(t: &Type) -> bool {
    t.element_or_self().is_float()
}

fn list(types: &[&Type]) -> String {
    types.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
}

/// Every operand and result has one type.
pub fn same_types(m: &Module, op: OpId) -> VResult {
    let (ins, outs) = (operand_types(m, op), result_types(m, op));
    let first = ins.first().or(outs.first());
    if let Some(t) = first {
        if ins.iter().chain(&outs).any(|u| u != t) {
            return Err(format!(
                "operands and result must share one type, found ({}) -> ({})",
                list(&ins),
                list(&outs)
            ));
        }
    }
    Ok(())
}

/// One type throughout, an integer or index (or a vector of them).
pub fn same_int_like(m: &Module, op: OpId) -> VResult {
    same_types(m, op)?;
    match operand_types(m, op).first() {
        Some(t) if !is_int_like(t) => {
            Err(format!("expects integer-like operands (integers, index, or vectors of them), found {t}"))
        }
        _ => Ok(()),
    }
}

/// One type throughout, integers only (no index: bit counting needs a width).
pub fn same_int(m: &Module, op: OpId) -> VResult {
    same_types(m, op)?;
    match operand_types(m, op).first() {
        Some(t) if !t.element_or_self().is_integer() => Err(format!("expects integer operands, found {t}")),
        _ => Ok(()),
    }
}

/// One type throughout, floating point (or a vector of it).
pub fn same_float_like(m: &Module, op: OpId) -> VResult {
    same_types(m, op)?;
    match operand_types(m, op).first() {
        Some(t) if !is_float_like(t) => Err(format!("expects floating-point operands, found {t}")),
        _ => Ok(()),
    }
}

/// One type throughout, integer-like or floating point.
pub fn same_arith_like(m: &Module, op: OpId) -> VResult {
    same_types(m, op)?;
    match operand_types(m, op).first() {
        Some(t) if !is_int_like(t) && !is_float_like(t) => Err(format!("expects integer or float operands, found {t}")),
        _ => Ok(()),
    }
}

/// Operand and result have the same shape (scalar or vector of the same length).
fn same_shape(a: &Type, b: &Type) -> VResult {
    if a.container_shape() != b.container_shape() {
        return Err(format!("operand and result shapes differ: {a} and {b}"));
    }
    Ok(())
}

fn widths(m: &Module, op: OpId) -> Result<(Type, Type), String> {
    let (ins, outs) = (operand_types(m, op), result_types(m, op));
    let (a, b) = (ins[0], outs[0]);
    same_shape(a, b)?;
    Ok((a.element_or_self().clone(), b.element_or_self().clone()))
}

fn float_width(t: &Type) -> Option<u32> {
    match t {
        Type::Float(k) => Some(k.width()),
        _ => None,
    }
}

/// `extsi`/`extui`: an integer to a strictly wider integer.
pub fn int_extension(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    match (a.int_width(), b.int_width()) {
        (Some(x), Some(y)) if y > x => Ok(()),
        _ => Err(format!("extends an integer to a wider integer, not {a} to {b}")),
    }
}

/// `trunci`: an integer to a strictly narrower integer.
pub fn int_truncation(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    match (a.int_width(), b.int_width()) {
        (Some(x), Some(y)) if y < x => Ok(()),
        _ => Err(format!("truncates an integer to a narrower integer, not {a} to {b}")),
    }
}

/// `extf`: a float to a strictly wider float.
pub fn float_extension(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    match (float_width(&a), float_width(&b)) {
        (Some(x), Some(y)) if y > x => Ok(()),
        _ => Err(format!("extends a float to a wider float, not {a} to {b}")),
    }
}

/// `truncf`: a float to a strictly narrower float.
pub fn float_truncation(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    match (float_width(&a), float_width(&b)) {
        (Some(x), Some(y)) if y < x => Ok(()),
        _ => Err(format!("truncates a float to a narrower float, not {a} to {b}")),
    }
}

/// `sitofp`/`uitofp`.
pub fn int_to_float(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    if a.is_integer() && b.is_float() {
        Ok(())
    } else {
        Err(format!("converts an integer to a float, not {a} to {b}"))
    }
}

/// `fptosi`/`fptoui`.
pub fn float_to_int(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    if a.is_float() && b.is_integer() {
        Ok(())
    } else {
        Err(format!("converts a float to an integer, not {a} to {b}"))
    }
}

/// `index_cast`: between index and an integer.
pub fn index_cast(m: &Module, op: OpId) -> VResult {
    let (a, b) = widths(m, op)?;
    if (a.is_index() && b.is_integer()) || (a.is_integer() && b.is_index()) {
        Ok(())
    } else {
        Err(format!("casts between index and integer types, not {a} to {b}"))
    }
}

/// The size in bits of a scalar for bitcasts (index has no fixed width).
pub fn bit_width(t: &Type) -> Option<u64> {
    match t {
        Type::Integer { width, .. } => Some(*width as u64),
        Type::Float(k) => Some(k.width() as u64),
        Type::Vector { shape, elem } => Some(shape.iter().product::<u64>() * bit_width(elem)?),
        _ => None,
    }
}

/// `bitcast`: the same number of bits, integers and floats.
pub fn same_bit_width(m: &Module, op: OpId) -> VResult {
    let (a, b) = (operand_types(m, op)[0], result_types(m, op)[0]);
    same_shape(a, b)?;
    match (bit_width(a), bit_width(b)) {
        (Some(x), Some(y)) if x == y => Ok(()),
        _ => Err(format!("reinterprets bits between types of equal width, not {a} and {b}")),
    }
}

/// A comparison: two operands of one type and an `i1` result of the same shape, with a
/// `predicate` inside `table`.
pub fn comparison(m: &Module, op: OpId, table: &[&str], float: bool) -> VResult {
    let (ins, outs) = (operand_types(m, op), result_types(m, op));
    if ins[0] != ins[1] {
        return Err(format!("operands must share one type, found {} and {}", ins[0], ins[1]));
    }
    let ok =
        if float { is_float_like(ins[0]) } else { is_int_like(ins[0]) || ins[0].element_or_self() == &Type::ptr() };
    if !ok {
        return Err(format!("unsupported operand type {}", ins[0]));
    }
    let want = ins[0].with_element(Type::i1());
    if *outs[0] != want {
        return Err(format!("result must be {want}, found {}", outs[0]));
    }
    match m.attr(op, "predicate").and_then(Attribute::as_int) {
        Some(p) if p >= 0 && (p as usize) < table.len() => Ok(()),
        _ => Err(format!("needs a 'predicate' in range (one of {})", table.join(", "))),
    }
}

/// `select`: an `i1` condition (scalar, or of the operands' shape) and two choices of the
/// result's type.
pub fn select(m: &Module, op: OpId) -> VResult {
    let (ins, outs) = (operand_types(m, op), result_types(m, op));
    if ins[1] != ins[2] || ins[1] != outs[0] {
        return Err(format!(
            "both choices and the result must share one type, found {}, {} -> {}",
            ins[1], ins[2], outs[0]
        ));
    }
    let c = ins[0];
    if *c != Type::i1() && *c != outs[0].with_element(Type::i1()) {
        return Err(format!("the condition must be i1 or {}, found {c}", outs[0].with_element(Type::i1())));
    }
    Ok(())
}

/// A constant: its `value` attribute's type is the result's.
pub fn constant(m: &Module, op: OpId) -> VResult {
    let result = result_types(m, op)[0];
    let value = m.attr(op, "value").expect("checked by the table");
    let vt = match value {
        Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => ty.clone(),
        Attribute::Bool(_) => Type::i1(),
        other => return Err(format!("unsupported constant value {other}")),
    };
    if vt != *result {
        return Err(format!("the value has type {vt}, but the result has type {result}"));
    }
    Ok(())
}

/// The function enclosing an operation (`func.func`, `llvm.func` or `gpu.func`).
pub fn enclosing_function(m: &Module, op: OpId) -> Option<OpId> {
    let mut at = op;
    loop {
        let b = m.ops[at].parent?;
        let p = m.parent_op_of_block(b)?;
        if matches!(m.ops[p].name.as_str(), "func.func" | "llvm.func" | "gpu.func") {
            return Some(p);
        }
        at = p;
    }
}

/// A return: its operands are the enclosing function's results.
pub fn returns_function_results(m: &Module, op: OpId) -> VResult {
    let Some(func) = enclosing_function(m, op) else { return Err("must be inside a function".into()) };
    let want = m.function_type(func).map(|f| f.results.clone()).unwrap_or_default();
    let have: Vec<Type> = operand_types(m, op).into_iter().cloned().collect();
    if want != have {
        return Err(format!(
            "returns ({}) but the function '@{}' returns ({})",
            list(&have.iter().collect::<Vec<_>>()),
            m.sym_name(func).unwrap_or("?"),
            list(&want.iter().collect::<Vec<_>>())
        ));
    }
    Ok(())
}

/// A region terminator whose operands are the parent's results (`scf.yield`, `affine.yield`).
pub fn yields_parent_results(m: &Module, op: OpId) -> VResult {
    let parent = m.ops[op].parent.and_then(|b| m.parent_op_of_block(b));
    if let Some(p) = parent {
        // scf.while's body yields the next iteration's values, of its operands' types.
        let (carried, what) = if m.ops[p].name == "scf.while" {
            (&m.ops[p].operands, "carries")
        } else {
            (&m.ops[p].results, "has results")
        };
        let want: Vec<&Type> = carried.iter().map(|&v| m.ty(v)).collect();
        let have = operand_types(m, op);
        if want != have {
            return Err(format!("yields ({}) but '{}' {what} ({})", list(&have), m.ops[p].name, list(&want)));
        }
    }
    Ok(())
}

/// A shuffle of two 1-D vectors of one type by a constant `mask` of lane numbers (-1 a poison
/// lane): the result has the mask's length and the vectors' elements.
pub fn shuffle(m: &Module, op: OpId) -> VResult {
    let ins = operand_types(m, op);
    let (n, elem) = match ins[0] {
        Type::Vector { shape, elem } if shape.len() == 1 => (shape[0], elem),
        t => return Err(format!("needs 1-D vectors, not {t}")),
    };
    if ins[1] != ins[0] {
        return Err(format!("both vectors must have one type, not {} and {}", ins[0], ins[1]));
    }
    let mask = m.attr(op, "mask").and_then(Attribute::as_int_list).expect("checked by the table");
    if let Some(bad) = mask.iter().find(|&&i| i < -1 || i >= 2 * n as i128) {
        return Err(format!("mask entry {bad} picks none of the {} lanes (nor is -1, a poison lane)", 2 * n));
    }
    let want = Type::Vector { shape: vec![mask.len() as u64], elem: elem.clone() };
    if result_types(m, op)[0] != &want {
        return Err(format!("the result must be {want}"));
    }
    Ok(())
}
