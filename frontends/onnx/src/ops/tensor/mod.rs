//! Data-movement and shape operators, one per file. Most are [`Movement`]s: a list of copies
//! through affine maps ([`Move`]), which is both how they lower (one `kernel.generic` per copy)
//! and how they fold (the same maps evaluated on constant data), so the two cannot disagree.
//! The data-dependent rest (Gather, GatherElements, GatherND, Trilu, and Pad but for a constant
//! pad that only grows static dims: a fill and a shifted copy) are parallel loops,
//! ScatterElements and ScatterND serial ones over their updates, and Constant, Shape and Size
//! exist only at compile time (as constants, or as shape values over run-time dims);
//! ConstantOfShape and Range fold too, unless their shape is computed from run-time dims.

mod affine_grid;
mod center_crop_pad;
mod concat;
mod constant;
mod depth_space;
mod einsum;
mod expand;
mod eye_like;
mod gather;
mod gather_elements;
mod gather_nd;
mod non_zero;
mod one_hot;
mod pad;
mod range;
mod reshape;
mod reverse_sequence;
mod scatter;
mod scatter_expansions;
mod shape;
mod slice;
mod split;
mod tile;
mod transpose;
mod trilu;
mod unique;

use crate::emit::{identity, Emitter, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use crate::ops::schema::{Elements, Group, Schema, ANY};
use crate::ops::shapes::strides_of;
use xcc_ir::affine::{AffineExpr, AffineMap};
use xcc_ir::{Type, ValueId};

pub fn register(r: &mut crate::ops::onnx_op::Registry) {
    r.register(&["Constant"], &constant::Constant, Schema::exactly(0));
    r.register(&["ConstantOfShape"], &constant::ConstantOfShape, Schema::exactly(1).int64(&[0]));
    r.register(&["Range"], &range::Range, Schema::exactly(3).same_type(Group::All));
    r.register(&["Shape"], &shape::Shape, Schema::exactly(1).elements(Elements::Any));
    r.register(&["Size"], &shape::Size, Schema::exactly(1).elements(Elements::Any));
    r.register(&["Reshape"], &reshape::Reshape, Schema::exactly(2).int64(&[1]).elements(Elements::Any));
    r.register(&["Flatten"], &reshape::Flatten, Schema::exactly(1).elements(Elements::Any));
    r.register(&["Squeeze"], &reshape::Squeeze, Schema::inputs(1, 2).int64(&[1]).elements(Elements::Any));
    r.register(
        &["Unsqueeze"],
        &reshape::Unsqueeze,
        Schema::inputs(1, 2).required_from(13, 2).int64(&[1]).elements(Elements::Any),
    );
    r.register(&["Transpose"], &transpose::Transpose, Schema::exactly(1).elements(Elements::Any));
    r.register(&["Concat"], &concat::Concat, Schema::inputs(1, ANY).same_type(Group::All).elements(Elements::Any));
    r.register(&["Split"], &split::Split, Schema::inputs(1, 2).int64(&[1]).elements(Elements::Any));
    r.register(
        &["Slice"],
        &slice::Slice,
        Schema::inputs(1, 5).required_from(10, 3).index(&[1, 2, 3, 4]).elements(Elements::Any),
    );
    r.register(&["Expand"], &expand::Expand, Schema::exactly(2).int64(&[1]).elements(Elements::Any));
    r.register(&["Tile"], &tile::Tile, Schema::inputs(2, 3).int64(&[1]).elements(Elements::Any));
    r.register(&["Gather"], &gather::Gather, Schema::exactly(2).index(&[1]).elements(Elements::Any));
    r.register(
        &["GatherElements"],
        &gather_elements::GatherElements,
        Schema::exactly(2).index(&[1]).elements(Elements::Strings),
    );
    r.register(&["GatherND"], &gather_nd::GatherNd, Schema::exactly(2).int64(&[1]).elements(Elements::Strings));
    r.register(
        &["ScatterElements"],
        &scatter::ScatterElements,
        Schema::exactly(3).same_type(Group::Inputs(&[0, 2])).index(&[1]).elements(Elements::Strings),
    );
    r.register(
        &["Scatter"],
        &scatter::ScatterElements,
        Schema::exactly(3).same_type(Group::Inputs(&[0, 2])).index(&[1]),
    );
    r.register(
        &["ScatterND"],
        &scatter::ScatterNd,
        Schema::exactly(3).same_type(Group::Inputs(&[0, 2])).int64(&[1]).elements(Elements::Strings),
    );
    r.register(
        &["Pad"],
        &pad::Pad,
        Schema::inputs(1, 4).required_from(11, 2).same_type(Group::Inputs(&[0, 2])).int64(&[1]),
    );
    r.register(&["Trilu"], &trilu::Trilu, Schema::inputs(1, 2).int64(&[1]));
    r.register(&["NonZero"], &non_zero::NonZero, Schema::exactly(1));
    r.register(&["Compress"], &non_zero::Compress, Schema::exactly(2).elements(Elements::Strings));
    r.register(&["Unique"], &unique::Unique, Schema::exactly(1));
    // Operators defined by others (crate::ops::expansion).
    use crate::ops::expansion::Expand as Expanded;
    r.register(&["SpaceToDepth"], &Expanded(depth_space::SpaceToDepth), Schema::exactly(1));
    r.register(&["DepthToSpace"], &Expanded(depth_space::DepthToSpace), Schema::exactly(1));
    r.register(&["OneHot"], &Expanded(one_hot::OneHot), Schema::exactly(3));
    r.register(&["EyeLike"], &Expanded(eye_like::EyeLike), Schema::exactly(1));
    r.register(&["Einsum"], &Expanded(einsum::Einsum), Schema::inputs(1, ANY));
    r.register(&["CenterCropPad"], &Expanded(center_crop_pad::CenterCropPad), Schema::exactly(2));
    r.register(&["AffineGrid"], &Expanded(affine_grid::AffineGrid), Schema::exactly(2));
    r.register(&["MaxUnpool"], &Expanded(scatter_expansions::MaxUnpool), Schema::inputs(2, 3));
    r.register(&["TensorScatter"], &Expanded(scatter_expansions::TensorScatter), Schema::inputs(2, 3));
    r.register(
        &["ReverseSequence"],
        &Expanded(reverse_sequence::ReverseSequence),
        Schema::exactly(2).elements(Elements::Strings),
    );
}

/// One copy of a data-movement operator: every point of `space` reads input `src` at `src_map`
/// and writes output `dst` at `dst_map`.
pub struct Move {
    pub src: usize,
    pub src_map: AffineMap,
    pub dst: usize,
    pub dst_map: AffineMap,
    pub space: Vec<usize>,
}

impl Move {
    /// A copy from input `src` read through `src_map` into the whole of output `dst`.
    fn gather_into(src: usize, src_map: AffineMap, dst: usize, out_shape: &[usize]) -> Move {
        Move { src, src_map, dst, dst_map: identity(out_shape.len()), space: out_shape.to_vec() }
    }
}

/// A copy whose positions the run computes (Slice's starts read at run time, Split's sizes,
/// Concat's offsets along a run-time axis, Tile's repeats of a run-time dim): every point `i`
/// reads input `src` at `starts[d] + i[d] * steps[d]` along each dim `d` (wrapped around the
/// input's dim where `wraps[d]`), and writes output `dst` at `i`.
pub struct Window {
    pub src: usize,
    pub dst: usize,
    pub starts: Vec<DataExpr>,
    pub steps: Vec<DataExpr>,
    /// `None`: the points are the output's; `Some`: they are the input's, each written at
    /// `offsets[d] + i[d]`.
    pub offsets: Option<Vec<DataExpr>>,
    /// Per dim, whether the position is taken modulo the input's dim (Tile).
    pub wraps: Vec<bool>,
}

impl Window {
    /// Reads at `starts` by `steps` into the whole of output `dst`.
    fn read(src: usize, dst: usize, starts: Vec<DataExpr>, steps: Vec<DataExpr>) -> Window {
        let wraps = vec![false; starts.len()];
        Window { src, dst, starts, steps, offsets: None, wraps }
    }

    /// All of input `src` written into output `dst` at `offsets`.
    fn write_at(src: usize, dst: usize, offsets: Vec<DataExpr>) -> Window {
        let rank = offsets.len();
        Window {
            src,
            dst,
            starts: vec![DataExpr::num(0); rank],
            steps: vec![DataExpr::num(1); rank],
            offsets: Some(offsets),
            wraps: vec![false; rank],
        }
    }

    /// A parallel loop over the points; the positions' terms are computed once, before it.
    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter, out: &TensorType) -> OResult<()> {
        let (src, dst) = (e.buf(&node.inputs[self.src])?, e.buf(&node.outputs[self.dst])?);
        let starts: Vec<ValueId> = self.starts.iter().map(|x| e.data_value(x)).collect();
        let steps: Vec<Option<ValueId>> =
            self.steps.iter().map(|x| (x.as_const() != Some(1)).then(|| e.data_value(x))).collect();
        let offsets: Option<Vec<ValueId>> = self.offsets.as_ref().map(|o| o.iter().map(|x| e.data_value(x)).collect());
        let space = match &self.offsets {
            Some(_) => g.ty(&node.inputs[self.src])?.dims(),
            None => out.dims(),
        };
        let extents = e.dim_extents(&space);
        let input = g.ty(&node.inputs[self.src])?.dims();
        let periods: Vec<Option<ValueId>> = (0..input.len())
            .map(|d| {
                self.wraps[d].then(|| {
                    let n = e.dim_extent(&input[d]);
                    e.extent(n)
                })
            })
            .collect();
        e.parallel_over(&extents, &mut |e, ivs| {
            let at: Vec<ValueId> = (0..ivs.len())
                .map(|d| {
                    let scaled = match steps[d] {
                        Some(step) => e.value_op("arith.muli", &[ivs[d], step], Type::Index),
                        None => ivs[d],
                    };
                    let at = e.value_op("arith.addi", &[starts[d], scaled], Type::Index);
                    match periods[d] {
                        Some(n) => e.value_op("arith.remui", &[at, n], Type::Index),
                        None => at,
                    }
                })
                .collect();
            let v = e.load(src, &at);
            match &offsets {
                Some(offsets) => {
                    let to: Vec<ValueId> = offsets
                        .iter()
                        .zip(ivs)
                        .map(|(&o, &i)| e.value_op("arith.addi", &[o, i], Type::Index))
                        .collect();
                    e.store(v, dst, &to);
                }
                None => e.store(v, dst, ivs),
            }
        });
        Ok(())
    }
}

