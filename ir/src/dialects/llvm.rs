//! `llvm`: LLVM IR's instructions as operations, the target of every conversion. Each is checked
//! for its operand and result counts and types here, so the translation to LLVM IR never meets
//! a malformed one. Any other `llvm.*` name (`llvm.intr.ctlz`, `"llvm.sadd.with.overflow.i32"`)
//! calls the LLVM intrinsic of that name, checked against LLVM's own table at translation.

use super::arith::{COMPARISON, CONSTANT, SELECT};
use super::cf::{BRANCH, COND_BRANCH};
use super::constraints::{self as c, operand_types, result_types};
use super::llvm_atomics;
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::{OpId, ValueId};
use crate::module::{Module, OpSpec};
use crate::op_def::{optional, required, AttrDef, AttrKind, Count, OpDef, Syntax, Traits, VerifyFn};
use crate::parser::forms::{expect_types, parse_fn_type, parse_opt_attr_dict, with_attrs, BINARY, CAST, RETURN, UNARY};
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::OpPrinter;
use crate::types::{FunctionType, Type};

const fn binary(name: &'static str, summary: &'static str, rule: VerifyFn) -> OpDef {
    OpDef::new(name, summary).operands(2).results(1).pure().verify(rule).syntax(BINARY).translated()
}

const fn cast(name: &'static str, summary: &'static str, rule: VerifyFn) -> OpDef {
    OpDef::new(name, summary).operands(1).results(1).pure().verify(rule).syntax(CAST).translated()
}

const fn value(name: &'static str, summary: &'static str) -> OpDef {
    OpDef::new(name, summary)
        .results(1)
        .pure()
        .syntax(Syntax::custom(parse_typed_value, Some(print_typed_value)))
        .translated()
}

const PREDICATE: &[AttrDef] = &[required("predicate", AttrKind::Integer)];
const TERMINATOR: Traits = Traits::TERMINATOR.union(Traits::PURE);

