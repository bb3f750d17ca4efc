//! Per-operation type rules, one arm per operation family.

use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::entity::OpId;
use crate::module::Module;
use crate::types::Type;

fn is_int_like(t: &Type) -> bool {
    matches!(t.element_or_self(), Type::Integer { .. } | Type::Index)
}

fn is_float_like(t: &Type) -> bool {
    t.element_or_self().is_float()
}

pub(super) fn verify_op(m: &Module, op: OpId) -> Result<(), Diagnostic> {
    let d = &m.ops[op];
    let name = d.name.as_str();
    let span = d.span;
    let err = |msg: String| Err(Diagnostic::new(span, format!("'{name}': {msg}")));
    let operand_types: Vec<&Type> = d.operands.iter().map(|&v| m.ty(v)).collect();
    let result_types: Vec<&Type> = d.results.iter().map(|&v| m.ty(v)).collect();
    let counts = |ops: usize, res: usize| -> Result<(), Diagnostic> {
        if operand_types.len() != ops || result_types.len() != res {
            return Err(Diagnostic::new(
                span,
                format!(
                    "'{name}' takes {ops} operand(s) and gives {res} result(s), found {} and {}",
                    operand_types.len(),
                    result_types.len()
                ),
            ));
        }
        Ok(())
    };
    let family = name.split('.').next().unwrap_or("");
    match name {
        "arith.addi" | "arith.subi" | "arith.muli" | "arith.divsi" | "arith.divui" | "arith.remsi" | "arith.remui"
        | "arith.ceildivsi" | "arith.floordivsi" | "arith.ceildivui" | "arith.andi" | "arith.ori" | "arith.xori"
        | "arith.shli" | "arith.shrsi" | "arith.shrui" | "arith.maxsi" | "arith.minsi" | "arith.maxui"
        | "arith.minui" => {
            counts(2, 1)?;
            if !(operand_types[0] == operand_types[1] && operand_types[0] == result_types[0]) {
                return err(format!(
                    "operands and result must share one type, found {}, {} -> {}",
                    operand_types[0], operand_types[1], result_types[0]
                ));
            }
            if !is_int_like(operand_types[0]) {
                return err(format!(
                    "expects integer-like operands (integers, index, or vectors/tensors of them), found {}",
                    operand_types[0]
                ));
            }
        }
        "arith.addf" | "arith.subf" | "arith.mulf" | "arith.divf" | "arith.remf" | "arith.maximumf"
        | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf" | "math.powf" | "math.atan2" | "math.copysign" => {
            counts(2, 1)?;
            if !(operand_types[0] == operand_types[1] && operand_types[0] == result_types[0]) {
                return err(format!(
                    "operands and result must share one type, found {}, {} -> {}",
                    operand_types[0], operand_types[1], result_types[0]
                ));
            }
            if !is_float_like(operand_types[0]) {
                return err(format!("expects floating-point operands, found {}", operand_types[0]));
            }
        }
        "arith.negf" | "math.sqrt" | "math.rsqrt" | "math.exp" | "math.exp2" | "math.log" | "math.log2"
        | "math.log10" | "math.tanh" | "math.sin" | "math.cos" | "math.absf" | "math.erf" | "math.floor"
        | "math.ceil" | "math.round" | "math.roundeven" | "math.trunc" => {
            counts(1, 1)?;
            if operand_types[0] != result_types[0] || !is_float_like(operand_types[0]) {
                return err(format!(
                    "expects one floating-point operand of the result's type, found {} -> {}",
                    operand_types[0], result_types[0]
                ));
            }
        }
        "math.fma" | "vector.fma" => {
            counts(3, 1)?;
            if operand_types.iter().any(|t| *t != result_types[0]) || !is_float_like(result_types[0]) {
                return err("expects three floating-point operands of the result's type".into());
            }
        }
        "arith.cmpi" | "arith.cmpf" => {
            counts(2, 1)?;
            if operand_types[0] != operand_types[1] {
                return err(format!(
                    "operands must share one type, found {} and {}",
                    operand_types[0], operand_types[1]
                ));
            }
            let ok = if name == "arith.cmpi" { is_int_like(operand_types[0]) } else { is_float_like(operand_types[0]) };
            if !ok {
                return err(format!("unsupported operand type {}", operand_types[0]));
            }
            let want = operand_types[0].with_element(Type::i1());
            if *result_types[0] != want {
                return err(format!("result must be {want}, found {}", result_types[0]));
            }
            let table = if name == "arith.cmpi" { crate::ops::CMPI_PREDICATES } else { crate::ops::CMPF_PREDICATES };
            match m.attr(op, "predicate").and_then(Attribute::as_int) {
                Some(p) if (p as usize) < table.len() && p >= 0 => {}
                _ => return err("needs an integer 'predicate' attribute in range".into()),
            }
        }
        "arith.select" => {
            counts(3, 1)?;
            if operand_types[1] != operand_types[2] || operand_types[1] != result_types[0] {
                return err(format!(
                    "both choices and the result must share one type, found {}, {} -> {}",
                    operand_types[1], operand_types[2], result_types[0]
                ));
            }
            let c = operand_types[0];
            if *c != Type::i1() && *c != result_types[0].with_element(Type::i1()) {
                return err(format!("the condition must be i1 or a shaped i1 matching the operands, found {c}"));
            }
        }
        "arith.extsi" | "arith.extui" | "arith.trunci" => {
            counts(1, 1)?;
            let (a, b) =
                (operand_types[0].element_or_self().int_width(), result_types[0].element_or_self().int_width());
            let ok = match (a, b) {
                (Some(a), Some(b)) => {
                    if name == "arith.trunci" {
                        b < a
                    } else {
                        b > a
                    }
                }
                _ => false,
            };
            if !ok {
                return err(format!("cannot convert {} to {}", operand_types[0], result_types[0]));
            }
        }
        "arith.index_cast" | "arith.index_castui" => {
            counts(1, 1)?;
            let (a, b) = (operand_types[0].element_or_self(), result_types[0].element_or_self());
            if !((a.is_index() && b.is_integer()) || (a.is_integer() && b.is_index())) {
                return err(format!(
                    "casts between index and integer types, not {} to {}",
                    operand_types[0], result_types[0]
                ));
            }
        }
        "arith.sitofp" | "arith.uitofp" => {
            counts(1, 1)?;
            if !(operand_types[0].element_or_self().is_integer() && result_types[0].element_or_self().is_float()) {
                return err(format!("converts an integer to a float, not {} to {}", operand_types[0], result_types[0]));
            }
        }
        "arith.fptosi" | "arith.fptoui" => {
            counts(1, 1)?;
            if !(operand_types[0].element_or_self().is_float() && result_types[0].element_or_self().is_integer()) {
                return err(format!("converts a float to an integer, not {} to {}", operand_types[0], result_types[0]));
            }
        }
        "arith.constant" => {
            counts(0, 1)?;
            let Some(value) = m.attr(op, "value") else { return err("needs a 'value' attribute".into()) };
            let vt = match value {
                Attribute::Integer { ty, .. } | Attribute::Float { ty, .. } | Attribute::Dense { ty, .. } => ty.clone(),
                Attribute::Bool(_) => Type::i1(),
                other => return err(format!("unsupported constant value {other}")),
            };
            if vt != *result_types[0] {
                return err(format!("the value has type {vt}, but the result has type {}", result_types[0]));
            }
        }
        "func.return" => {
            let Some(func) = enclosing_func(m, op) else { return err("must be inside a function".into()) };
            let want = &m.function_type(func).map(|f| f.results.clone()).unwrap_or_default();
            let have: Vec<Type> = operand_types.iter().map(|t| (*t).clone()).collect();
            if *want != have {
                return err(format!(
                    "returns ({}) but the function '@{}' returns ({})",
                    have.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
                    m.sym_name(func).unwrap_or("?"),
                    want.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        "func.call" => {
            let Some(callee) = m.attr(op, "callee").and_then(Attribute::as_symbol) else {
                return err("needs a 'callee' symbol".into());
            };
            let Some(f) = m.lookup_symbol(callee) else { return err(format!("calls undefined function '@{callee}'")) };
            let Some(ft) = m.function_type(f) else { return err(format!("'@{callee}' is not a function")) };
            let ins: Vec<Type> = operand_types.iter().map(|t| (*t).clone()).collect();
            let outs: Vec<Type> = result_types.iter().map(|t| (*t).clone()).collect();
            if ft.inputs != ins || ft.results != outs {
                return err(format!(
                    "the call's type ({}) -> ({}) does not match '@{callee}' of type {}",
                    ins.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
                    outs.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
                    Type::Function(ft.clone())
                ));
            }
        }
        "func.constant" => {
            let Some(sym) = m.attr(op, "value").and_then(Attribute::as_symbol) else {
                return err("needs a symbol 'value'".into());
            };
            let Some(f) = m.lookup_symbol(sym) else { return err(format!("refers to undefined function '@{sym}'")) };
            if m.function_type(f).map(|ft| Type::Function(ft.clone())).as_ref() != result_types.first().copied() {
                return err(format!("the result type does not match the type of '@{sym}'"));
            }
        }
        "cf.cond_br" => {
            if operand_types.len() != 1 || *operand_types[0] != Type::i1() {
                return err("the condition must be a single i1".into());
            }
        }
        "memref.load" | "memref.store" => {
            let (mi, vi) = if name == "memref.load" { (0, None) } else { (1, Some(0)) };
            let Some(mt) = operand_types.get(mi).and_then(|t| t.as_memref()) else {
                return err("needs a memref operand".into());
            };
            let nidx = operand_types.len() - mi - 1;
            if nidx != mt.rank() {
                return err(format!("{nidx} index(es) given for a memref of rank {}", mt.rank()));
            }
            let elem = &*mt.elem;
            match vi {
                None => {
                    if result_types.len() != 1 || result_types[0] != elem {
                        return err(format!("the result must be the element type {elem}"));
                    }
                }
                Some(i) => {
                    if operand_types[i] != elem {
                        return err(format!("stores a {} into a memref of {elem}", operand_types[i]));
                    }
                }
            }
        }
        "memref.alloc" | "memref.alloca" => {
            let Some(mt) = result_types.first().and_then(|t| t.as_memref()) else {
                return err("the result must be a ranked memref".into());
            };
            let dynamic = mt.shape.iter().filter(|d| d.is_none()).count();
            let given = m
                .attr(op, "operandSegmentSizes")
                .and_then(Attribute::as_int_list)
                .map(|s| s[0] as usize)
                .unwrap_or(operand_types.len());
            if dynamic != given {
                return err(format!(
                    "{} has {dynamic} dynamic dimension(s), but {given} size(s) are given",
                    result_types[0]
                ));
            }
        }
        "memref.dim" => {
            let rank = match operand_types.first() {
                Some(Type::MemRef(mt)) => mt.rank(),
                Some(Type::UnrankedMemRef { .. }) => usize::MAX,
                _ => return err("needs a memref operand".into()),
            };
            if let Some(i) = m.attr(op, "index").and_then(Attribute::as_int) {
                if i < 0 || i as usize >= rank {
                    return err(format!("dimension {i} is out of range for a memref of rank {rank}"));
                }
            }
        }
        "memref.cast" => {
            counts(1, 1)?;
            let elem = |t: &Type| match t {
                Type::MemRef(m) => Some((*m.elem).clone()),
                Type::UnrankedMemRef { elem, .. } => Some((**elem).clone()),
                _ => None,
            };
            let (a, b) = (elem(operand_types[0]), elem(result_types[0]));
            if a.is_none() || a != b {
                return err(format!("cannot cast {} to {}", operand_types[0], result_types[0]));
            }
            if let (Type::MemRef(x), Type::MemRef(y)) = (operand_types[0], result_types[0]) {
                if x.rank() != y.rank()
                    || x.shape.iter().zip(&y.shape).any(|(p, q)| p.is_some() && q.is_some() && p != q)
                {
                    return err(format!("incompatible shapes: {} to {}", operand_types[0], result_types[0]));
                }
            }
        }
        "memref.subview" => {
            let (Some(Type::MemRef(src)), Some(Type::MemRef(dst))) = (operand_types.first(), result_types.first())
            else {
                return err("takes a ranked memref and gives one".into());
            };
            for key in ["static_offsets", "static_sizes", "static_strides"] {
                let n = m.attr(op, key).and_then(Attribute::as_int_list).map(|v| v.len());
                if n != Some(src.rank()) {
                    return err(format!("'{key}' must have one entry per source dimension ({})", src.rank()));
                }
            }
            if src.elem != dst.elem || dst.rank() > src.rank() {
                return err(format!("cannot take a subview of type {} from {}", result_types[0], operand_types[0]));
            }
        }
        "memref.view" => {
            let (Some(Type::MemRef(src)), Some(Type::MemRef(dst))) = (operand_types.first(), result_types.first())
            else {
                return err("takes a ranked memref and gives one".into());
            };
            if src.rank() != 1 || *src.elem != Type::i8() {
                return err(format!("the source must be a 1-D memref of i8, not {}", operand_types[0]));
            }
            let dynamic = dst.shape.iter().filter(|d| d.is_none()).count();
            if operand_types.len() != 2 + dynamic {
                return err(format!(
                    "{} has {dynamic} dynamic dimension(s), but {} size(s) are given",
                    result_types[0],
                    operand_types.len() - 2
                ));
            }
            if dst.layout != crate::types::Layout::Identity {
                return err("the result must have the identity layout".into());
            }
        }
        "memref.reshape" => {
            let (Some(Type::MemRef(src)), Some(Type::MemRef(shape)), Some(Type::MemRef(dst))) =
                (operand_types.first(), operand_types.get(1), result_types.first())
            else {
                return err("takes a ranked source, a 1-D shape memref and gives a ranked memref".into());
            };
            if src.elem != dst.elem || shape.rank() != 1 || shape.shape[0] != Some(dst.rank() as u64) {
                return err(format!(
                    "the shape memref must be 1-D with {} entries and element types must agree",
                    dst.rank()
                ));
            }
        }
        "memref.get_global" => {
            let Some(sym) = m.attr(op, "name").and_then(Attribute::as_symbol) else {
                return err("needs a symbol 'name'".into());
            };
            let Some(g) = m.lookup_symbol(sym).filter(|&g| m.ops[g].name == "memref.global") else {
                return err(format!("refers to undefined memref.global '@{sym}'"));
            };
            if m.attr(g, "type").and_then(Attribute::as_type) != result_types.first().copied() {
                return err(format!("the result type does not match the type of '@{sym}'"));
            }
        }
        "std.view" | "std.reshape" => {
            let (Some(Type::MemRef(src)), Some(Type::MemRef(dst))) = (operand_types.first(), result_types.first())
            else {
                return err("takes a ranked memref and gives one".into());
            };
            if src.elem != dst.elem || src.memory_space != dst.memory_space {
                return err(format!(
                    "element type and memory space must match: {} and {}",
                    operand_types[0], result_types[0]
                ));
            }
            let seg = m.attr(op, "operandSegmentSizes").and_then(Attribute::as_int_list).unwrap_or_default();
            let dynamic = dst.shape.iter().filter(|d| d.is_none()).count();
            if seg.len() != 3 || seg[1] as usize != dynamic {
                return err(format!(
                    "{} has {dynamic} dynamic dimension(s), but {} size(s) are given",
                    result_types[0],
                    seg.get(1).copied().unwrap_or(0)
                ));
            }
            if let crate::types::Layout::Map(map) = &dst.layout {
                if map.num_symbols as i128 != seg[2] {
                    return err(format!(
                        "the result's layout map takes {} symbol(s), but {} are given",
                        map.num_symbols, seg[2]
                    ));
                }
            } else if seg[2] != 0 {
                return err("symbols are given, but the result has no layout map".into());
            }
        }
        "memref.dma_start" => {
            let mut i = 0;
            let mut take = |what: &str| -> Result<crate::types::MemRefType, Diagnostic> {
                let Some(Type::MemRef(mt)) = operand_types.get(i) else {
                    return Err(Diagnostic::new(span, format!("'{name}': the {what} must be a memref")));
                };
                i += 1 + mt.rank();
                Ok(mt.clone())
            };
            let src = take("source")?;
            let dst = take("destination")?;
            let _num = i;
            i += 1;
            let tag = {
                let Some(Type::MemRef(mt)) = operand_types.get(i) else {
                    return err("the tag must be a memref".into());
                };
                i += 1 + mt.rank();
                mt.clone()
            };
            if src.elem != dst.elem {
                return err(format!("source and destination element types differ: {} and {}", src.elem, dst.elem));
            }
            if !tag.elem.is_integer() {
                return err("the tag memref must hold integers".into());
            }
            if operand_types.len() != i && operand_types.len() != i + 2 {
                return err("wrong number of operands for the memrefs' ranks".into());
            }
        }
        "memref.dma_wait" => {
            let Some(Type::MemRef(mt)) = operand_types.first() else { return err("the tag must be a memref".into()) };
            if operand_types.len() != mt.rank() + 2 {
                return err(format!(
                    "{} index(es) given for a tag of rank {}",
                    operand_types.len().saturating_sub(2),
                    mt.rank()
                ));
            }
        }
        "scf.yield" | "affine.yield" => {
            let parent = m.ops[op].parent.and_then(|b| m.parent_op_of_block(b));
            if let Some(p) = parent {
                let want: Vec<&Type> = m.ops[p].results.iter().map(|&v| m.ty(v)).collect();
                if want != operand_types {
                    return err(format!(
                        "yields {} value(s) that do not match the {} result(s) of '{}'",
                        operand_types.len(),
                        want.len(),
                        m.ops[p].name
                    ));
                }
            }
        }
        "scf.for" => {
            if operand_types.len() < 3 || operand_types[0] != operand_types[1] || operand_types[1] != operand_types[2] {
                return err("lower bound, upper bound and step must share one type".into());
            }
        }
        "vector.load" | "vector.store" => {
            let (mi, vt) = if name == "vector.load" {
                (0, result_types.first().copied())
            } else {
                (1, operand_types.first().copied())
            };
            let Some(mt) = operand_types.get(mi).and_then(|t| t.as_memref()) else {
                return err("needs a memref operand".into());
            };
            if let Some(Type::Vector { elem, .. }) = vt {
                if *elem != mt.elem {
                    return err(format!("vector elements {elem} differ from memref elements {}", mt.elem));
                }
            } else {
                return err("needs a vector type".into());
            }
            if operand_types.len() - mi - 1 != mt.rank() {
                return err("index count does not match the memref's rank".into());
            }
        }
        _ if family == "llvm" => {}
        _ => {}
    }
    Ok(())
}

fn enclosing_func(m: &Module, op: OpId) -> Option<OpId> {
    let mut at = op;
    loop {
        let b = m.ops[at].parent?;
        let p = m.parent_op_of_block(b)?;
        if m.ops[p].name == "func.func" || m.ops[p].name == "llvm.func" {
            return Some(p);
        }
        at = p;
    }
}
