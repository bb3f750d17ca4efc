//! Adagrad, Adam and Momentum. Each takes the learning rate `R` and the update count `T`
//! (scalars), then `n` tensors to optimize followed by their gradients and state, one group of
//! `n` per role (`X_1..X_n, G_1..G_n, H_1..H_n`); its outputs are the new tensors, then the new
//! state, grouped the same way. Every tensor is updated independently, so each is expanded on
//! its own with the same scalar factors.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Adagrad;
pub struct Adam;
pub struct Momentum;

/// The inputs and outputs of an optimizer node, split into groups of `n`.
struct Groups<'a> {
    node: &'a Node,
    n: usize,
}

impl<'a> Groups<'a> {
    /// `roles` inputs per tensor after `R` and `T`, and `outputs` per tensor.
    fn of(node: &'a Node, roles: usize, outputs: usize) -> OResult<Groups<'a>> {
        let tensors = node.inputs.len().saturating_sub(2);
        if tensors == 0 || !tensors.is_multiple_of(roles) {
            return err(format!(
                "{} takes R, T and {roles} inputs per optimized tensor, not {} inputs",
                node.op,
                node.inputs.len()
            ));
        }
        let n = tensors / roles;
        if node.outputs.len() != n * outputs {
            return err(format!(
                "{} of {n} tensor(s) has {} outputs, not {}",
                node.op,
                node.outputs.len(),
                n * outputs
            ));
        }
        Ok(Groups { node, n })
    }

    /// Input `role` (0: X, 1: G, ...) of tensor `i`.
    fn input(&self, role: usize, i: usize) -> &'a str {
        &self.node.inputs[2 + role * self.n + i]
    }

    /// Output `role` (0: X_new, ...) of tensor `i`, or `None` when the model leaves it unnamed.
    fn output(&self, role: usize, i: usize) -> Option<&'a str> {
        Some(self.node.outputs[role * self.n + i].as_str()).filter(|s| !s.is_empty())
    }
}

/// The element type of the optimized tensors (all the same, floating point); `R` and `T` are
/// converted to it.
fn element_type(g: &Graph, groups: &Groups) -> OResult<DType> {
    let d = g.ty(groups.input(0, 0))?.dtype;
    if !d.is_float() {
        return err(format!("{} optimizes floating-point tensors, not {}", groups.node.op, d.name()));
    }
    let roles = (groups.node.inputs.len() - 2) / groups.n;
    for role in 0..roles {
        for i in 0..groups.n {
            let t = g.ty(groups.input(role, i))?;
            if t.dtype != d {
                let name = groups.input(role, i);
                return err(format!("'{name}' is {}, but the optimized tensors are {}", t.dtype.name(), d.name()));
            }
        }
    }
    Ok(d)
}

/// `R` and `T` in the element type `d`, and `T > 0` as a boolean scalar.
fn scalars(node: &Node, g: &Graph, x: &mut Expansion, d: DType) -> OResult<(String, String, String)> {
    let (rt, tt) = (g.ty(&node.inputs[0])?, g.ty(&node.inputs[1])?);
    for (name, t) in [("R", rt), ("T", tt)] {
        if t.numel() != 1 {
            return err(format!("{}'s {name} must be one value, not {}", node.op, t.describe()));
        }
    }
    let r = x.cast(&node.inputs[0], rt.dtype, d);
    let r = x.reshape(&r, &[]);
    let t = x.cast(&node.inputs[1], tt.dtype, d);
    let t = x.reshape(&t, &[]);
    let zero = x.scalar(0.0, d);
    let positive = x.op("Greater", &[&t, &zero], &[]);
    Ok((r, t, positive))
}

/// `norm_coefficient * X + G`.
fn regularized(x: &mut Expansion, node: &Node, d: DType, xv: &str, gv: &str) -> String {
    let norm = x.scalar(node.float("norm_coefficient", 0.0) as f64, d);
    let decay = x.op("Mul", &[&norm, xv], &[]);
    x.op("Add", &[&decay, gv], &[])
}

impl Expanded for Adagrad {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let groups = Groups::of(node, 3, 2)?;
        let d = element_type(g, &groups)?;
        let (r, t, _) = scalars(node, g, x, d)?;
        // r = R / (1 + T * decay_factor)
        let (one, decay) = (x.scalar(1.0, d), x.scalar(node.float("decay_factor", 0.0) as f64, d));
        let decayed = x.op("Mul", &[&t, &decay], &[]);
        let denominator = x.op("Add", &[&one, &decayed], &[]);
        let rate = x.op("Div", &[&r, &denominator], &[]);
        let epsilon = x.scalar(node.float("epsilon", 1e-6) as f64, d);
        for i in 0..groups.n {
            let (xv, gv, hv) = (groups.input(0, i), groups.input(1, i), groups.input(2, i));
            let gr = regularized(x, node, d, xv, gv);
            let squared = x.op("Mul", &[&gr, &gr], &[]);
            let h_new = x.op("Add", &[hv, &squared], &[]);
            let root = x.op("Sqrt", &[&h_new], &[]);
            let adaptive = x.op("Add", &[&root, &epsilon], &[]);
            let step = x.op("Mul", &[&rate, &gr], &[]);
            let step = x.op("Div", &[&step, &adaptive], &[]);
            let x_new = x.op("Sub", &[xv, &step], &[]);
            x.output(&x_new, groups.output(0, i));
            x.output(&h_new, groups.output(1, i));
        }
        Ok(())
    }
}