pub const OPS: &[OpDef] = &[
    binary("llvm.add", "integer addition", c::same_int_like),
    binary("llvm.sub", "integer subtraction", c::same_int_like),
    binary("llvm.mul", "integer multiplication", c::same_int_like),
    binary("llvm.sdiv", "signed division", c::same_int_like),
    binary("llvm.udiv", "unsigned division", c::same_int_like),
    binary("llvm.srem", "signed remainder", c::same_int_like),
    binary("llvm.urem", "unsigned remainder", c::same_int_like),
    binary("llvm.and", "bitwise and", c::same_int_like),
    binary("llvm.or", "bitwise or", c::same_int_like),
    binary("llvm.xor", "bitwise exclusive or", c::same_int_like),
    binary("llvm.shl", "shift left", c::same_int_like),
    binary("llvm.lshr", "logical shift right", c::same_int_like),
    binary("llvm.ashr", "arithmetic shift right", c::same_int_like),
    binary("llvm.fadd", "float addition", c::same_float_like),
    binary("llvm.fsub", "float subtraction", c::same_float_like),
    binary("llvm.fmul", "float multiplication", c::same_float_like),
    binary("llvm.fdiv", "float division", c::same_float_like),
    binary("llvm.frem", "float remainder", c::same_float_like),
    OpDef::new("llvm.fneg", "float negation")
        .operands(1)
        .results(1)
        .pure()
        .verify(c::same_float_like)
        .syntax(UNARY)
        .translated(),
    cast("llvm.sext", "sign extension", c::int_extension),
    cast("llvm.zext", "zero extension", c::int_extension),
    cast("llvm.trunc", "integer truncation", c::int_truncation),
    cast("llvm.sitofp", "signed integer to float", c::int_to_float),
    cast("llvm.uitofp", "unsigned integer to float", c::int_to_float),
    cast("llvm.fptosi", "float to signed integer", c::float_to_int),
    cast("llvm.fptoui", "float to unsigned integer", c::float_to_int),
    cast("llvm.fpext", "float extension", c::float_extension),
    cast("llvm.fptrunc", "float truncation", c::float_truncation),
    cast("llvm.bitcast", "the same bits as another type", verify_bitcast),
    cast("llvm.ptrtoint", "a pointer's address as an integer", verify_ptrtoint),
    cast("llvm.inttoptr", "an integer as a pointer", verify_inttoptr),
    cast("llvm.addrspacecast", "a pointer in another address space", verify_addrspacecast),
    OpDef::new("llvm.icmp", "integer or pointer comparison")
        .operands(2)
        .results(1)
        .attrs(PREDICATE)
        .pure()
        .verify(verify_icmp)
        .syntax(COMPARISON)
        .translated(),
    OpDef::new("llvm.fcmp", "float comparison")
        .operands(2)
        .results(1)
        .attrs(PREDICATE)
        .pure()
        .verify(verify_fcmp)
        .syntax(COMPARISON)
        .translated(),
    OpDef::new("llvm.select", "a choice between two values")
        .operands(3)
        .results(1)
        .pure()
        .verify(c::select)
        .syntax(SELECT)
        .translated(),
    OpDef::new("llvm.mlir.constant", "a constant")
        .results(1)
        .attrs(&[required("value", AttrKind::TypedValue)])
        .pure()
        .verify(verify_constant)
        .syntax(CONSTANT)
        .translated(),
    value("llvm.mlir.undef", "an undefined value"),
    value("llvm.mlir.poison", "a poison value"),
    value("llvm.mlir.zero", "the zero value of a type (null for pointers)"),
    OpDef::new("llvm.mlir.addressof", "the address of a global or function")
        .results(1)
        .attrs(&[required("global_name", AttrKind::Symbol)])
        .pure()
        .verify(verify_addressof)
        .syntax(Syntax::custom(parse_addressof, Some(print_addressof)))
        .translated(),
    OpDef::new("llvm.mlir.global", "a global variable")
        .regions(Count::Between(0, 1))
        .attrs(&[
            required("sym_name", AttrKind::String),
            required("global_type", AttrKind::Type),
            optional("value", AttrKind::Any),
            optional("constant", AttrKind::Unit),
            optional("alignment", AttrKind::Integer),
            optional("linkage", AttrKind::Any),
            optional("addr_space", AttrKind::Integer),
        ])
        .traits(Traits::SYMBOL)
        .syntax(Syntax::custom(parse_global, Some(print_global)))
        .translated(),
    OpDef::new("llvm.load", "reads a value through a pointer")
        .operands(1)
        .results(1)
        .attrs(LOAD_ATTRS)
        .traits(Traits::READS)
        .verify(verify_load)
        .syntax(Syntax::custom(parse_load, Some(print_load)))
        .translated(),
    OpDef::new("llvm.store", "writes a value through a pointer")
        .operands(2)
        .attrs(ACCESS_ATTRS)
        .traits(Traits::WRITES)
        .verify(verify_store)
        .syntax(Syntax::custom(parse_store, Some(print_store)))
        .translated(),
    OpDef::new("llvm.alloca", "stack memory for a number of elements")
        .operands(1)
        .results(1)
        .attrs(&[required("elem_type", AttrKind::Type), optional("alignment", AttrKind::Integer)])
        .traits(Traits::ALLOCATES)
        .verify(verify_alloca)
        .syntax(Syntax::custom(parse_alloca, None))
        .translated(),
    OpDef::new("llvm.getelementptr", "address arithmetic in units of an element type")
        .operand_count(Count::AtLeast(1))
        .results(1)
        .attrs(&[
            required("elem_type", AttrKind::Type),
            required("rawConstantIndices", AttrKind::IntList),
            optional("inbounds", AttrKind::Any),
        ])
        .pure()
        .verify(verify_gep)
        .syntax(Syntax::custom(parse_gep, None))
        .translated(),
    OpDef::new("llvm.extractvalue", "a field of a struct or array value")
        .operands(1)
        .results(1)
        .attrs(&[required("position", AttrKind::IntList)])
        .pure()
        .verify(verify_extractvalue)
        .syntax(Syntax::custom(parse_aggregate_access, Some(print_aggregate_access)))
        .translated(),
    OpDef::new("llvm.insertvalue", "a struct or array value with one field replaced")
        .operands(2)
        .results(1)
        .attrs(&[required("position", AttrKind::IntList)])
        .pure()
        .verify(verify_insertvalue)
        .syntax(Syntax::custom(parse_aggregate_access, Some(print_aggregate_access)))
        .translated(),
    OpDef::new("llvm.extractelement", "a lane of a vector")
        .operands(2)
        .results(1)
        .pure()
        .verify(verify_extractelement)
        .syntax(Syntax::custom(parse_extractelement, Some(print_extractelement)))
        .translated(),
    OpDef::new("llvm.insertelement", "a vector with one lane replaced")
        .operands(3)
        .results(1)
        .pure()
        .verify(verify_insertelement)
        .syntax(Syntax::custom(parse_insertelement, Some(print_insertelement)))
        .translated(),
    OpDef::new("llvm.shufflevector", "lanes picked from two vectors by a constant mask")
        .operands(2)
        .results(1)
        .attrs(&[required("mask", AttrKind::IntList)])
        .pure()
        .verify(c::shuffle)
        .syntax(Syntax::custom(parse_shufflevector, Some(print_shufflevector)))
        .translated(),
    OpDef::new("llvm.call", "calls a function by symbol, or through a pointer with `callee_type`")
        .operand_count(Count::AtLeast(0))
        .result_count(Count::Between(0, 1))
        .attrs(&[optional("callee", AttrKind::Symbol), optional("callee_type", AttrKind::FunctionType)])
        .verify(verify_call)
        .syntax(super::func::CALL)
        .translated(),
    OpDef::new("llvm.br", "jumps to a block").successors(1).traits(TERMINATOR).syntax(BRANCH).translated(),
    OpDef::new("llvm.switch", "jumps to the block of the case equal to an integer, else to the default")
        .operands(1)
        .successor_count(Count::AtLeast(1))
        .attrs(&[optional("case_values", AttrKind::IntList)])
        .traits(TERMINATOR)
        .verify(super::cf::verify_switch)
        .syntax(super::cf::SWITCH)
        .translated(),
    OpDef::new("llvm.cond_br", "jumps to one of two blocks on an i1")
        .operands(1)
        .successors(2)
        .traits(TERMINATOR)
        .verify(verify_cond_br)
        .syntax(COND_BRANCH)
        .translated(),
    OpDef::new("llvm.return", "returns from the enclosing llvm.func")
        .operand_count(Count::Between(0, 1))
        .traits(TERMINATOR.union(Traits::RETURN_LIKE))
        .parents(&["llvm.func"])
        .verify(verify_return)
        .syntax(RETURN)
        .translated(),
    OpDef::new("llvm.unreachable", "control never reaches this point").traits(TERMINATOR).translated(),
    OpDef::new("llvm.func", "an LLVM function")
        .regions(Count::Between(0, 1))
        .attrs(&[required("sym_name", AttrKind::String), required("function_type", AttrKind::FunctionType)])
        .traits(Traits::ISOLATED_FROM_ABOVE.union(Traits::SYMBOL))
        .verify(verify_func)
        .syntax(super::func::FUNCTION)
        .translated(),
];

