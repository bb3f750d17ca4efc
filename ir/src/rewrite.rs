//! In-place rewriting utilities used by passes: inserting and erasing operations, replacing
//! uses, splitting blocks and moving blocks between regions.

use crate::entity::{BlockId, OpId, RegionId, ValueId};
use crate::module::{Module, OpSpec};
use crate::Span;

impl Module {
    /// Erases the operations of `region`'s blocks (not nested ones) that `erasable` accepts and
    /// whose results nothing uses, last first, so that a chain whose end is unused goes whole.
    /// Uses are counted over the region, nested operations included, and each block is rebuilt
    /// once (erasing one at a time would search and shift the block each time). Only an erased
    /// operation's own operands stop counting as uses: `erasable` should accept operations
    /// without regions.
    pub fn erase_unused(&mut self, region: RegionId, erasable: impl Fn(&Module, OpId) -> bool) {
        let blocks = self.regions[region].blocks.clone();
        let mut uses: std::collections::HashMap<ValueId, usize> = std::collections::HashMap::new();
        for &b in &blocks {
            for &op in &self.blocks[b].ops {
                let mut count = |o: OpId| {
                    let d = &self.ops[o];
                    for &v in d.operands.iter().chain(d.successors.iter().flat_map(|s| s.args.iter())) {
                        *uses.entry(v).or_default() += 1;
                    }
                };
                count(op);
                self.walk_nested(op, &mut count);
            }
        }
        let mut erased = std::collections::HashSet::new();
        for &b in blocks.iter().rev() {
            for &op in self.blocks[b].ops.iter().rev() {
                let unused = self.ops[op].results.iter().all(|v| uses.get(v).is_none_or(|&n| n == 0));
                if unused && erasable(self, op) {
                    for v in &self.ops[op].operands {
                        uses.entry(*v).and_modify(|n| *n -= 1);
                    }
                    erased.insert(op);
                }
            }
        }
        for b in blocks {
            self.blocks[b].ops.retain(|o| !erased.contains(o));
        }
        for op in erased {
            self.ops[op].parent = None;
        }
    }

    /// Position of `op` in its block.
    pub fn op_index(&self, op: OpId) -> Option<(BlockId, usize)> {
        let b = self.ops[op].parent?;
        self.blocks[b].ops.iter().position(|&o| o == op).map(|i| (b, i))
    }

    /// Creates an operation right before `anchor`.
    pub fn build_before(&mut self, anchor: OpId, spec: OpSpec) -> OpId {
        let (b, i) = self.op_index(anchor).expect("anchor in a block");
        let op = self.create_op(spec);
        self.ops[op].parent = Some(b);
        self.blocks[b].ops.insert(i, op);
        op
    }

    /// Detaches `op` from its block. Its results must have no remaining uses.
    pub fn erase_op(&mut self, op: OpId) {
        if let Some((b, i)) = self.op_index(op) {
            self.blocks[b].ops.remove(i);
        }
        self.ops[op].parent = None;
    }

    /// Replaces every use of `from` by `to` in the operations nested under `root`'s regions.
    pub fn replace_uses_in(&mut self, root: OpId, from: ValueId, to: ValueId) {
        let mut list = Vec::new();
        self.walk_nested(root, &mut |op| list.push(op));
        for op in list {
            let data = &mut self.ops[op];
            for v in data.operands.iter_mut().chain(data.successors.iter_mut().flat_map(|s| s.args.iter_mut())) {
                if *v == from {
                    *v = to;
                }
            }
        }
    }

    /// [`Module::replace_uses_in`] for many values at once, in one walk: each use of a key of
    /// `map` becomes a use of its value.
    pub fn replace_uses_by_map_in(&mut self, root: OpId, map: &std::collections::HashMap<ValueId, ValueId>) {
        if map.is_empty() {
            return;
        }
        let mut list = Vec::new();
        self.walk_nested(root, &mut |op| list.push(op));
        for op in list {
            let data = &mut self.ops[op];
            for v in data.operands.iter_mut().chain(data.successors.iter_mut().flat_map(|s| s.args.iter_mut())) {
                if let Some(&to) = map.get(v) {
                    *v = to;
                }
            }
        }
    }

    /// The top-level operation (function) that contains `op`.
    pub fn top_level_ancestor(&self, op: OpId) -> OpId {
        let mut at = op;
        while let Some(b) = self.ops[at].parent {
            match self.parent_op_of_block(b) {
                Some(p) => at = p,
                None => break,
            }
        }
        at
    }

    /// Moves the operations after position `index` of `block` into a new block inserted right
    /// after it in the same region, and returns the new block.
    pub fn split_block_after(&mut self, block: BlockId, index: usize) -> BlockId {
        let region = self.blocks[block].parent.expect("block in a region");
        let tail: Vec<OpId> = self.blocks[block].ops.split_off(index + 1);
        let new = self.blocks.push(Default::default());
        self.blocks[new].parent = Some(region);
        self.blocks[new].span = Span::UNKNOWN;
        for &op in &tail {
            self.ops[op].parent = Some(new);
        }
        self.blocks[new].ops = tail;
        let pos = self.regions[region].blocks.iter().position(|&b| b == block).expect("block in region");
        self.regions[region].blocks.insert(pos + 1, new);
        new
    }

