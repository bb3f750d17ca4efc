//! `kernel-fuse-planes-epilogue`: the elementwise `kernel.generic` that reads the sums of a
//! `kernel.conv_planes` becomes the convolution's `epilogue_map`, computed in the registers the
//! sums are stored from. In a quantized model that generic is the requantization (the input's
//! zero point times the weights' row sums subtracted, scales, a bias per channel, rounding, the
//! output's zero point and clamp), often with the next operator's dequantization fused in by
//! `kernel-fuse-elementwise`: the sums then never go through memory as i32, and the convolution
//! writes bytes (or the floats a depthwise convolution reads) directly. Where it writes floats
//! dequantized from the bytes it rounded, the round trip through the byte is dropped
//! ([`super::round_trips`]).
//!
//! The generic may read the sums `[N, M, Q]` directly or through their reshape (a `kernel.copy`
//! to `[N, M, H, W']`), at the identity, over an iteration space as large or smaller (a
//! convolution over planes computes `W' - W` columns past each output row, which the generic
//! drops). Its other inputs must hold one element, or one per output channel read at the
//! channel. Where the generic drops columns, a copy of the stored elements to the output's
//! shape stays: a pass over bytes where there was one over i32 sums.

use super::fuse::{
    add_private_function, body_parts, constant_element, hoist_before, is_alloc, is_elementwise, readers_and_writers,
    remove_buffer, touched_between,
};
use super::ops_named;
use crate::pass::{LoweringOptions, Pass};
use std::collections::HashMap;
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::dialects::kernel::{is_map_op, Generic};
use xcc_ir::types::{FunctionType, Layout, MemRefType};
use xcc_ir::{Attribute, Diagnostic, Module, OpId, OpSpec, Span, Type, ValueId};

pub struct FusePlanesEpilogue;

impl Pass for FusePlanesEpilogue {
    fn name(&self) -> &'static str {
        "kernel-fuse-planes-epilogue"
    }

    fn run(&self, mut m: Module, _: &LoweringOptions) -> Result<Module, Diagnostic> {
        let mut made = 0;
        while let Some(found) = find(&m) {
            fuse(&mut m, &found, &mut made);
        }
        Ok(m)
    }
}

/// A convolution over planes and the generic that reads its sums.
struct Found {
    planes: OpId,
    generic: OpId,
    /// The reshape (`kernel.copy`) of the sums that the generic reads, if it reads one.
    reshape: Option<OpId>,
    /// What the generic reads: the sums or their reshape.
    read: ValueId,
}

fn find(m: &Module) -> Option<Found> {
    for planes in ops_named(m, &["kernel.conv_planes"]) {
        if m.attr(planes, "epilogue_map").is_some() || is_straight_line(m, planes) {
            continue;
        }
        let sums = m.ops[planes].operands[2];
        let Some(reader) = only_reader(m, sums, planes) else { continue };
        let (reshape, read, generic) = if m.ops[reader].name == "kernel.copy" {
            let reshaped = m.ops[reader].operands[1];
            let Some(generic) = only_reader(m, reshaped, reader) else { continue };
            (Some(reader), reshaped, generic)
        } else {
            (None, sums, reader)
        };
        let Some(g) = Generic::of(m, generic) else { continue };
        let channels = static_shape(m, sums).map_or(0, |s| s[1]);
        let others: Vec<ValueId> = g.inputs.iter().copied().filter(|&v| v != read).collect();
        if is_epilogue(m, &g, read, channels)
            && !touched_between(m, planes, generic, &[&g.outputs[..], &others].concat())
        {
            return Some(Found { planes, generic, reshape, read });
        }
    }
    None
}

/// The taps past which a convolution whose taps each read one channel quad stays unfused.
const STRAIGHT_LINE_TAPS: usize = 9;

/// Whether the convolution's tiles are one long straight line of products: every tap reads one
/// channel quad (its loop over quads runs once and disappears), and there are more taps than a
/// 3x3's. LLVM's scheduler interleaves such a line's taps and already spills accumulators there;
/// an epilogue at its end spills more (resnet18's 7x7 stem over 3 channels: 194 stack accesses
/// instead of 76, the model 3% slower), where a separate pass over its sums costs less.
fn is_straight_line(m: &Module, planes: OpId) -> bool {
    let taps = m.attr(planes, "tap_offsets").and_then(Attribute::as_int_list).map_or(0, |t| t.len());
    let w = m.ops[planes].operands[1];
    let quads_per_tap = static_shape(m, w).and_then(|s| s.get(2).copied()).map_or(0, |k| k / 4);
    quads_per_tap == 1 && taps > STRAIGHT_LINE_TAPS
}