/// The type at `position` inside an LLVM aggregate (struct or array).
pub fn aggregate_element(agg: &Type, position: &[i64]) -> Option<Type> {
    let mut t = agg.clone();
    for &i in position {
        t = match t {
            Type::LlvmStruct { fields, .. } => fields.get(usize::try_from(i).ok()?)?.clone(),
            Type::LlvmArray { len, elem } if i >= 0 && (i as u64) < len => *elem,
            _ => return None,
        };
    }
    Some(t)
}

fn is_ptr(t: &Type) -> bool {
    matches!(t.element_or_self(), Type::LlvmPtr { .. })
}

/// Whether a type can be an SSA value in LLVM IR (first-class and sized, or a pointer).
fn is_llvm_value_type(t: &Type) -> bool {
    match t {
        Type::Integer { .. } | Type::Float(_) | Type::LlvmPtr { .. } => true,
        Type::Vector { elem, .. } => is_llvm_value_type(elem),
        Type::LlvmStruct { fields, .. } => fields.iter().all(is_llvm_value_type),
        Type::LlvmArray { elem, .. } => is_llvm_value_type(elem),
        _ => false,
    }
}

fn verify_bitcast(m: &Module, op: OpId) -> Result<(), String> {
    let (a, b) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if is_ptr(a) && is_ptr(b) {
        return Ok(());
    }
    // As LLVM's bitcast: any two non-pointer types of the same size (`vector<64xi8>` as
    // `vector<16xi32>`, `vector<4xi8>` as `i32`).
    match (total_bits(a), total_bits(b)) {
        (Some(x), Some(y)) if x == y => Ok(()),
        _ => c::same_bit_width(m, op),
    }
}

/// The bits of a scalar or a vector of integers or floats.
fn total_bits(t: &Type) -> Option<u64> {
    let scalar = |e: &Type| match e {
        Type::Integer { width, .. } => Some(*width as u64),
        Type::Float(k) => Some(k.width() as u64),
        _ => None,
    };
    match t {
        Type::Vector { shape, elem } => Some(shape.iter().product::<u64>() * scalar(elem)?),
        other => scalar(other),
    }
}

fn verify_ptrtoint(m: &Module, op: OpId) -> Result<(), String> {
    let (a, b) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if is_ptr(a) && b.element_or_self().is_integer() {
        Ok(())
    } else {
        Err(format!("converts a pointer to an integer, not {a} to {b}"))
    }
}

fn verify_inttoptr(m: &Module, op: OpId) -> Result<(), String> {
    let (a, b) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if a.element_or_self().is_integer() && is_ptr(b) {
        Ok(())
    } else {
        Err(format!("converts an integer to a pointer, not {a} to {b}"))
    }
}

fn verify_addrspacecast(m: &Module, op: OpId) -> Result<(), String> {
    let (a, b) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if is_ptr(a) && is_ptr(b) {
        Ok(())
    } else {
        Err(format!("casts between pointers, not {a} to {b}"))
    }
}

fn verify_icmp(m: &Module, op: OpId) -> Result<(), String> {
    c::comparison(m, op, super::arith::CMPI_PREDICATES, false)
}

fn verify_fcmp(m: &Module, op: OpId) -> Result<(), String> {
    c::comparison(m, op, super::arith::CMPF_PREDICATES, true)
}

fn verify_constant(m: &Module, op: OpId) -> Result<(), String> {
    let t = result_types(m, op)[0];
    let v = m.attr(op, "value").expect("checked by the table");
    let ok = match v {
        Attribute::Integer { .. } | Attribute::Bool(_) => t.is_integer() || t.is_float(),
        Attribute::Float { .. } => t.is_float(),
        // An n-D vector lowers to arrays of 1-D vectors, upstream's constants of them included.
        Attribute::Dense { ty, .. } => {
            matches!(t, Type::Vector { .. } | Type::LlvmArray { .. }) && ty.container_shape() == nested_shape(t)
        }
        _ => false,
    };
    if !ok {
        return Err(format!("cannot make a constant of type {t} from {v}"));
    }
    Ok(())
}