    /// Creates an empty block in `region` right after `after`.
    pub fn insert_block_after(&mut self, after: BlockId) -> BlockId {
        let region = self.blocks[after].parent.expect("block in a region");
        let new = self.blocks.push(Default::default());
        self.blocks[new].parent = Some(region);
        self.blocks[new].span = Span::UNKNOWN;
        let pos = self.regions[region].blocks.iter().position(|&b| b == after).expect("block in region");
        self.regions[region].blocks.insert(pos + 1, new);
        new
    }

    /// Moves all blocks of `from` into the region of `after`, right after it; returns them.
    pub fn inline_region_after(&mut self, from: RegionId, after: BlockId) -> Vec<BlockId> {
        let region = self.blocks[after].parent.expect("block in a region");
        let blocks = std::mem::take(&mut self.regions[from].blocks);
        for &b in &blocks {
            self.blocks[b].parent = Some(region);
        }
        let pos = self.regions[region].blocks.iter().position(|&b| b == after).expect("block in region");
        let tail = self.regions[region].blocks.split_off(pos + 1);
        self.regions[region].blocks.extend(blocks.iter().copied());
        self.regions[region].blocks.extend(tail);
        blocks
    }
}

impl Module {
    /// A detached copy of `op` and everything nested in it. Operands found in `map` are
    /// replaced (others kept); the copy's results and block arguments are added to `map`.
    pub fn clone_op(&mut self, op: OpId, map: &mut std::collections::HashMap<ValueId, ValueId>) -> OpId {
        let d = self.ops[op].clone();
        let lookup = |v: ValueId, map: &std::collections::HashMap<ValueId, ValueId>| *map.get(&v).unwrap_or(&v);
        let mut regions = Vec::new();
        let mut block_map = std::collections::HashMap::new();
        for &r in &d.regions {
            let nr = self.new_region();
            for &b in &self.regions[r].blocks.clone() {
                let nb = self.append_block(nr, self.blocks[b].span);
                block_map.insert(b, nb);
                for &a in &self.blocks[b].args.clone() {
                    let t = self.ty(a).clone();
                    let na = self.add_block_arg(nb, t, self.values[a].span);
                    map.insert(a, na);
                }
            }
            regions.push((r, nr));
        }
        let spec = OpSpec {
            name: d.name.clone(),
            operands: d.operands.iter().map(|&v| lookup(v, map)).collect(),
            result_types: d.results.iter().map(|&v| self.ty(v).clone()).collect(),
            attrs: d.attrs.clone(),
            successors: Vec::new(),
            regions: regions.iter().map(|&(_, nr)| nr).collect(),
            span: d.span,
            property_names: d.property_names.clone(),
        };
        let new = self.create_op(spec);
        for (&old, &newv) in d.results.iter().zip(&self.ops[new].results.clone()) {
            map.insert(old, newv);
        }
        for (r, nr) in regions {
            let old_blocks = self.regions[r].blocks.clone();
            let new_blocks = self.regions[nr].blocks.clone();
            for (&ob, &nb) in old_blocks.iter().zip(&new_blocks) {
                for inner in self.blocks[ob].ops.clone() {
                    let c = self.clone_op(inner, map);
                    for s in &mut self.ops[c].successors {
                        s.block = *block_map.get(&s.block).unwrap_or(&s.block);
                    }
                    self.append_op(nb, c);
                }
            }
        }
        for s in &d.successors {
            let args = s.args.iter().map(|&v| lookup(v, map)).collect();
            self.ops[new].successors.push(crate::module::Successor { block: s.block, args });
        }
        new
    }

    /// Moves every operation of `from` (a detached scratch block) in front of `anchor`.
    pub fn splice_before(&mut self, from: BlockId, anchor: OpId) {
        let (b, i) = self.op_index(anchor).expect("anchor in a block");
        let ops = std::mem::take(&mut self.blocks[from].ops);
        for &op in &ops {
            self.ops[op].parent = Some(b);
        }
        let tail = self.blocks[b].ops.split_off(i);
        self.blocks[b].ops.extend(ops);
        self.blocks[b].ops.extend(tail);
    }

    /// Every use of `from` replaced by `to`, in the whole module.
    pub fn replace_all_uses(&mut self, from: ValueId, to: ValueId) {
        for &top in self.top_ops().to_vec().iter() {
            self.replace_uses_in(top, from, to);
        }
    }

    /// The operations (anywhere in the module) using `v` as an operand or successor argument.
    pub fn users(&self, v: ValueId) -> Vec<OpId> {
        let mut out = Vec::new();
        for &top in self.top_ops() {
            self.walk_nested(top, &mut |op| {
                let d = &self.ops[op];
                if d.operands.contains(&v) || d.successors.iter().any(|s| s.args.contains(&v)) {
                    out.push(op);
                }
            });
        }
        out
    }
}
