//! GridSample: each output point samples X at the point its grid entry gives (normalized to
//! [-1, 1], x first), parallel over the outputs. The modes: nearest (rounding half to even),
//! linear (over the 2^r corners, for 2-D and 3-D inputs) and cubic (a 4x4 neighbourhood with
//! coefficient -0.75, 2-D). A coordinate outside the input is, by padding_mode, a zero sample
//! (zeros), moved onto the edge (border), or reflected back in (reflection); a neighbour outside
//! the input reads zero with zeros padding and the nearest edge otherwise. Cubic sampling pads
//! each of its neighbours rather than the coordinate. align_corners puts -1
//! and 1 on the corner pixels' centres rather than on their outer edges.

use crate::emit::{compute_type, Emitter, Extent, LoopBuilder};
use crate::graph::*;
use crate::ops::onnx_op::OnnxOp;
use xcc_ir::{Type, ValueId};

pub struct GridSample;

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Nearest,
    Linear,
    Cubic,
}

#[derive(Clone, Copy, PartialEq)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

struct Sampling {
    mode: Mode,
    padding: Padding,
    align_corners: bool,
    sizes: Vec<usize>,
    dtype: DType,
}

fn sampling(node: &Node, g: &Graph) -> OResult<Sampling> {
    let x = super::float_input(node, g)?;
    let grid = g.ty(&node.inputs[1])?;
    let r = x.shape.len().saturating_sub(2);
    if !(r == 2 || r == 3) || x.is_dynamic() || grid.is_dynamic() || grid.shape.len() != r + 2 || grid.shape[r + 1] != r
    {
        return err(format!(
            "X must be 4-D or 5-D and the grid [N, ..., {r}], known at compile time, not {} and {}",
            x.describe(),
            grid.describe()
        ));
    }
    if grid.shape[0] != x.shape[0] {
        return err(format!("X and the grid have different batches: {} and {}", x.describe(), grid.describe()));
    }
    let mode = match node.string("mode").unwrap_or(if node.opset < 20 { "bilinear" } else { "linear" }) {
        "nearest" => Mode::Nearest,
        "linear" | "bilinear" => Mode::Linear,
        "cubic" | "bicubic" if r == 2 => Mode::Cubic,
        m => return err(format!("mode {m} is not supported on {r}-D inputs")),
    };
    let padding = match node.string("padding_mode").unwrap_or("zeros") {
        "zeros" => Padding::Zeros,
        "border" => Padding::Border,
        "reflection" => Padding::Reflection,
        p => return err(format!("padding_mode {p} is not supported")),
    };
    Ok(Sampling {
        mode,
        padding,
        align_corners: node.int("align_corners", 0) != 0,
        sizes: x.shape[2..].to_vec(),
        dtype: x.dtype,
    })
}

impl OnnxOp for GridSample {
    fn infer(&self, node: &Node, g: &Graph) -> OResult<Vec<TensorType>> {
        let s = sampling(node, g)?;
        let (x, grid) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
        let r = s.sizes.len();
        let mut shape = vec![x.shape[0], x.shape[1]];
        shape.extend(&grid.shape[1..1 + r]);
        Ok(vec![TensorType::new(x.dtype, shape)])
    }

    fn lower(&self, node: &Node, g: &Graph, e: &mut Emitter) -> OResult<()> {
        let s = sampling(node, g)?;
        let (x, grid, out) = (e.buf(&node.inputs[0])?, e.buf(&node.inputs[1])?, e.buf(&node.outputs[0])?);
        let out_t = g.ty(&node.outputs[0])?;
        let extents: Vec<Extent> = out_t.shape.iter().map(|&d| Extent::Fixed(d)).collect();
        let r = s.sizes.len();
        e.parallel_over(&extents, &mut |e, ivs| {
            let (n, c, at) = (ivs[0], ivs[1], &ivs[2..]);
            // Spatial dim k's coordinate is the grid's component r - 1 - k (x is the last dim).
            let coords: Vec<ValueId> = (0..r)
                .map(|k| {
                    let component = e.idx((r - 1 - k) as i64);
                    let mut index = vec![n];
                    index.extend_from_slice(at);
                    index.push(component);
                    let v = e.load(grid, &index);
                    let v = e.convert(v, s.dtype, DType::F32);
                    let u = unnormalize(e, &s, v, s.sizes[k]);
                    // Cubic pads each neighbour instead (pad_neighbour, pixel).
                    if s.mode == Mode::Cubic {
                        u
                    } else {
                        pad_coordinate(e, &s, u, s.sizes[k])
                    }
                })
                .collect();
            let v = match s.mode {
                Mode::Nearest => {
                    let rounded: Vec<ValueId> = coords.iter().map(|&u| f(e, "math.roundeven", &[u])).collect();
                    pixel(e, &s, x, n, c, &rounded)
                }
                Mode::Linear => linear(e, &s, x, n, c, &coords),
                Mode::Cubic => cubic(e, &s, x, n, c, &coords),
            };
            let v = e.convert(v, DType::F32, s.dtype);
            let mut index = vec![n, c];
            index.extend_from_slice(at);
            e.store(v, out, &index);
        });
        Ok(())
    }
}

