//! In-place rewriting utilities used by passes: inserting and erasing operations, replacing
//! uses, splitting blocks and moving blocks between regions.

use crate::entity::{BlockId, OpId, RegionId, ValueId};
use crate::module::{Module, OpSpec};
use crate::Span;

impl Module {
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