/// The dims of nested llvm arrays and a vector inside them: `!llvm.array<2 x vector<4xf32>>` is
/// `[2, 4]`.
fn nested_shape(t: &Type) -> Option<Vec<Option<u64>>> {
    match t {
        Type::LlvmArray { len, elem } => {
            let mut dims = vec![Some(*len)];
            dims.extend(nested_shape(elem).unwrap_or_default());
            Some(dims)
        }
        _ => t.container_shape(),
    }
}

fn verify_addressof(m: &Module, op: OpId) -> Result<(), String> {
    if !is_ptr(result_types(m, op)[0]) {
        return Err("the result must be a pointer".into());
    }
    Ok(())
}

/// The attributes of `llvm.load` and `llvm.store`: alignment, and the atomic ordering,
/// volatility and synchronization scope (`llvm_atomics.rs`).
const ACCESS_ATTRS: &[AttrDef] = &[
    optional("alignment", AttrKind::Integer),
    optional("ordering", AttrKind::Integer),
    optional("volatile_", AttrKind::Unit),
    optional("syncscope", AttrKind::String),
];

/// A load's attributes: an access's, and `invariant` (the memory holds the same value wherever
/// the load is reached, so it may be moved or repeated).
const LOAD_ATTRS: &[AttrDef] = &[
    optional("alignment", AttrKind::Integer),
    optional("ordering", AttrKind::Integer),
    optional("volatile_", AttrKind::Unit),
    optional("syncscope", AttrKind::String),
    optional("invariant", AttrKind::Unit),
];

fn verify_load(m: &Module, op: OpId) -> Result<(), String> {
    let (p, t) = (operand_types(m, op)[0], result_types(m, op)[0]);
    if !matches!(p, Type::LlvmPtr { .. }) {
        return Err(format!("loads through a pointer, not {p}"));
    }
    if !is_llvm_value_type(t) {
        return Err(format!("cannot load a value of type {t}"));
    }
    llvm_atomics::verify_access_ordering(m, op, t, true)
}

fn verify_store(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    if !matches!(ins[1], Type::LlvmPtr { .. }) {
        return Err(format!("stores through a pointer (the second operand), not {}", ins[1]));
    }
    if !is_llvm_value_type(ins[0]) {
        return Err(format!("cannot store a value of type {}", ins[0]));
    }
    llvm_atomics::verify_access_ordering(m, op, ins[0], false)
}

fn verify_alloca(m: &Module, op: OpId) -> Result<(), String> {
    if !operand_types(m, op)[0].is_integer() {
        return Err("the element count must be an integer".into());
    }
    if !matches!(result_types(m, op)[0], Type::LlvmPtr { .. }) {
        return Err("the result must be a pointer".into());
    }
    Ok(())
}

fn verify_gep(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    if !is_ptr(ins[0]) || !is_ptr(result_types(m, op)[0]) {
        return Err("takes and gives a pointer".into());
    }
    let raw = m.attr(op, "rawConstantIndices").and_then(Attribute::as_int_list).expect("checked by the table");
    let dynamic = raw.iter().filter(|&&r| r == i32::MIN as i128).count();
    if dynamic != ins.len() - 1 {
        return Err(format!("its indices name {dynamic} dynamic index(es), but {} are given", ins.len() - 1));
    }
    if raw.is_empty() {
        return Err("needs at least one index".into());
    }
    if let Some(t) = ins[1..].iter().find(|t| !t.element_or_self().is_integer()) {
        return Err(format!("indices must be integers, found {t}"));
    }
    Ok(())
}

fn position(m: &Module, op: OpId) -> Vec<i64> {
    m.attr(op, "position").and_then(Attribute::as_int_list).unwrap_or_default().into_iter().map(|x| x as i64).collect()
}

fn element_at(m: &Module, op: OpId, agg: &Type) -> Result<Type, String> {
    let pos = position(m, op);
    if pos.is_empty() {
        return Err("needs a non-empty position".into());
    }
    aggregate_element(agg, &pos).ok_or_else(|| format!("position {pos:?} is out of range for {agg}"))
}

fn verify_extractvalue(m: &Module, op: OpId) -> Result<(), String> {
    let elem = element_at(m, op, operand_types(m, op)[0])?;
    if result_types(m, op)[0] != &elem {
        return Err(format!("the result must be {elem}, the field's type"));
    }
    Ok(())
}

fn verify_insertvalue(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let elem = element_at(m, op, ins[0])?;
    if ins[1] != &elem || result_types(m, op)[0] != ins[0] {
        return Err(format!("inserts a {elem} into {} giving the same type", ins[0]));
    }
    Ok(())
}

fn lanes(t: &Type) -> Option<(u64, &Type)> {
    match t {
        Type::Vector { shape, elem } if shape.len() == 1 => Some((shape[0], elem)),
        _ => None,
    }
}