fn f(e: &mut Emitter, op: &str, args: &[ValueId]) -> ValueId {
    e.value_op(op, args, Type::f32())
}

fn k(e: &mut Emitter, v: f64) -> ValueId {
    e.const_float(v, Type::f32())
}

/// A grid value in [-1, 1] as a coordinate in pixels of a dim of `size`.
fn unnormalize(e: &mut Emitter, s: &Sampling, g: ValueId, size: usize) -> ValueId {
    let one = k(e, 1.0);
    let shifted = f(e, "arith.addf", &[g, one]);
    if s.align_corners {
        let scale = k(e, (size as f64 - 1.0) / 2.0);
        f(e, "arith.mulf", &[shifted, scale])
    } else {
        let scale = k(e, size as f64 / 2.0);
        let half = k(e, 0.5);
        let scaled = f(e, "arith.mulf", &[shifted, scale]);
        f(e, "arith.subf", &[scaled, half])
    }
}

/// The extent a coordinate is kept in by border and reflection padding.
fn bounds(s: &Sampling, size: usize) -> (f64, f64) {
    if s.align_corners {
        (0.0, size as f64 - 1.0)
    } else {
        (-0.5, size as f64 - 0.5)
    }
}

/// The coordinate after padding_mode: clamped onto `[0, size - 1]` (border), or reflected into
/// the extent, then clamped (reflection); as it is with zeros.
fn pad_coordinate(e: &mut Emitter, s: &Sampling, u: ValueId, size: usize) -> ValueId {
    match s.padding {
        Padding::Zeros => u,
        Padding::Border => clamp(e, u, 0.0, size as f64 - 1.0),
        Padding::Reflection => {
            let (lo, hi) = bounds(s, size);
            let r = reflect(e, u, lo, hi);
            clamp(e, r, 0.0, size as f64 - 1.0)
        }
    }
}

fn clamp(e: &mut Emitter, v: ValueId, lo: f64, hi: f64) -> ValueId {
    let (lo, hi) = (k(e, lo), k(e, hi));
    let v = f(e, "arith.maximumf", &[v, lo]);
    f(e, "arith.minimumf", &[v, hi])
}

/// `u` reflected into `[lo, hi]` as often as it takes: its distance past the edge folded by the
/// extent's length, from the near edge after an even number of folds, the far one after odd.
fn reflect(e: &mut Emitter, u: ValueId, lo: f64, hi: f64) -> ValueId {
    let length = hi - lo;
    if length <= 0.0 {
        return k(e, lo);
    }
    let (lo_v, len_v, two) = (k(e, lo), k(e, length), k(e, 2.0));
    // The distance from lo, folded into one period of 2 * length: [0, length] forward, then back.
    let from_lo = f(e, "arith.subf", &[u, lo_v]);
    let distance = f(e, "math.absf", &[from_lo]);
    let period = f(e, "arith.mulf", &[len_v, two]);
    let periods = f(e, "arith.divf", &[distance, period]);
    let whole = f(e, "math.floor", &[periods]);
    let taken = f(e, "arith.mulf", &[whole, period]);
    let folded = f(e, "arith.subf", &[distance, taken]);
    let back = f(e, "arith.subf", &[period, folded]);
    let beyond = e.cmpf("ogt", folded, len_v);
    let within = e.value_op("arith.select", &[beyond, back, folded], Type::f32());
    f(e, "arith.addf", &[lo_v, within])
}

/// X at integer coordinates (floats holding whole numbers): zero outside with zeros padding,
/// the nearest edge otherwise.
fn pixel(e: &mut Emitter, s: &Sampling, x: ValueId, n: ValueId, c: ValueId, at: &[ValueId]) -> ValueId {
    let mut index = vec![n, c];
    let mut inside: Option<ValueId> = None;
    for (d, &u) in at.iter().enumerate() {
        let size = s.sizes[d];
        let (zero, last) = (k(e, 0.0), k(e, size as f64 - 1.0));
        if s.padding == Padding::Zeros {
            let above = e.cmpf("oge", u, zero);
            let below = e.cmpf("ole", u, last);
            let ok = e.value_op("arith.andi", &[above, below], Type::i1());
            inside = Some(match inside {
                Some(i) => e.value_op("arith.andi", &[i, ok], Type::i1()),
                None => ok,
            });
        }
        // Clamped for the load (NaN to 0): the value read is dropped when outside.
        let clamped = clamp(e, u, 0.0, size as f64 - 1.0);
        let i = e.value_op("arith.fptosi", &[clamped], Type::i64());
        index.push(e.value_op("arith.index_cast", &[i], Type::Index));
    }
    let v = e.load(x, &index);
    let v = e.convert(v, s.dtype, DType::F32);
    match inside {
        Some(ok) => {
            let zero = k(e, 0.0);
            e.value_op("arith.select", &[ok, v, zero], compute_type(DType::F32))
        }
        None => v,
    }
}