/// An operator that is a list of [`Move`]s.
pub trait Movement: Sync {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>>;
    /// The copies, from the input types (with the constant inputs: Slice's starts, ...) and the
    /// output types.
    fn moves(&self, node: &Node, g: &Graph, outputs: &[TensorType]) -> OResult<Vec<Move>>;
    /// The copies as [`Window`]s when some parameter is read at run time (`None`: [`Self::moves`]).
    fn windows(&self, _: &Node, _: &Graph, _: &[TensorType]) -> OResult<Option<Vec<Window>>> {
        Ok(None)
    }
    /// Whether the shape rule reads [`TensorType::dims`] and the maps hold at any size (a loop's
    /// size then comes from the buffers).
    fn takes_run_time_dims(&self) -> bool {
        false
    }
    /// [`OnnxOp::fold_shape`].
    fn fold_shape(&self, _: &Node, _: &Graph, _: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        None
    }
}

impl<T: Movement> OnnxOp for T {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        Movement::infer(self, node, g)
    }

    fn fold(&self, node: &Node, inputs: &[Option<&Tensor>]) -> Option<OResult<Vec<Tensor>>> {
        Some(fold_moves(self, node, inputs))
    }

    fn takes_run_time_dims(&self) -> bool {
        Movement::takes_run_time_dims(self)
    }

    fn fold_shape(&self, node: &Node, g: &Graph, inputs: &[Option<ShapeValue>]) -> Option<OResult<Vec<ShapeValue>>> {
        Movement::fold_shape(self, node, g, inputs)
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let outputs = Movement::infer(self, node, g)?;
        if let Some(windows) = self.windows(node, g, &outputs)? {
            for w in windows.iter().filter(|w| !node.outputs[w.dst].is_empty()) {
                w.lower(node, g, e, &outputs[w.dst])?;
            }
            return Ok(());
        }
        for mv in self.moves(node, g, &outputs)? {
            if node.outputs[mv.dst].is_empty() {
                continue;
            }
            let (src, dst) = (e.buf(&node.inputs[mv.src])?, e.buf(&node.outputs[mv.dst])?);
            let rank = mv.space.len();
            e.generic(&[(src, mv.src_map)], &[(dst, mv.dst_map)], vec![true; rank], |_, args| Ok(vec![args[0]]))?;
        }
        Ok(())
    }
}

