//! Compaction: a module whose arenas hold only what its body reaches.
//!
//! Passes detach the operations they replace rather than free them (ids stay valid while a pass
//! runs), so the arenas keep every operation a compilation ever made: a chain of 10^6 ONNX
//! nodes made about 14 operations per node over the pipeline, most of them dead by the time the
//! llvm dialect is reached. [`Module::compacted`] moves the live operations, blocks, regions and
//! values into fresh arenas in the order a walk meets them, and the dead ones' memory goes.
//! Ids change, so nothing may hold one across it (the pipeline compacts between passes).

use crate::entity::{Arena, BlockId, EntityId, OpId, RegionId, ValueId};
use crate::module::{BlockData, Module, OpData, RegionData, ValueData, ValueDef};

/// Old id -> new id for one kind of entity, and the old ids in their new order.
struct Renumbering<K> {
    new_of: Vec<u32>,
    order: Vec<K>,
}

const UNSEEN: u32 = u32::MAX;

impl<K: EntityId> Renumbering<K> {
    fn new(len: usize) -> Self {
        Renumbering { new_of: vec![UNSEEN; len], order: Vec::new() }
    }

    fn see(&mut self, old: K) {
        if self.new_of[old.index()] == UNSEEN {
            self.new_of[old.index()] = self.order.len() as u32;
            self.order.push(old);
        }
    }

    fn get(&self, old: K) -> Option<K> {
        let n = self.new_of[old.index()];
        (n != UNSEEN).then(|| K::new(n as usize))
    }

    fn map(&self, old: K) -> K {
        self.get(old).expect("every reference of a live entity is renumbered")
    }
}

struct Renumberings {
    ops: Renumbering<OpId>,
    blocks: Renumbering<BlockId>,
    regions: Renumbering<RegionId>,
    values: Renumbering<ValueId>,
}

impl Module {
    /// How many operations the module's body reaches (nested ones included).
    pub fn live_op_count(&self) -> usize {
        let mut count = 0;
        for &top in self.top_ops() {
            count += 1;
            self.walk_nested(top, &mut |_| count += 1);
        }
        count
    }

    /// The module with only what its body reaches, renumbered in walk order; see the module doc.
    pub fn compacted(mut self) -> Module {
        let mut r = Renumberings {
            ops: Renumbering::new(self.ops.len()),
            blocks: Renumbering::new(self.blocks.len()),
            regions: Renumbering::new(self.regions.len()),
            values: Renumbering::new(self.values.len()),
        };
        self.number_region(self.body, &mut r);
        // A use of a value nothing live defines (not in a verified module) keeps its type.
        for &op in &r.ops.order {
            let d = &self.ops[op];
            for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
                r.values.see(v);
            }
        }
        let ops = self.move_ops(&r);
        let blocks = self.move_blocks(&r);
        let regions = self.move_regions(&r);
        let values = self.move_values(&r);
        Module { ops, blocks, regions, values, body: r.regions.map(self.body), name: self.name, attrs: self.attrs }
    }

    fn number_region(&self, region: RegionId, r: &mut Renumberings) {
        r.regions.see(region);
        for &b in &self.regions[region].blocks {
            r.blocks.see(b);
            self.blocks[b].args.iter().for_each(|&v| r.values.see(v));
            for &op in &self.blocks[b].ops {
                r.ops.see(op);
                self.ops[op].results.iter().for_each(|&v| r.values.see(v));
                for &nested in &self.ops[op].regions {
                    self.number_region(nested, r);
                }
            }
        }
    }

    fn move_ops(&mut self, r: &Renumberings) -> Arena<OpId, OpData> {
        let mut ops = Arena::with_capacity(r.ops.order.len());
        for &old in &r.ops.order {
            let mut d = std::mem::replace(&mut self.ops[old], OpData::detached());
            d.operands.iter_mut().chain(d.results.iter_mut()).for_each(|v| *v = r.values.map(*v));
            for s in &mut d.successors {
                s.block = r.blocks.map(s.block);
                s.args.iter_mut().for_each(|v| *v = r.values.map(*v));
            }
            d.regions.iter_mut().for_each(|x| *x = r.regions.map(*x));
            d.parent = d.parent.and_then(|b| r.blocks.get(b));
            ops.push(d);
        }
        ops
    }

    fn move_blocks(&mut self, r: &Renumberings) -> Arena<BlockId, BlockData> {
        let mut blocks = Arena::with_capacity(r.blocks.order.len());
        for &old in &r.blocks.order {
            let mut d = std::mem::take(&mut self.blocks[old]);
            d.args.iter_mut().for_each(|v| *v = r.values.map(*v));
            d.ops.iter_mut().for_each(|o| *o = r.ops.map(*o));
            d.parent = d.parent.and_then(|x| r.regions.get(x));
            blocks.push(d);
        }
        blocks
    }

    fn move_regions(&mut self, r: &Renumberings) -> Arena<RegionId, RegionData> {
        let mut regions = Arena::with_capacity(r.regions.order.len());
        for &old in &r.regions.order {
            let mut d = std::mem::take(&mut self.regions[old]);
            d.blocks.iter_mut().for_each(|b| *b = r.blocks.map(*b));
            d.parent = d.parent.and_then(|o| r.ops.get(o));
            regions.push(d);
        }
        regions
    }

    fn move_values(&mut self, r: &Renumberings) -> Arena<ValueId, ValueData> {
        let mut values = Arena::with_capacity(r.values.order.len());
        for &old in &r.values.order {
            let placeholder =
                ValueData { ty: crate::types::Type::Index, def: ValueDef::Unresolved, span: Default::default() };
            let mut d = std::mem::replace(&mut self.values[old], placeholder);
            d.def = match d.def {
                ValueDef::OpResult { op, index } => {
                    r.ops.get(op).map_or(ValueDef::Unresolved, |op| ValueDef::OpResult { op, index })
                }
                ValueDef::BlockArg { block, index } => {
                    r.blocks.get(block).map_or(ValueDef::Unresolved, |block| ValueDef::BlockArg { block, index })
                }
                ValueDef::Unresolved => ValueDef::Unresolved,
            };
            values.push(d);
        }
        values
    }
}

#[cfg(test)]
mod tests {
    use crate::parser::parse_module;
    use crate::printer::print_module;

    /// Erased operations go, and the module prints as before.
    #[test]
    fn compaction_keeps_what_the_body_reaches() {
        let text = "func.func @f(%a: i32, %b: i32) -> i32 {\n  %0 = arith.addi %a, %b : i32\n  \
                    %1 = arith.muli %0, %a : i32\n  cf.br ^bb1(%1 : i32)\n^bb1(%2: i32):\n  return %2 : i32\n}\n";
        let mut m = parse_module(text).expect("parses");
        let f = m.top_ops()[0];
        let entry = m.regions[m.ops[f].regions[0]].blocks[0];
        let mul = m.blocks[entry].ops[1];
        let add = m.blocks[entry].ops[0];
        let add_result = m.ops[add].results[0];
        // The product becomes the sum: the multiplication is dead and erased.
        m.replace_uses_in(f, m.ops[mul].results[0], add_result);
        m.erase_op(mul);
        let before = print_module(&m);
        let (ops_before, live) = (m.ops.len(), m.live_op_count());
        let c = m.compacted();
        assert_eq!(print_module(&c), before);
        assert_eq!(c.ops.len(), live);
        assert!(c.ops.len() < ops_before);
        assert!(crate::verifier::verify(&c).is_ok());
    }
}
