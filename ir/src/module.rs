//! The IR container: one [`Module`] owns every operation, block, region and value of a compilation
//! in arenas, and refers to them by typed ids.
//!
//! Structure follows MLIR: a module has a body region of one block holding top-level operations
//! (functions, globals); an operation has operands, results, attributes, successor blocks (for
//! terminators) and nested regions; a region is a list of blocks; a block has arguments and
//! operations, the last being its terminator. Operation names are the canonical upstream
//! spelling (`arith.addi`, `cf.br`): the parser maps the original standard-dialect spelling onto
//! them, so passes see one IR.

use crate::attributes::Attribute;
use crate::diagnostics::Span;
use crate::entity::{Arena, BlockId, OpId, RegionId, ValueId};
use crate::types::Type;

#[derive(Clone, Debug)]
pub enum ValueDef {
    OpResult {
        op: OpId,
        index: u32,
    },
    BlockArg {
        block: BlockId,
        index: u32,
    },
    /// A use the parser has seen before the definition; never present in a parsed module.
    Unresolved,
}

#[derive(Clone, Debug)]
pub struct ValueData {
    pub ty: Type,
    pub def: ValueDef,
    /// Where the value was named in the source, for diagnostics.
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Successor {
    pub block: BlockId,
    pub args: Vec<ValueId>,
}

#[derive(Clone, Debug)]
pub struct OpData {
    pub name: String,
    pub operands: Vec<ValueId>,
    pub results: Vec<ValueId>,
    /// Kept sorted by name, so printing is deterministic.
    pub attrs: Vec<(String, Attribute)>,
    pub successors: Vec<Successor>,
    pub regions: Vec<RegionId>,
    pub parent: Option<BlockId>,
    pub span: Span,
    /// Names of attributes written as properties (`<{...}>`) in the generic form, so the
    /// printer puts them back there.
    pub property_names: Vec<String>,
}

impl OpData {
    /// An operation of no name, operands or anything else, in no block: what a slot of the
    /// arena holds once its operation has moved out.
    pub fn detached() -> OpData {
        OpData {
            name: String::new(),
            operands: Vec::new(),
            results: Vec::new(),
            attrs: Vec::new(),
            successors: Vec::new(),
            regions: Vec::new(),
            parent: None,
            span: Span::UNKNOWN,
            property_names: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct BlockData {
    pub args: Vec<ValueId>,
    pub ops: Vec<OpId>,
    pub parent: Option<RegionId>,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct RegionData {
    pub blocks: Vec<BlockId>,
    pub parent: Option<OpId>,
}

#[derive(Clone, Debug)]
pub struct Module {
    pub ops: Arena<OpId, OpData>,
    pub blocks: Arena<BlockId, BlockData>,
    pub regions: Arena<RegionId, RegionData>,
    pub values: Arena<ValueId, ValueData>,
    /// The module's body: a region with a single block of top-level operations.
    pub body: RegionId,
    /// `module @name` / `module attributes {...}`, if the text had them.
    pub name: Option<String>,
    pub attrs: Vec<(String, Attribute)>,
}

impl Default for Module {
    fn default() -> Self {
        Self::new()
    }
}

impl Module {
    pub fn new() -> Module {
        let mut m = Module {
            ops: Arena::default(),
            blocks: Arena::default(),
            regions: Arena::default(),
            values: Arena::default(),
            body: RegionId::new_placeholder(),
            name: None,
            attrs: Vec::new(),
        };
        let body = m.regions.push(RegionData::default());
        m.body = body;
        m.append_block(body, Span::UNKNOWN);
        m
    }

    pub fn body_block(&self) -> BlockId {
        self.regions[self.body].blocks[0]
    }

    /// Top-level operations in order.
    pub fn top_ops(&self) -> &[OpId] {
        &self.blocks[self.body_block()].ops
    }

    pub fn new_region(&mut self) -> RegionId {
        self.regions.push(RegionData::default())
    }

    pub fn append_block(&mut self, region: RegionId, span: Span) -> BlockId {
        let b = self.blocks.push(BlockData { parent: Some(region), span, ..Default::default() });
        self.regions[region].blocks.push(b);
        b
    }

    pub fn add_block_arg(&mut self, block: BlockId, ty: Type, span: Span) -> ValueId {
        let index = self.blocks[block].args.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::BlockArg { block, index }, span });
        self.blocks[block].args.push(v);
        v
    }

    /// Makes `args` the block's arguments, in this order: values that were its arguments (or
    /// another block's) are renumbered, and those left out are no longer arguments of it.
    pub fn set_block_args(&mut self, block: BlockId, args: Vec<ValueId>) {
        for (i, &v) in args.iter().enumerate() {
            self.values[v].def = ValueDef::BlockArg { block, index: i as u32 };
        }
        self.blocks[block].args = args;
    }

    /// Creates a detached operation with results of the given types.
    pub fn create_op(&mut self, spec: OpSpec) -> OpId {
        let op = self.ops.push(OpData {
            name: spec.name,
            operands: spec.operands,
            results: Vec::new(),
            attrs: Vec::new(),
            successors: spec.successors,
            regions: spec.regions,
            parent: None,
            span: spec.span,
            property_names: spec.property_names,
        });
        for (k, v) in spec.attrs {
            self.set_attr(op, k, v);
        }
        for (index, ty) in spec.result_types.into_iter().enumerate() {
            let v = self.values.push(ValueData {
                ty,
                def: ValueDef::OpResult { op, index: index as u32 },
                span: spec.span,
            });
            self.ops[op].results.push(v);
        }
        for &r in &self.ops[op].regions.clone() {
            self.regions[r].parent = Some(op);
        }
        op
    }

    pub fn append_op(&mut self, block: BlockId, op: OpId) {
        self.ops[op].parent = Some(block);
        self.blocks[block].ops.push(op);
    }

    /// Creates an operation at the end of `block`.
    pub fn build(&mut self, block: BlockId, spec: OpSpec) -> OpId {
        let op = self.create_op(spec);
        self.append_op(block, op);
        op
    }

    pub fn set_attr(&mut self, op: OpId, name: impl Into<String>, value: Attribute) {
        let name = name.into();
        let attrs = &mut self.ops[op].attrs;
        match attrs.binary_search_by(|(k, _)| k.as_str().cmp(&name)) {
            Ok(i) => attrs[i].1 = value,
            Err(i) => attrs.insert(i, (name, value)),
        }
    }

    pub fn attr(&self, op: OpId, name: &str) -> Option<&Attribute> {
        let attrs = &self.ops[op].attrs;
        attrs.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok().map(|i| &attrs[i].1)
    }

    pub fn remove_attr(&mut self, op: OpId, name: &str) -> Option<Attribute> {
        let attrs = &mut self.ops[op].attrs;
        attrs.binary_search_by(|(k, _)| k.as_str().cmp(name)).ok().map(|i| attrs.remove(i).1)
    }

    pub fn ty(&self, v: ValueId) -> &Type {
        &self.values[v].ty
    }

    pub fn result(&self, op: OpId, i: usize) -> ValueId {
        self.ops[op].results[i]
    }

    pub fn op_name(&self, op: OpId) -> &str {
        &self.ops[op].name
    }

    /// The operation defining a value, if it is an operation result.
    pub fn defining_op(&self, v: ValueId) -> Option<OpId> {
        match self.values[v].def {
            ValueDef::OpResult { op, .. } => Some(op),
            _ => None,
        }
    }

    /// The block in which a value becomes available.
    pub fn value_block(&self, v: ValueId) -> Option<BlockId> {
        match self.values[v].def {
            ValueDef::OpResult { op, .. } => self.ops[op].parent,
            ValueDef::BlockArg { block, .. } => Some(block),
            ValueDef::Unresolved => None,
        }
    }

    pub fn parent_op_of_block(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b].parent.and_then(|r| self.regions[r].parent)
    }

    pub fn terminator(&self, b: BlockId) -> Option<OpId> {
        self.blocks[b].ops.last().copied()
    }

    /// A top-level operation with `sym_name` equal to `name`.
    pub fn lookup_symbol(&self, name: &str) -> Option<OpId> {
        self.top_ops().iter().copied().find(|&op| self.attr(op, "sym_name").and_then(Attribute::as_str) == Some(name))
    }

    /// Every operation nested under `op` (not `op` itself), in pre-order.
    pub fn walk_nested(&self, op: OpId, f: &mut dyn FnMut(OpId)) {
        for &r in &self.ops[op].regions {
            for &b in &self.regions[r].blocks {
                for &inner in &self.blocks[b].ops {
                    f(inner);
                    self.walk_nested(inner, f);
                }
            }
        }
    }

    /// The blocks of a region reachable from its entry, in reverse post-order of the CFG (every
    /// block after its dominators), then the unreachable ones in textual order.
    pub fn reverse_post_order(&self, region: RegionId) -> (Vec<BlockId>, usize) {
        let blocks = &self.regions[region].blocks;
        let Some(&entry) = blocks.first() else { return (Vec::new(), 0) };
        let mut seen = std::collections::HashSet::new();
        let mut order = Vec::new();
        let mut stack = vec![(entry, 0usize)];
        seen.insert(entry);
        while let Some((b, i)) = stack.pop() {
            let succ: Vec<BlockId> = self
                .terminator(b)
                .map(|t| self.ops[t].successors.iter().map(|s| s.block).collect())
                .unwrap_or_default();
            if i < succ.len() {
                stack.push((b, i + 1));
                if seen.insert(succ[i]) {
                    stack.push((succ[i], 0));
                }
            } else {
                order.push(b);
            }
        }
        order.reverse();
        let reachable = order.len();
        order.extend(blocks.iter().filter(|b| !seen.contains(b)));
        (order, reachable)
    }

    /// `func.func`/`llvm.func` accessors.
    pub fn function_type(&self, func: OpId) -> Option<&crate::types::FunctionType> {
        self.attr(func, "function_type").and_then(Attribute::as_type).and_then(Type::as_function)
    }

    pub fn sym_name(&self, op: OpId) -> Option<&str> {
        self.attr(op, "sym_name").and_then(Attribute::as_str)
    }
}

impl RegionId {
    fn new_placeholder() -> RegionId {
        use crate::entity::EntityId;
        RegionId::new(0)
    }
}

/// What [`Module::create_op`] needs to make an operation.
#[derive(Debug, Default)]
pub struct OpSpec {
    pub name: String,
    pub operands: Vec<ValueId>,
    pub result_types: Vec<Type>,
    pub attrs: Vec<(String, Attribute)>,
    pub successors: Vec<Successor>,
    pub regions: Vec<RegionId>,
    pub span: Span,
    pub property_names: Vec<String>,
}

impl OpSpec {
    pub fn new(name: impl Into<String>, span: Span) -> OpSpec {
        OpSpec { name: name.into(), span, ..Default::default() }
    }
    pub fn operands(mut self, operands: impl IntoIterator<Item = ValueId>) -> Self {
        self.operands.extend(operands);
        self
    }
    pub fn results(mut self, types: impl IntoIterator<Item = Type>) -> Self {
        self.result_types.extend(types);
        self
    }
    pub fn attr(mut self, name: impl Into<String>, value: Attribute) -> Self {
        self.attrs.push((name.into(), value));
        self
    }
    pub fn successor(mut self, block: BlockId, args: Vec<ValueId>) -> Self {
        self.successors.push(Successor { block, args });
        self
    }
    pub fn region(mut self, r: RegionId) -> Self {
        self.regions.push(r);
        self
    }
}