/// Runs the moves on constant data.
fn fold_moves(op: &dyn Movement, node: &Node, inputs: &[Option<&Tensor>]) -> OResult<Vec<Tensor>> {
    let g = consts_graph(node, inputs);
    let types = op.infer(node, &g)?;
    let moves = op.moves(node, &g, &types)?;
    let mut outs: Vec<Tensor> = types.into_iter().map(|ty| Tensor { data: vec![0; ty.bytes()], ty }).collect();
    for mv in moves {
        let src = inputs[mv.src].expect("a folded node's inputs are constants");
        let esize = src.ty.dtype.size();
        let (src_strides, dst_strides) = (strides_of(&src.ty.shape), strides_of(&outs[mv.dst].ty.shape));
        for point in points(&mv.space) {
            let at = |map: &AffineMap, strides: &[usize]| -> usize {
                map.results
                    .iter()
                    .zip(strides)
                    .map(|(r, &s)| r.eval(&point, &[]).expect("no division") as usize * s)
                    .sum()
            };
            let (from, to) = (at(&mv.src_map, &src_strides) * esize, at(&mv.dst_map, &dst_strides) * esize);
            outs[mv.dst].data[to..to + esize].copy_from_slice(&src.data[from..from + esize]);
        }
    }
    Ok(outs)
}