/// The one operation other than `writer` that uses the buffer `v`, an allocation.
fn only_reader(m: &Module, v: ValueId, writer: OpId) -> Option<OpId> {
    if !is_alloc(m, v) {
        return None;
    }
    match readers_and_writers(m, v)[..] {
        [a, b] if a == writer => Some(b),
        [a, b] if b == writer => Some(a),
        _ => None,
    }
}

fn static_shape(m: &Module, v: ValueId) -> Option<Vec<u64>> {
    m.ty(v).as_memref()?.shape.iter().copied().collect()
}

/// Whether generic `g` computes its one output elementwise from `read` (at the identity, over
/// the same or a smaller space, images and channels alike) and from inputs of one element or
/// one per channel, with arith and math alone.
fn is_epilogue(m: &Module, g: &Generic, read: ValueId, channels: u64) -> bool {
    let (Some(shape), Some(out)) = (static_shape(m, read), g.outputs.first().and_then(|&o| static_shape(m, o))) else {
        return false;
    };
    let within = out.len() == shape.len()
        && out.len() >= 2
        && out[..2] == shape[..2]
        && out.iter().zip(&shape).all(|(o, s)| o <= s);
    let one_output = g.outputs.len() == 1 && g.maps[g.inputs.len()].is_identity();
    let inputs_fit = g.inputs.iter().zip(&g.maps).all(|(&v, map)| {
        if v == read {
            return map.is_identity();
        }
        static_shape(m, v).is_some_and(|s| read_per_channel(&s, map, channels).is_some())
    });
    let sums_i32 = m.ty(read).as_memref().is_some_and(|t| *t.elem == Type::i32());
    within && one_output && inputs_fit && sums_i32 && is_elementwise(g) && body_is_map(m, g)
}

/// How an input of `shape` read at `map` is indexed by output channel (loop 1): `Some(false)`
/// for one element, `Some(true)` for one per channel at the channel, else `None`.
fn read_per_channel(shape: &[u64], map: &AffineMap, channels: u64) -> Option<bool> {
    let count: u64 = shape.iter().product();
    let constant = |e: &AffineExpr| matches!(e, AffineExpr::Const(0));
    if count == 1 && map.results.iter().all(constant) {
        return Some(false);
    }
    let at_channel = map
        .results
        .iter()
        .zip(shape)
        .all(|(e, &d)| (*e == AffineExpr::Dim(1) && d == channels) || (constant(e) && d == 1));
    let once = map.results.iter().filter(|e| **e == AffineExpr::Dim(1)).count() == 1;
    (count == channels && at_channel && once).then_some(true)
}

/// Whether the body yields one value computed from its inputs' elements by arith and math
/// operations, not reading the output's element or anything defined outside.
fn body_is_map(m: &Module, g: &Generic) -> bool {
    let Some((args, result, body)) = body_parts(m, g) else { return false };
    let inputs = &args[..g.inputs.len()];
    let local = |v: &ValueId| inputs.contains(v) || m.defining_op(*v).is_some_and(|d| body.contains(&d));
    body.iter().all(|&o| is_map_op(m, o) && m.ops[o].operands.iter().all(local)) && local(&result)
}