/// The weighted sum over the 2^r corners around the coordinates.
fn linear(e: &mut Emitter, s: &Sampling, x: ValueId, n: ValueId, c: ValueId, coords: &[ValueId]) -> ValueId {
    let one = k(e, 1.0);
    let lows: Vec<ValueId> = coords.iter().map(|&u| f(e, "math.floor", &[u])).collect();
    let highs: Vec<ValueId> = lows.iter().map(|&l| f(e, "arith.addf", &[l, one])).collect();
    let fractions: Vec<ValueId> = coords.iter().zip(&lows).map(|(&u, &l)| f(e, "arith.subf", &[u, l])).collect();
    let mut sum = k(e, 0.0);
    for corner in 0..1usize << coords.len() {
        let mut weight = one;
        let mut at = Vec::new();
        for d in 0..coords.len() {
            let high = corner >> d & 1 == 1;
            let w = if high { fractions[d] } else { f(e, "arith.subf", &[one, fractions[d]]) };
            weight = f(e, "arith.mulf", &[weight, w]);
            at.push(if high { highs[d] } else { lows[d] });
        }
        let v = pixel(e, s, x, n, c, &at);
        sum = e.value_op("math.fma", &[weight, v, sum], Type::f32());
    }
    sum
}

/// The cubic convolution weights of the four neighbours at offsets -1, 0, 1, 2 of a point
/// `t` in [0, 1) past the floor (coefficient -0.75).
fn cubic_weights(e: &mut Emitter, t: ValueId) -> [ValueId; 4] {
    let f32t = Type::f32();
    let near = |e: &mut Emitter, d: ValueId| crate::ops::resize::emit_cubic_pieces(e, d, -0.75, &f32t).0;
    let far = |e: &mut Emitter, d: ValueId| crate::ops::resize::emit_cubic_pieces(e, d, -0.75, &f32t).1;
    let (one, two) = (k(e, 1.0), k(e, 2.0));
    let d_m1 = f(e, "arith.addf", &[t, one]);
    let d_1 = f(e, "arith.subf", &[one, t]);
    let d_2 = f(e, "arith.subf", &[two, t]);
    [far(e, d_m1), near(e, t), near(e, d_1), far(e, d_2)]
}

/// The 4x4 neighbourhood around a 2-D coordinate, weighted by cubic convolution.
fn cubic(e: &mut Emitter, s: &Sampling, x: ValueId, n: ValueId, c: ValueId, coords: &[ValueId]) -> ValueId {
    let floors: Vec<ValueId> = coords.iter().map(|&u| f(e, "math.floor", &[u])).collect();
    let fractions: Vec<ValueId> = coords.iter().zip(&floors).map(|(&u, &l)| f(e, "arith.subf", &[u, l])).collect();
    let (wy, wx) = (cubic_weights(e, fractions[0]), cubic_weights(e, fractions[1]));
    let mut sum = k(e, 0.0);
    for (i, &wyi) in wy.iter().enumerate() {
        let dy = k(e, i as f64 - 1.0);
        let y = f(e, "arith.addf", &[floors[0], dy]);
        for (j, &wxj) in wx.iter().enumerate() {
            let dx = k(e, j as f64 - 1.0);
            let xx = f(e, "arith.addf", &[floors[1], dx]);
            let at = [pad_neighbour(e, s, y, s.sizes[0]), pad_neighbour(e, s, xx, s.sizes[1])];
            let v = pixel(e, s, x, n, c, &at);
            let w = f(e, "arith.mulf", &[wyi, wxj]);
            sum = e.value_op("math.fma", &[w, v, sum], Type::f32());
        }
    }
    sum
}

/// A cubic neighbour's index under reflection padding: reflected into the input (the other
/// paddings are the pixel read's).
fn pad_neighbour(e: &mut Emitter, s: &Sampling, u: ValueId, size: usize) -> ValueId {
    if s.padding == Padding::Reflection {
        let (lo, hi) = bounds(s, size);
        let r = reflect(e, u, lo, hi);
        let r = f(e, "math.roundeven", &[r]);
        clamp(e, r, 0.0, size as f64 - 1.0)
    } else {
        u
    }
}
