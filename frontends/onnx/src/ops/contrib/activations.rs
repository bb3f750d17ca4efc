//! Gelu, BiasGelu (`Gelu(a + b)`), FastGelu (the tanh form, with an optional bias), QuickGelu
//! (`x * sigmoid(alpha * x)`, alpha 1.702) and BiasAdd (`x + bias + skip`).

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct Activation;

impl Expanded for Activation {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let t = g.ty(&node.inputs[0])?;
        if !t.dtype.is_float() {
            return err(format!("{} takes floating-point tensors, not {}", node.op, t.dtype.name()));
        }
        let out = [node.outputs[0].as_str()];
        let with_bias = |x: &mut Expansion| match node.input(1) {
            Some(b) => x.op("Add", &[&node.inputs[0], b], &[]),
            None => node.inputs[0].clone(),
        };
        match node.op.as_str() {
            "Gelu" | "BiasGelu" => {
                let v = with_bias(x);
                x.op_to("Gelu", &[&v], &[], &out);
            }
            "FastGelu" => {
                let v = with_bias(x);
                x.op_to("Gelu", &[&v], &[("approximate", Attr::Str("tanh".into()))], &out);
            }
            "QuickGelu" => {
                let alpha = x.scalar(node.float("alpha", 1.702) as f64, t.dtype);
                let scaled = x.op("Mul", &[&node.inputs[0], &alpha], &[]);
                let gate = x.op("Sigmoid", &[&scaled], &[]);
                x.op_to("Mul", &[&node.inputs[0], &gate], &[], &out);
            }
            _ => {
                // BiasAdd: X + bias + skip.
                let (Some(bias), Some(skip)) = (node.input(1), node.input(2)) else {
                    return err("BiasAdd takes X, bias and skip");
                };
                let v = x.op("Add", &[&node.inputs[0], bias], &[]);
                x.op_to("Add", &[&v, skip], &[], &out);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! BiasAdd has no kernel in ONNX Runtime's CPU build to compare with: its expansion is
    //! checked on constants, which it folds, against values worked out by hand.

    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn bias_add_adds_bias_and_skip() {
        let node = Node {
            name: "ba".into(),
            op: "BiasAdd".into(),
            domain: crate::ops::contrib::DOMAIN.into(),
            inputs: vec!["x".into(), "bias".into(), "skip".into()],
            outputs: vec!["y".into()],
            attrs: BTreeMap::new(),
            opset: 1,
            guard: None,
        };
        let mut g = Graph { nodes: vec![node], outputs: vec!["y".into()], ..Default::default() };
        for (name, shape, values) in [
            ("x", vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]),
            ("bias", vec![2], vec![10.0, 20.0]),
            ("skip", vec![2, 2], vec![100.0, 200.0, 300.0, 400.0]),
        ] {
            let t = Tensor::from_f64(DType::F32, shape, &values);
            g.types.insert(name.into(), t.ty.clone());
            g.consts.insert(name.into(), t);
        }
        crate::infer::infer_and_fold(&mut g).unwrap();
        assert_eq!(g.consts["y"].to_f64(), [111.0, 222.0, 313.0, 424.0]);
    }
}