impl Expanded for Adam {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let groups = Groups::of(node, 4, 3)?;
        let d = element_type(g, &groups)?;
        let (r, t, positive) = scalars(node, g, x, d)?;
        let (alpha, beta) = (node.float("alpha", 0.9) as f64, node.float("beta", 0.999) as f64);
        let one = x.scalar(1.0, d);
        let (a, b) = (x.scalar(alpha, d), x.scalar(beta, d));
        let (one_minus_a, one_minus_b) = (x.scalar(1.0 - alpha, d), x.scalar(1.0 - beta, d));
        // R_adjusted = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
        let (a_t, b_t) = (x.op("Pow", &[&a, &t], &[]), x.op("Pow", &[&b, &t], &[]));
        let (bias_a, bias_b) = (x.op("Sub", &[&one, &a_t], &[]), x.op("Sub", &[&one, &b_t], &[]));
        let root_b = x.op("Sqrt", &[&bias_b], &[]);
        let scaled = x.op("Mul", &[&r, &root_b], &[]);
        let adjusted = x.op("Div", &[&scaled, &bias_a], &[]);
        let rate = x.op("Where", &[&positive, &adjusted, &r], &[]);
        let epsilon = x.scalar(node.float("epsilon", 1e-6) as f64, d);
        let post = x.scalar(1.0 - node.float("norm_coefficient_post", 0.0) as f64, d);
        for i in 0..groups.n {
            let (xv, gv) = (groups.input(0, i), groups.input(1, i));
            let (vv, hv) = (groups.input(2, i), groups.input(3, i));
            let gr = regularized(x, node, d, xv, gv);
            // V_new = alpha * V + (1 - alpha) * G_r
            let (kept, added) = (x.op("Mul", &[&a, vv], &[]), x.op("Mul", &[&one_minus_a, &gr], &[]));
            let v_new = x.op("Add", &[&kept, &added], &[]);
            // H_new = beta * H + (1 - beta) * G_r * G_r
            let squared = x.op("Mul", &[&gr, &gr], &[]);
            let (kept, added) = (x.op("Mul", &[&b, hv], &[]), x.op("Mul", &[&one_minus_b, &squared], &[]));
            let h_new = x.op("Add", &[&kept, &added], &[]);
            let root = x.op("Sqrt", &[&h_new], &[]);
            let h_sqrt = x.op("Add", &[&root, &epsilon], &[]);
            let direction = x.op("Div", &[&v_new, &h_sqrt], &[]);
            let step = x.op("Mul", &[&rate, &direction], &[]);
            let x_new = x.op("Sub", &[xv, &step], &[]);
            let x_final = x.op("Mul", &[&post, &x_new], &[]);
            x.output(&x_final, groups.output(0, i));
            x.output(&v_new, groups.output(1, i));
            x.output(&h_new, groups.output(2, i));
        }
        Ok(())
    }
}

impl Expanded for Momentum {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let groups = Groups::of(node, 3, 2)?;
        let d = element_type(g, &groups)?;
        let nesterov = match node.string("mode").unwrap_or("standard") {
            "standard" => false,
            "nesterov" => true,
            m => return err(format!("Momentum's mode must be 'standard' or 'nesterov', not '{m}'")),
        };
        let (r, _, positive) = scalars(node, g, x, d)?;
        let a = x.scalar(node.float("alpha", 0.0) as f64, d);
        // beta_adjusted = T > 0 ? beta : 1
        let (b, one) = (x.scalar(node.float("beta", 0.0) as f64, d), x.scalar(1.0, d));
        let beta = x.op("Where", &[&positive, &b, &one], &[]);
        for i in 0..groups.n {
            let (xv, gv, vv) = (groups.input(0, i), groups.input(1, i), groups.input(2, i));
            let gr = regularized(x, node, d, xv, gv);
            let (kept, added) = (x.op("Mul", &[&a, vv], &[]), x.op("Mul", &[&beta, &gr], &[]));
            let v_new = x.op("Add", &[&kept, &added], &[]);
            // Standard: X - R * V_new; Nesterov: X - R * (G_r + alpha * V_new).
            let direction = if nesterov {
                let ahead = x.op("Mul", &[&a, &v_new], &[]);
                x.op("Add", &[&gr, &ahead], &[])
            } else {
                v_new.clone()
            };
            let step = x.op("Mul", &[&r, &direction], &[]);
            let x_new = x.op("Sub", &[xv, &step], &[]);
            x.output(&x_new, groups.output(0, i));
            x.output(&v_new, groups.output(1, i));
        }
        Ok(())
    }
}