/// Every multi-index of `shape`, row-major.
fn points(shape: &[usize]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let strides = strides_of(shape);
    (0..shape.iter().product::<usize>())
        .map(move |flat| strides.iter().zip(shape).map(|(&s, &d)| ((flat / s) % d.max(1)) as i64).collect())
}

/// A graph holding just the node's constant inputs, to run its shape rule while folding.
fn consts_graph(node: &Node, inputs: &[Option<&Tensor>]) -> Graph {
    let mut g = Graph::default();
    for (name, x) in node.inputs.iter().zip(inputs) {
        if let Some(x) = x {
            g.types.insert(name.clone(), x.ty.clone());
            g.consts.insert(name.clone(), (*x).clone());
        }
    }
    g
}

/// Input `i` if the node has it; it must then be a compile-time constant.
fn const_input<'a>(g: &'a Graph, node: &Node, i: usize, what: &str) -> OResult<Option<&'a Tensor>> {
    match node.input(i) {
        None => Ok(None),
        Some(name) => match g.consts.get(name) {
            Some(t) => Ok(Some(t)),
            None => err(format!("{what} input '{name}' must be a compile-time constant")),
        },
    }
}

/// Input `i` if the node has it, as dims: a constant's numbers, or a shape value's expressions
/// (a shape computed from run-time dims).
pub(crate) fn dims_input(g: &Graph, node: &Node, i: usize, what: &str) -> OResult<Option<Vec<Dim>>> {
    let Some(name) = node.input(i) else { return Ok(None) };
    if let Some(v) = g.shape_values.get(name) {
        return Ok(Some(v.values.clone()));
    }
    match g.consts.get(name) {
        Some(t) => Ok(Some(t.to_i64().into_iter().map(Dim::constant).collect())),
        None => err(format!(
            "{what} input '{name}' must be a compile-time constant or computed from dims (Shape, Gather, Concat, ...)"
        )),
    }
}

/// Squeeze/Unsqueeze take `axes` as an attribute before opset 13 and as an input after.
fn axes_of(node: &Node, g: &Graph, input_index: usize) -> OResult<Option<Vec<i64>>> {
    if let Some(a) = node.ints("axes") {
        return Ok(Some(a));
    }
    Ok(const_input(g, node, input_index, "axes")?.map(|t| t.to_i64()))
}

fn dim(d: usize) -> AffineExpr {
    AffineExpr::Dim(d as u32)
}

fn offset(e: AffineExpr, c: i64) -> AffineExpr {
    if c == 0 {
        e
    } else {
        AffineExpr::Add(Box::new(e), Box::new(AffineExpr::Const(c)))
    }
}

fn map(rank: usize, results: Vec<AffineExpr>) -> AffineMap {
    AffineMap { num_dims: rank as u32, num_symbols: 0, results }
}

/// The identity map of `rank` dims with `base` added along `axis` (a piece of a Concat or Split).
fn shifted(rank: usize, axis: usize, base: usize) -> AffineMap {
    map(rank, (0..rank).map(|d| if d == axis { offset(dim(d), base as i64) } else { dim(d) }).collect())
}

/// The error for operators that exist only at compile time, met with inputs known only at run time.
pub(crate) fn needs_constants<T>(node: &Node) -> OResult<T> {
    err(format!("{} needs constant inputs", node.op))
}