fn verify_extractelement(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let Some((_, elem)) = lanes(ins[0]) else { return Err(format!("needs a 1-D vector, not {}", ins[0])) };
    if !ins[1].is_integer() || result_types(m, op)[0] != elem {
        return Err(format!("takes an integer position and gives a {elem}"));
    }
    Ok(())
}

fn verify_insertelement(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let Some((_, elem)) = lanes(ins[0]) else { return Err(format!("needs a 1-D vector, not {}", ins[0])) };
    if ins[1] != elem || !ins[2].is_integer() || result_types(m, op)[0] != ins[0] {
        return Err(format!("inserts a {elem} at an integer position into {}", ins[0]));
    }
    Ok(())
}

fn verify_call(m: &Module, op: OpId) -> Result<(), String> {
    let ins = operand_types(m, op);
    let outs = result_types(m, op);
    let (ft, args) = match (m.attr(op, "callee").and_then(Attribute::as_symbol), m.attr(op, "callee_type")) {
        (Some(sym), _) => match m.lookup_symbol(sym).and_then(|f| m.function_type(f)) {
            Some(ft) => (ft.clone(), &ins[..]),
            // A symbol defined elsewhere (a global or an undeclared external) is checked by LLVM.
            None => return Err(format!("calls '@{sym}', which is not a function of this module")),
        },
        (None, Some(Attribute::Type(Type::Function(ft)))) => {
            if ins.first().is_none_or(|t| !is_ptr(t)) {
                return Err("an indirect call takes the function pointer first".into());
            }
            (ft.clone(), &ins[1..])
        }
        _ => return Err("needs a 'callee' symbol or a 'callee_type' for an indirect call".into()),
    };
    let vararg = m
        .attr(op, "callee")
        .and_then(Attribute::as_symbol)
        .and_then(|s| m.lookup_symbol(s))
        .is_some_and(|f| m.attr(f, "vararg").is_some());
    let fixed_ok = if vararg { args.len() >= ft.inputs.len() } else { args.len() == ft.inputs.len() };
    if !fixed_ok || args.iter().zip(&ft.inputs).any(|(a, b)| *a != b) {
        return Err(format!("the arguments do not match the callee's type {}", Type::Function(ft)));
    }
    if outs.into_iter().cloned().collect::<Vec<_>>() != ft.results {
        return Err(format!("the results do not match the callee's type {}", Type::Function(ft)));
    }
    Ok(())
}

fn verify_cond_br(m: &Module, op: OpId) -> Result<(), String> {
    let t = operand_types(m, op)[0];
    if *t != Type::i1() {
        return Err(format!("the condition must be i1, not {t}"));
    }
    Ok(())
}

fn verify_return(m: &Module, op: OpId) -> Result<(), String> {
    c::returns_function_results(m, op)
}

fn verify_func(m: &Module, op: OpId) -> Result<(), String> {
    let ft = m.function_type(op).expect("checked by the table");
    if ft.results.len() > 1 {
        return Err("an llvm.func returns at most one value (pack several in a struct)".into());
    }
    let bad = ft.inputs.iter().chain(&ft.results).find(|t| !is_llvm_value_type(t));
    if let Some(t) = bad {
        return Err(format!("{t} is not an LLVM type"));
    }
    Ok(())
}

// ---- custom forms ---------------------------------------------------------------------------

/// `llvm.mlir.undef : T`
fn parse_typed_value(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    p.expect_punct(":")?;
    Ok(spec.results([p.parse_type()?]))
}

fn print_typed_value(p: &mut OpPrinter, op: OpId) -> Option<()> {
    if p.has_other_attrs(op, &[]) {
        return None;
    }
    let t = p.module().ty(p.module().ops[op].results[0]).clone();
    p.word(": ");
    p.ty(&t);
    Some(())
}

/// `llvm.load %p {alignment = 4} : !llvm.ptr -> f32`
/// `[%position : type] : vector-type` after the vector of `llvm.extractelement` and
/// `llvm.insertelement`.
fn parse_lane_position(p: &mut Parser) -> PResult<(crate::parser::OperandRef, Type, Type)> {
    p.expect_punct("[")?;
    let position = p.parse_operand_ref()?;
    p.expect_punct(":")?;
    let position_type = p.parse_type()?;
    p.expect_punct("]")?;
    p.expect_punct(":")?;
    Ok((position, position_type, p.parse_type()?))
}

fn vector_element(t: &Type, p: &Parser) -> PResult<Type> {
    match t {
        Type::Vector { elem, .. } => Ok((**elem).clone()),
        _ => p.err_here(format!("expected a vector type, not {t}")),
    }
}

/// `llvm.extractelement %v[%i : i64] : vector<4xf32>`
fn parse_extractelement(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let v = p.parse_operand_ref()?;
    let (i, it, vt) = parse_lane_position(p)?;
    let elem = vector_element(&vt, p)?;
    Ok(spec.operands([p.resolve(&v, &vt)?, p.resolve(&i, &it)?]).results([elem]))
}

