//! The geometry of a convolution or pooling window: kernel, strides, dilations, pads (explicit
//! or from `auto_pad`) and the output size they give, shared by Conv and the pools.

use crate::graph::*;

/// Spatial geometry of a convolution or pooling window.
#[derive(Clone, Debug)]
pub struct Window {
    pub kernel: Vec<usize>,
    pub strides: Vec<usize>,
    pub dilations: Vec<usize>,
    /// Begin pads then end pads, per spatial dim.
    pub pads: Vec<usize>,
    pub out: Vec<usize>,
}

pub fn window(node: &Node, spatial_in: &[usize], kernel: Vec<usize>) -> OResult<Window> {
    let sizes: Vec<Option<usize>> = spatial_in.iter().map(|&n| Some(n)).collect();
    window_of(node, &sizes, kernel)
}

/// The window over spatial dims some of which may be known only at run time, and the output's
/// spatial dims: along a run-time dim the output is `floor((in + pads - eff) / stride) + 1`
/// (`ceil_mode` rounds up, keeping the last window's start inside the input or the left
/// padding), an expression of the dims when the stride is 1 and a dim the run computes
/// otherwise, named `OUTPUT.AXIS`. The run checks that the padded input holds one window.
/// `auto_pad` SAME with a stride above 1 is refused there: its pads would depend on the dim.
pub fn window_over(node: &Node, g: &Graph, spatial_in: &[Dim], kernel: Vec<usize>) -> OResult<(Window, Vec<Dim>)> {
    let sizes: Vec<Option<usize>> = spatial_in.iter().map(Dim::as_fixed).collect();
    let win = window_of(node, &sizes, kernel)?;
    let ceil = node.int("ceil_mode", 0) == 1;
    let mut out = Vec::with_capacity(spatial_in.len());
    for (i, input) in spatial_in.iter().enumerate() {
        if input.is_fixed() {
            out.push(Dim::fixed(win.out[i]));
            continue;
        }
        let n = spatial_in.len();
        let eff = ((win.kernel[i] - 1) * win.dilations[i] + 1) as i64;
        let (begin, stride) = (win.pads[i] as i64, win.strides[i] as i64);
        let x = DataExpr::Dim(input.clone());
        let padded = x.add(&DataExpr::num(begin + win.pads[i + n] as i64));
        g.require(
            padded.lt(&DataExpr::num(eff)).not(),
            format!("spatial dim {} ({input}) with its pads is smaller than the window ({eff})", i + 2),
        )?;
        let span = padded.sub(&DataExpr::num(eff));
        let mut count = if ceil { span.add(&DataExpr::num(stride - 1)) } else { span }
            .floor_div(&DataExpr::num(stride))
            .add(&DataExpr::num(1));
        if ceil {
            // The last window must start inside the input or the left padding: (count - 1) *
            // stride < in + begin, that is count <= ceil((in + begin) / stride).
            let starts = x.add(&DataExpr::num(begin + stride - 1)).floor_div(&DataExpr::num(stride));
            count = count.min(&starts);
        }
        out.push(g.data_dim(format!("{}.{}", node.outputs[0], i + 2), count));
    }
    Ok((win, out))
}

/// The largest kernel size, stride, dilation or pad: the window arithmetic stays far from
/// overflow, and no real model comes near it.
const WINDOW_LIMIT: usize = 1 << 24;

/// A list attribute of a window (`strides`, `dilations`, `pads`), each value between `min` and
/// [`WINDOW_LIMIT`], or `default` where the node has none.
pub(super) fn window_ints(node: &Node, name: &str, default: Vec<usize>, min: i64) -> OResult<Vec<usize>> {
    let Some(values) = node.ints(name) else { return Ok(default) };
    values
        .iter()
        .map(|&v| {
            if (min..=WINDOW_LIMIT as i64).contains(&v) {
                Ok(v as usize)
            } else {
                err(format!("{name} value {v} is out of range ({min} to {WINDOW_LIMIT})"))
            }
        })
        .collect()
}

/// The window over spatial sizes, `None` where known only at run time (its `out` then 0).
fn window_of(node: &Node, spatial_in: &[Option<usize>], kernel: Vec<usize>) -> OResult<Window> {
    let n = spatial_in.len();
    let strides = window_ints(node, "strides", vec![1; n], 1)?;
    let dilations = window_ints(node, "dilations", vec![1; n], 1)?;
    let mut pads = window_ints(node, "pads", vec![0; 2 * n], 0)?;
    if let Some(k) = kernel.iter().find(|&&k| k == 0 || k > WINDOW_LIMIT) {
        return err(format!("a kernel size of {k} is out of range (1 to {WINDOW_LIMIT})"));
    }
    if strides.len() != n
        || dilations.len() != n
        || pads.len() != 2 * n
        || kernel.len() != n
        || strides.contains(&0)
        || dilations.contains(&0)
    {
        return err("strides, dilations, pads and kernel_shape do not match the spatial rank");
    }
    let ceil = node.int("ceil_mode", 0) == 1;
    let auto_pad = node.string("auto_pad").unwrap_or("NOTSET");
    let mut out = vec![0; n];
    for i in 0..n {
        let eff = (kernel[i] - 1) * dilations[i] + 1;
        let Some(size) = spatial_in[i] else {
            match auto_pad {
                "SAME_UPPER" | "SAME_LOWER" if strides[i] > 1 => {
                    return err(format!(
                        "auto_pad {auto_pad} with stride {} along spatial dim {}, which is known only at run time: \
                         the pads would depend on it (fix it with --dim)",
                        strides[i],
                        i + 2
                    ))
                }
                // With stride 1 the output keeps the input's size and the pads are eff - 1 in all.
                "SAME_UPPER" | "SAME_LOWER" => {
                    let (small, big) = ((eff - 1) / 2, eff - 1 - (eff - 1) / 2);
                    (pads[i], pads[i + n]) = if auto_pad == "SAME_UPPER" { (small, big) } else { (big, small) };
                }
                "VALID" => (pads[i], pads[i + n]) = (0, 0),
                _ => {}
            }
            continue;
        };
        match auto_pad {
            "SAME_UPPER" | "SAME_LOWER" => {
                out[i] = size.div_ceil(strides[i]);
                let total = (out[i].saturating_sub(1) * strides[i] + eff).saturating_sub(size);
                let (small, big) = (total / 2, total - total / 2);
                if auto_pad == "SAME_UPPER" {
                    pads[i] = small;
                    pads[i + n] = big;
                } else {
                    pads[i] = big;
                    pads[i + n] = small;
                }
            }
            "VALID" => {
                pads[i] = 0;
                pads[i + n] = 0;
                out[i] = (size.saturating_sub(eff)) / strides[i] + 1;
            }
            _ => {
                let padded = size + pads[i] + pads[i + n];
                if padded < eff {
                    return err(format!("the window ({eff}) is larger than the padded input ({padded})"));
                }
                out[i] = if ceil {
                    let mut o = (padded - eff).div_ceil(strides[i]) + 1;
                    // The last window must start inside the input or the left padding.
                    if (o - 1) * strides[i] >= size + pads[i] {
                        o -= 1;
                    }
                    o
                } else {
                    (padded - eff) / strides[i] + 1
                };
            }
        }
    }
    Ok(Window { kernel, strides, dilations, pads, out })
}