fn fuse(m: &mut Module, f: &Found, made: &mut usize) {
    let g = Generic::of(m, f.generic).expect("a generic");
    let span = m.ops[f.generic].span;
    let z = g.outputs[0];
    let elem = |m: &Module, v: ValueId| (*m.ty(v).as_memref().expect("a memref").elem).clone();
    let out_elem = elem(m, z);
    let others: Vec<ValueId> =
        g.inputs.iter().copied().filter(|&v| v != f.read && constant_element(m, v).is_none()).collect();
    let func = map_function(m, &g, f.read, (&out_elem, made), span);
    let sums = m.ops[f.planes].operands[2];
    let sums_shape = static_shape(m, sums).expect("static");
    let z_shape = static_shape(m, z).expect("static");
    // Where the generic wrote its output whole from the sums (no reshape), the convolution
    // writes it; otherwise into a new buffer of the sums' shape, reshaped as before.
    let direct = f.reshape.is_none() && z_shape == sums_shape;
    let stored = if direct {
        hoist_before(m, z, f.planes);
        z
    } else {
        alloc_before(m, f.planes, &sums_shape, &out_elem, span)
    };
    for &v in &others {
        hoist_before(m, v, f.planes);
    }
    let mut operands = m.ops[f.planes].operands[..2].to_vec();
    operands.push(stored);
    operands.extend(&others);
    m.ops[f.planes].operands = operands;
    m.set_attr(f.planes, "epilogue_map", Attribute::symbol(func));
    if !direct {
        let reshaped = match f.reshape {
            Some(copy) => {
                let shape = static_shape(m, f.read).expect("static");
                if shape == z_shape {
                    // The reshape writes the output itself.
                    hoist_before(m, z, copy);
                    m.ops[copy].operands = vec![stored, z];
                    None
                } else {
                    let r = alloc_before(m, copy, &shape, &out_elem, span);
                    m.ops[copy].operands = vec![stored, r];
                    Some(r)
                }
            }
            None => Some(stored),
        };
        if let Some(r) = reshaped {
            copy_window(m, f.generic, (r, z), &out_elem, span);
        }
    }
    m.erase_op(f.generic);
    if f.read != sums {
        remove_buffer(m, f.read);
    }
    remove_buffer(m, sums);
}

/// The generic's body as a function `(i32 sum, other inputs' elements...) -> output element`,
/// at the end of the module; its name.
fn map_function(m: &mut Module, g: &Generic, read: ValueId, (out, made): (&Type, &mut usize), span: Span) -> String {
    let (args, result, body) = body_parts(m, g).expect("checked");
    let region = m.new_region();
    let block = m.append_block(region, span);
    let sum = m.add_block_arg(block, Type::i32(), span);
    let mut values: HashMap<ValueId, ValueId> = HashMap::new();
    let mut inputs = vec![Type::i32()];
    for (&arg, &input) in args.iter().zip(&g.inputs) {
        if input == read {
            values.insert(arg, sum);
        } else if let Some(value) = constant_element(m, input) {
            // A constant of the map, broadcast by the lowering, rather than an operand loaded
            // for every tile: values loaded ahead of a tile's loops stay live through them, and
            // the accumulators already fill the registers.
            let spec = OpSpec::new("arith.constant", span).results([m.ty(arg).clone()]).attr("value", value);
            let op = m.build(block, spec);
            values.insert(arg, m.result(op, 0));
        } else {
            let ty = m.ty(arg).clone();
            inputs.push(ty.clone());
            let param = m.add_block_arg(block, ty, span);
            values.insert(arg, param);
        }
    }
    for op in body {
        let copy = m.clone_op(op, &mut values);
        m.append_op(block, copy);
    }
    m.build(block, OpSpec::new("func.return", span).operands([*values.get(&result).unwrap_or(&result)]));
    super::round_trips::fold(m, block);
    super::clamps::fold(m, block);
    let ty = FunctionType { inputs, results: vec![out.clone()] };
    add_private_function(m, ("xcc_planes_epilogue", made), ty, region, span)
}

fn alloc_before(m: &mut Module, anchor: OpId, shape: &[u64], elem: &Type, span: Span) -> ValueId {
    let t = MemRefType {
        shape: shape.iter().map(|&d| Some(d)).collect(),
        elem: Box::new(elem.clone()),
        layout: Layout::Identity,
        memory_space: None,
    };
    let spec = OpSpec::new("memref.alloc", span)
        .results([Type::MemRef(t)])
        .attr("alignment", Attribute::i64(64))
        .attr("operandSegmentSizes", xcc_ir::parser::forms::segment_sizes(&[0, 0]));
    let op = m.build_before(anchor, spec);
    m.result(op, 0)
}

/// Before `anchor`: a generic copying `to`'s elements from the same indices of `from` (a
/// buffer as large or larger in each dim), dropping the rest.
fn copy_window(m: &mut Module, anchor: OpId, (from, to): (ValueId, ValueId), elem: &Type, span: Span) {
    let rank = static_shape(m, to).expect("static").len();
    let region = m.new_region();
    let block = m.append_block(region, span);
    let element = m.add_block_arg(block, elem.clone(), span);
    m.add_block_arg(block, elem.clone(), span);
    m.build(block, OpSpec::new("kernel.yield", span).operands([element]));
    let identity = AffineMap::identity(rank as u32);
    let copy = Generic {
        inputs: vec![from],
        outputs: vec![to],
        maps: vec![identity.clone(), identity],
        parallel: vec![true; rank],
        body: region,
    };
    m.build_before(anchor, copy.spec(span));
}