/// `llvm.insertelement %x, %v[%i : i64] : vector<4xf32>`
fn parse_insertelement(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let x = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let v = p.parse_operand_ref()?;
    let (i, it, vt) = parse_lane_position(p)?;
    let elem = vector_element(&vt, p)?;
    let ops = [p.resolve(&v, &vt)?, p.resolve(&x, &elem)?, p.resolve(&i, &it)?];
    Ok(spec.operands(ops).results([vt]))
}

fn print_lane_position(p: &mut OpPrinter, vector: ValueId, position: ValueId) {
    let m = p.module();
    p.value(vector);
    p.word("[");
    p.value(position);
    p.word(" : ");
    p.ty(m.ty(position));
    p.word("] : ");
    p.ty(m.ty(vector));
}

fn print_extractelement(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let ops = p.module().ops[op].operands.clone();
    if p.has_other_attrs(op, &[]) || !matches!(p.module().ty(ops[0]), Type::Vector { .. }) {
        return None;
    }
    print_lane_position(p, ops[0], ops[1]);
    Some(())
}

fn print_insertelement(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let ops = p.module().ops[op].operands.clone();
    if p.has_other_attrs(op, &[]) || !matches!(p.module().ty(ops[0]), Type::Vector { .. }) {
        return None;
    }
    p.value(ops[1]);
    p.word(", ");
    print_lane_position(p, ops[0], ops[2]);
    Some(())
}

/// `llvm.shufflevector %a, %b [0, 4, 1, 5] : vector<4xf32>`: the type is the operands'; the
/// result has one lane per mask entry.
fn parse_shufflevector(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let a = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let b = p.parse_operand_ref()?;
    p.expect_punct("[")?;
    let mut mask = Vec::new();
    if !p.is_punct("]") {
        loop {
            mask.push(p.parse_int("a mask index")?.0);
            if !p.eat_punct(",")? {
                break;
            }
        }
    }
    p.expect_punct("]")?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    let elem = vector_element(&vt, p)?;
    let result = Type::Vector { shape: vec![mask.len() as u64], elem: Box::new(elem) };
    let ops = [p.resolve(&a, &vt)?, p.resolve(&b, &vt)?];
    let mask = Attribute::DenseArray { elem: Type::i32(), values: mask };
    Ok(with_attrs(spec.operands(ops).results([result]).attr("mask", mask), attrs))
}

fn print_shufflevector(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let ops = &m.ops[op].operands;
    let mask = m.attr(op, "mask")?.as_int_list()?;
    p.values(ops);
    let lanes: Vec<String> = mask.iter().map(|i| i.to_string()).collect();
    p.word(&format!(" [{}]", lanes.join(", ")));
    p.attr_dict_except(op, &["mask"]);
    p.word(" : ");
    p.ty(m.ty(ops[0]));
    Some(())
}

/// `llvm.mlir.addressof @name : !llvm.ptr`
fn parse_addressof(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let (name, _) = p.expect_symbol()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let t = p.parse_type()?;
    Ok(with_attrs(spec.attr("global_name", Attribute::symbol(name)).results([t]), attrs))
}

fn print_addressof(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    p.attr(m.attr(op, "global_name")?);
    p.attr_dict_except(op, &["global_name"]);
    p.word(" : ");
    p.ty(m.ty(m.ops[op].results[0]));
    Some(())
}