#[cfg(test)]
mod tests {
    //! Folding evaluates the same maps that the lowering emits; these check it against values
    //! worked out by hand.

    use super::*;
    use std::collections::BTreeMap;

    fn node(op: &str, inputs: usize, outputs: usize, attrs: &[(&str, Attr)]) -> Node {
        Node {
            name: String::new(),
            op: op.into(),
            domain: String::new(),
            inputs: (0..inputs).map(|i| format!("in{i}")).collect(),
            outputs: (0..outputs).map(|i| format!("out{i}")).collect(),
            attrs: attrs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect::<BTreeMap<_, _>>(),
            opset: 18,
            guard: None,
        }
    }

    fn ints(shape: &[usize], values: &[i64]) -> Tensor {
        Tensor::from_i64(shape.to_vec(), values)
    }

    fn fold(n: &Node, inputs: &[&Tensor]) -> Vec<Tensor> {
        let inputs: Vec<Option<&Tensor>> = inputs.iter().map(|&t| Some(t)).collect();
        let op = crate::ops::registry().get(&n.op).expect("registered");
        op.fold(n, &inputs).expect("folds").expect("no error")
    }

    #[test]
    fn transpose_swaps_dims() {
        let x = ints(&[2, 3], &[1, 2, 3, 4, 5, 6]);
        let out = fold(&node("Transpose", 1, 1, &[]), &[&x]);
        assert_eq!(out[0].ty.shape, [3, 2]);
        assert_eq!(out[0].to_i64(), [1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn concat_places_each_input_at_its_offset() {
        let (a, b) = (ints(&[2, 1], &[1, 2]), ints(&[2, 2], &[3, 4, 5, 6]));
        let out = fold(&node("Concat", 2, 1, &[("axis", Attr::Int(1))]), &[&a, &b]);
        assert_eq!(out[0].ty.shape, [2, 3]);
        assert_eq!(out[0].to_i64(), [1, 3, 4, 2, 5, 6]);
    }

    #[test]
    fn split_gives_consecutive_pieces() {
        let x = ints(&[5], &[1, 2, 3, 4, 5]);
        let out = fold(&node("Split", 1, 2, &[("split", Attr::Ints(vec![2, 3]))]), &[&x]);
        assert_eq!(out[0].to_i64(), [1, 2]);
        assert_eq!(out[1].to_i64(), [3, 4, 5]);
    }

    #[test]
    fn slice_with_a_negative_step_reads_backwards() {
        // x[4:0:-2] along the only axis: indices 4 and 2.
        let x = ints(&[5], &[10, 11, 12, 13, 14]);
        let (starts, ends, axes, steps) = (ints(&[1], &[4]), ints(&[1], &[0]), ints(&[1], &[0]), ints(&[1], &[-2]));
        let out = fold(&node("Slice", 5, 1, &[]), &[&x, &starts, &ends, &axes, &steps]);
        assert_eq!(out[0].to_i64(), [14, 12]);
    }

    #[test]
    fn expand_and_tile_repeat_the_input() {
        let x = ints(&[2, 1], &[1, 2]);
        let shape = ints(&[2], &[2, 3]);
        assert_eq!(fold(&node("Expand", 2, 1, &[]), &[&x, &shape])[0].to_i64(), [1, 1, 1, 2, 2, 2]);
        let repeats = ints(&[2], &[2, 2]);
        assert_eq!(fold(&node("Tile", 2, 1, &[]), &[&x, &repeats])[0].to_i64(), [1, 1, 2, 2, 1, 1, 2, 2]);
    }

    #[test]
    fn gather_selects_blocks_and_wraps_negative_indices() {
        let x = ints(&[3, 2], &[1, 2, 3, 4, 5, 6]);
        let idx = ints(&[2], &[2, -3]);
        let out = fold(&node("Gather", 2, 1, &[]), &[&x, &idx]);
        assert_eq!(out[0].ty.shape, [2, 2]);
        assert_eq!(out[0].to_i64(), [5, 6, 1, 2]);
        let bad = ints(&[1], &[3]);
        let inputs = [Some(&x), Some(&bad)];
        let n = node("Gather", 2, 1, &[]);
        let e = crate::ops::registry().get("Gather").unwrap().fold(&n, &inputs).unwrap().unwrap_err();
        assert!(e.message.contains("out of range"), "{}", e.message);
    }
}
