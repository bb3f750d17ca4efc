//! MultiHeadAttention, as the default domain's Attention over 3-D query, key and value:
//! num_heads heads for all three, the optional bias added to each (`[D_q + D_k + D_v]`),
//! key_padding_mask (`[batch, keys]`, 0 = masked) as mask_filter_value added to the scores,
//! attention_bias added, `unidirectional` as causal, past_key and past_value concatenated
//! before the new ones and returned as present_key and present_value.

use crate::graph::*;
use crate::ops::expansion::{Expanded, Expansion};

pub struct MultiHeadAttention;

impl Expanded for MultiHeadAttention {
    fn write(&self, node: &Node, g: &Graph, x: &mut Expansion) -> OResult<()> {
        let heads = node.int("num_heads", 0);
        let (Some(key), Some(value)) = (node.input(1), node.input(2)) else {
            return err("MultiHeadAttention without separate key and value (packed QKV) is not supported");
        };
        let (q_t, k_t, v_t) = (g.ty(&node.inputs[0])?, g.ty(key)?, g.ty(value)?);
        if heads <= 0 || q_t.shape.len() != 3 || k_t.shape.len() != 3 || v_t.shape.len() != 3 {
            return err(format!(
                "MultiHeadAttention takes num_heads and 3-D query, key and value, not {}, {}, {}",
                q_t.describe(),
                k_t.describe(),
                v_t.describe()
            ));
        }
        let d = q_t.dtype;
        let (mut q, mut k, mut v) = (node.inputs[0].clone(), key.to_string(), value.to_string());
        if let Some(bias) = node.input(3) {
            let (dq, dk, dv) = (q_t.shape[2] as i64, k_t.shape[2] as i64, v_t.shape[2] as i64);
            let part = |x: &mut Expansion, from: i64, len: i64, t: &str| {
                let (a, b, axes) = (x.ints(&[from]), x.ints(&[from + len]), x.ints(&[0]));
                let slice = x.op("Slice", &[bias, &a, &b, &axes], &[]);
                x.op("Add", &[t, &slice], &[])
            };
            q = part(x, 0, dq, &q);
            k = part(x, dq, dk, &k);
            v = part(x, dq + dk, dv, &v);
        }
        let mut mask: Option<String> = None;
        if let Some(padding) = node.input(4) {
            let pt = g.ty(padding)?;
            if pt.shape.len() != 2 {
                return err(format!("key_padding_mask must be [batch, keys], not {}", pt.describe()));
            }
            let zero = x.constant(Tensor::from_f64(pt.dtype, vec![], &[0.0]));
            let masked = x.op("Equal", &[padding, &zero], &[]);
            let (filter, none) = (x.scalar(node.float("mask_filter_value", -10000.0) as f64, d), x.scalar(0.0, d));
            let b = x.op("Where", &[&masked, &filter, &none], &[]);
            mask = Some(x.unsqueeze(&b, &[1, 2]));
        }
        if let Some(bias) = node.input(5) {
            mask = Some(match mask {
                Some(m) => x.op("Add", &[&m, bias], &[]),
                None => bias.to_string(),
            });
        }
        let mut attrs = vec![
            ("q_num_heads", Attr::Int(heads)),
            ("kv_num_heads", Attr::Int(heads)),
            ("is_causal", Attr::Int(node.int("unidirectional", 0))),
        ];
        if node.attrs.contains_key("scale") {
            attrs.push(("scale", Attr::Float(node.float("scale", 1.0))));
        }
        let mask = mask.unwrap_or_default();
        let inputs = [q.as_str(), &k, &v, &mask, node.input(6).unwrap_or(""), node.input(7).unwrap_or("")];
        let used = if inputs[4].is_empty() { 4 } else { 6 };
        let outputs: Vec<&str> = node.outputs.iter().take(3).map(String::as_str).collect();
        x.op_to("Attention", &inputs[..used], &attrs, &outputs);
        Ok(())
    }
}