/// The linkage words of `llvm.mlir.global` and `llvm.func` (LLVM's linkage types).
pub const LINKAGES: &[&str] = &[
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

/// `llvm.mlir.global [linkage] [hidden|protected] [thread_local] [unnamed_addr |
/// local_unnamed_addr] [constant] @name([value]) [{attrs}] [: type] [initializer region]`, as
/// upstream writes it; the type may be left out after a string value (an i8 array).
fn parse_global(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let mut spec = spec;
    while let (Tok::Ident(w), _) = p.peek()? {
        let attr = match w.as_str() {
            w if LINKAGES.contains(&w) => ("linkage", Attribute::String(w.to_string())),
            "hidden" | "protected" | "default" => ("visibility", Attribute::String(w.clone())),
            "thread_local" => ("thread_local_", Attribute::Unit),
            "unnamed_addr" | "local_unnamed_addr" => ("unnamed_addr", Attribute::String(w.clone())),
            "constant" => ("constant", Attribute::Unit),
            _ => break,
        };
        p.next()?;
        spec = spec.attr(attr.0, attr.1);
    }
    let (name, _) = p.expect_symbol()?;
    p.expect_punct("(")?;
    let value = if p.is_punct(")") { None } else { Some(p.parse_attribute()?) };
    p.expect_punct(")")?;
    let attrs = parse_opt_attr_dict(p)?;
    let ty = if p.eat_punct(":")? {
        p.parse_type()?
    } else if let Some(Attribute::String(s)) = &value {
        Type::LlvmArray { len: s.len() as u64, elem: Box::new(Type::i8()) }
    } else {
        return p.err_here("expected ':' and the global's type");
    };
    spec = spec.attr("sym_name", Attribute::String(name)).attr("global_type", Attribute::Type(ty));
    if let Some(v) = value {
        spec = spec.attr("value", v);
    }
    if p.is_punct("{") {
        spec = spec.region(p.parse_region(&[], false)?);
    }
    Ok(with_attrs(spec, attrs))
}

fn print_global(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let words = ["linkage", "visibility", "unnamed_addr"];
    for w in words {
        if let Some(v) = m.attr(op, w).and_then(Attribute::as_str) {
            p.word(&format!("{v} "));
        }
    }
    if m.attr(op, "thread_local_").is_some() {
        p.word("thread_local ");
    }
    if m.attr(op, "constant").is_some() {
        p.word("constant ");
    }
    p.word(&crate::attributes::format_symbol(m.sym_name(op)?));
    p.word("(");
    if let Some(v) = m.attr(op, "value") {
        p.attr(v);
    }
    p.word(")");
    let known = ["sym_name", "global_type", "value", "constant", "thread_local_"];
    let skip: Vec<&str> = known.iter().chain(&words).copied().collect();
    p.attr_dict_except(op, &skip);
    p.word(" : ");
    p.ty(m.attr(op, "global_type")?.as_type()?);
    if let Some(&r) = m.ops[op].regions.first() {
        if !m.regions[r].blocks.is_empty() {
            p.word(" ");
            p.region_without_entry_args(r, false);
        }
    }
    Some(())
}

fn parse_load(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let spec = llvm_atomics::parse_volatile(p, spec)?;
    let r = p.parse_operand_ref()?;
    let spec = llvm_atomics::parse_atomic_suffix(p, spec)?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let pt = p.parse_type()?;
    p.expect_punct("->")?;
    let t = p.parse_type()?;
    Ok(with_attrs(spec.operands([p.resolve(&r, &pt)?]).results([t]), attrs))
}

fn print_load(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &["alignment", "ordering", "volatile_", "syncscope"]) {
        return None;
    }
    llvm_atomics::print_volatile(p, op);
    p.value(d.operands[0]);
    llvm_atomics::print_atomic_suffix(p, op)?;
    p.attr_dict_except(op, llvm_atomics::ACCESS_KEYWORDS);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(" -> ");
    p.ty(m.ty(d.results[0]));
    Some(())
}

fn print_store(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &["alignment", "ordering", "volatile_", "syncscope"]) {
        return None;
    }
    llvm_atomics::print_volatile(p, op);
    p.values(&d.operands);
    llvm_atomics::print_atomic_suffix(p, op)?;
    p.attr_dict_except(op, llvm_atomics::ACCESS_KEYWORDS);
    p.word(" : ");
    p.ty(m.ty(d.operands[0]));
    p.word(", ");
    p.ty(m.ty(d.operands[1]));
    Some(())
}

fn print_aggregate_access(p: &mut OpPrinter, op: OpId) -> Option<()> {
    let m = p.module();
    let d = &m.ops[op];
    if p.has_other_attrs(op, &["position"]) {
        return None;
    }
    let pos: Vec<String> = position(m, op).iter().map(|x| x.to_string()).collect();
    if d.name == "llvm.insertvalue" {
        p.value(d.operands[1]);
        p.word(", ");
    }
    p.value(d.operands[0]);
    p.word(&format!("[{}] : ", pos.join(", ")));
    p.ty(m.ty(d.operands[0]));
    Some(())
}

/// `llvm.store %v, %p : f32, !llvm.ptr`
fn parse_store(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let spec = llvm_atomics::parse_volatile(p, spec)?;
    let v = p.parse_operand_ref()?;
    p.expect_punct(",")?;
    let ptr = p.parse_operand_ref()?;
    let spec = llvm_atomics::parse_atomic_suffix(p, spec)?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let vt = p.parse_type()?;
    p.expect_punct(",")?;
    let pt = p.parse_type()?;
    Ok(with_attrs(spec.operands([p.resolve(&v, &vt)?, p.resolve(&ptr, &pt)?]), attrs))
}

/// `llvm.alloca %n x T {alignment = 8} : (i64) -> !llvm.ptr`
fn parse_alloca(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let n = p.parse_operand_ref()?;
    p.expect_ident_word("x")?;
    let elem = p.parse_type()?;
    let attrs = parse_opt_attr_dict(p)?;
    p.expect_punct(":")?;
    let ft = parse_fn_type(p)?;
    if ft.inputs.len() != 1 || ft.results.len() != 1 {
        return Err(Diagnostic::new(spec.span, "llvm.alloca's type is (count type) -> pointer type"));
    }
    let spec =
        spec.operands([p.resolve(&n, &ft.inputs[0])?]).results(ft.results).attr("elem_type", Attribute::Type(elem));
    Ok(with_attrs(spec, attrs))
}

