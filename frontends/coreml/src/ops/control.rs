//! `while_loop`, unrolled: converters such as coremltools' write recurrences (torch's GRU) as
//! loops over a counter, whose condition is known at compile time once the counter is
//! ([`super::fold`]). Each iteration imports the condition block on the loop variables, then,
//! while it holds, the body block, whose outputs are the next variables.

use super::{Convert, OpContext};
use crate::value::Const;
use std::collections::HashMap;

pub fn register(r: &mut HashMap<&'static str, Convert>) {
    r.insert("while_loop", while_loop);
}

/// The most iterations a loop unrolls to.
const MAX_ITERATIONS: usize = 4096;

fn while_loop(cx: &mut OpContext) -> Result<(), String> {
    let [cond, body] = &cx.op.blocks[..] else { return Err("a while_loop without its two blocks".into()) };
    let mut vars = cx.inputs("loop_vars")?;
    if cond.inputs.len() != vars.len() || body.inputs.len() != vars.len() || body.outputs.len() != vars.len() {
        return Err("the blocks' inputs and outputs do not match the loop variables".into());
    }
    let mut iterations = 0;
    loop {
        for (input, v) in cond.inputs.iter().zip(&vars) {
            cx.im.bind(&input.name, v);
        }
        cx.im.operations(&cond.operations)?;
        let c = cond.outputs.first().ok_or("the condition block returns nothing")?;
        let holds = match cx.im.consts.get(&cx.im.resolve(c)) {
            Some(Const::Tensor(t)) if t.ty.numel() == 1 => t.to_i64()[0] != 0,
            _ => {
                return Err(
                    "the loop's condition is known only at run time; xcc unrolls loops whose trip count is fixed"
                        .into(),
                )
            }
        };
        if !holds {
            break;
        }
        iterations += 1;
        if iterations > MAX_ITERATIONS {
            return Err(format!("the loop runs more than {MAX_ITERATIONS} times; xcc unrolls loops"));
        }
        for (input, v) in body.inputs.iter().zip(&vars) {
            cx.im.bind(&input.name, v);
        }
        cx.im.operations(&body.operations)?;
        vars = body.outputs.iter().map(|o| cx.im.resolve(o)).collect();
    }
    for (i, v) in vars.into_iter().enumerate() {
        match cx.im.consts.get(&v).cloned() {
            Some(c) => cx.define_const(i, c)?,
            None => {
                let out = cx.out(i)?;
                cx.emit("Identity", vec![v], vec![out], []);
            }
        }
    }
    Ok(())
}
