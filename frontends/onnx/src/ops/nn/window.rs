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
    let n = spatial_in.len();
    let strides: Vec<usize> =
        node.ints("strides").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![1; n]);
    let dilations: Vec<usize> =
        node.ints("dilations").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![1; n]);
    let mut pads: Vec<usize> =
        node.ints("pads").map(|v| v.iter().map(|&x| x as usize).collect()).unwrap_or(vec![0; 2 * n]);
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
        match auto_pad {
            "SAME_UPPER" | "SAME_LOWER" => {
                out[i] = spatial_in[i].div_ceil(strides[i]);
                let total = ((out[i] - 1) * strides[i] + eff).saturating_sub(spatial_in[i]);
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
                out[i] = (spatial_in[i].saturating_sub(eff)) / strides[i] + 1;
            }
            _ => {
                let padded = spatial_in[i] + pads[i] + pads[i + n];
                if padded < eff {
                    return err(format!("the window ({eff}) is larger than the padded input ({padded})"));
                }
                out[i] = if ceil {
                    let mut o = (padded - eff).div_ceil(strides[i]) + 1;
                    // The last window must start inside the input or the left padding.
                    if (o - 1) * strides[i] >= spatial_in[i] + pads[i] {
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