/// `llvm.extractvalue %agg[0, 1] : !llvm.struct<...>`, `llvm.insertvalue %v, %agg[2] : !llvm.struct<...>`
fn parse_aggregate_access(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let is_insert = spec.name == "llvm.insertvalue";
    let mut refs = vec![p.parse_operand_ref()?];
    if is_insert {
        p.expect_punct(",")?;
        refs.push(p.parse_operand_ref()?);
    }
    p.expect_punct("[")?;
    let mut position = Vec::new();
    loop {
        position.push(p.parse_int("a position")?.0 as i64);
        if !p.eat_punct(",")? {
            break;
        }
    }
    p.expect_punct("]")?;
    p.expect_punct(":")?;
    let agg_span = p.peek_span();
    let agg = p.parse_type()?;
    let elem = aggregate_element(&agg, &position)
        .ok_or_else(|| Diagnostic::new(agg_span, format!("position {position:?} is out of range for {agg}")))?;
    let spec = spec.attr(
        "position",
        Attribute::DenseArray { elem: Type::i64(), values: position.iter().map(|&x| x as i128).collect() },
    );
    if is_insert {
        let v = p.resolve(&refs[0], &elem)?;
        let a = p.resolve(&refs[1], &agg)?;
        Ok(spec.operands([a, v]).results([agg]))
    } else {
        Ok(spec.operands([p.resolve(&refs[0], &agg)?]).results([elem]))
    }
}

/// `llvm.getelementptr [inbounds] %base[%i, 2] : (!llvm.ptr, i64) -> !llvm.ptr, f32`
/// `llvm.getelementptr [flags] %base[indices] : (types) -> !llvm.ptr, elem`, the flags
/// `inbounds`, `nusw` and `nuw` joined by `|` (MLIR 22); only `inbounds` is kept (dropping a
/// no-wrap flag promises less, which is always correct).
fn parse_gep(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let mut inbounds = false;
    while let (Tok::Ident(w), _) = p.peek()? {
        if !matches!(w.as_str(), "inbounds" | "nusw" | "nuw") {
            break;
        }
        p.next()?;
        inbounds |= w == "inbounds";
        if !p.eat_punct("|")? {
            break;
        }
    }
    let base = p.parse_operand_ref()?;
    p.expect_punct("[")?;
    let mut raw = Vec::new();
    let mut dyn_refs = Vec::new();
    loop {
        if let (Tok::Percent(_), _) = p.peek()? {
            dyn_refs.push(p.parse_operand_ref()?);
            raw.push(i32::MIN as i128);
        } else {
            raw.push(p.parse_int("an index")?.0);
        }
        if !p.eat_punct(",")? {
            break;
        }
    }
    p.expect_punct("]")?;
    p.expect_punct(":")?;
    let ft = parse_fn_type(p)?;
    p.expect_punct(",")?;
    let elem = p.parse_type()?;
    if ft.inputs.len() != 1 + dyn_refs.len() || ft.results.len() != 1 {
        return Err(Diagnostic::new(spec.span, "getelementptr's type must list the base and each dynamic index"));
    }
    let mut ops = vec![p.resolve(&base, &ft.inputs[0])?];
    ops.extend(p.resolve_all(&dyn_refs, &ft.inputs[1..])?);
    let mut spec = spec
        .operands(ops)
        .results(ft.results)
        .attr("rawConstantIndices", Attribute::DenseArray { elem: Type::i32(), values: raw })
        .attr("elem_type", Attribute::Type(elem));
    if inbounds {
        spec = spec.attr("inbounds", Attribute::Unit);
    }
    Ok(spec)
}

/// `llvm.intr.NAME(%a, %b) : (T, T) -> R` for any intrinsic (not a table entry: the set is LLVM's).
/// Upstream also writes some without parentheses: `llvm.intr.masked.load %p, %m, %x {...} :
/// (types) -> T` and `llvm.intr.masked.store %v, %p, %m {...} : V, M into !llvm.ptr`.
pub(crate) fn parse_intrinsic(p: &mut Parser, spec: OpSpec) -> PResult<OpSpec> {
    let parenthesized = p.eat_punct("(")?;
    let refs =
        if parenthesized || matches!(p.peek()?.0, Tok::Percent(_)) { p.parse_operand_refs()? } else { Vec::new() };
    if parenthesized {
        p.expect_punct(")")?;
    }
    let mut attrs = Vec::new();
    if p.is_punct("<") {
        p.next()?;
        attrs = p.parse_attr_dict()?;
        p.expect_punct(">")?;
    }
    attrs.extend(parse_opt_attr_dict(p)?);
    p.expect_punct(":")?;
    let ft = if spec.name == "llvm.intr.masked.store" && !p.is_punct("(") {
        let (value, _) = (p.parse_type()?, p.expect_punct(",")?);
        let mask = p.parse_type()?;
        p.expect_ident_word("into")?;
        FunctionType { inputs: vec![value, p.parse_type()?, mask], results: Vec::new() }
    } else {
        parse_fn_type(p)?
    };
    expect_types(&refs, &ft.inputs, spec.span)?;
    let ops = p.resolve_all(&refs, &ft.inputs)?;
    let results: Vec<Type> = ft.results.into_iter().filter(|t| *t != Type::LlvmVoid).collect();
    Ok(with_attrs(spec.operands(ops).results(results), attrs))
}
