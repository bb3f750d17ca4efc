//! Conversions between dialects, one module each, named after upstream's (`AffineToStandard`,
//! `SCFToControlFlow`, `ArithToLLVM`, ...), and the driver the `*-to-llvm` ones share.
//!
//! The driver ([`convert`]) rebuilds a module with the patterns of the active conversions
//! ([`ConversionSet`]): every operation a pattern matches is replaced by what the pattern builds;
//! every other operation is copied, its regions converted recursively. Values keep one mapping
//! from the old module to the new; where a converted operation meets an unconverted one, the
//! driver inserts `builtin.unrealized_conversion_cast` between the two types (as MLIR's
//! dialect conversion does), and `reconcile-unrealized-casts` removes the pairs that cancel once
//! both sides are converted. Blocks are converted in reverse post-order, so every definition is
//! converted before its uses.

pub mod affine_to_scf;
pub mod arith_to_llvm;
pub mod cf_to_llvm;
pub mod func_to_llvm;
pub mod gpu_to_nvvm;
pub mod index_to_llvm;
pub mod math_to_llvm;
pub use xcc_ir::builder::memref_descriptor;
pub mod memref_reshapes_to_llvm;
pub mod memref_to_llvm;
pub mod parallel_to_gpu;
pub mod parallel_to_threads;
pub mod reconcile_casts;
pub mod scf_to_cf;
pub mod split_functions;
pub mod split_wide_vectors;
pub mod type_converter;
pub mod vector_contract_to_llvm;
pub mod vector_reshapes_to_llvm;
pub mod vector_to_llvm;
pub mod vector_transfers_to_llvm;

use crate::builder::Builder;
use crate::pass::{LoweringOptions, Pass};
use std::collections::{BTreeMap, HashMap};
use type_converter::LlvmTypeConverter;
use xcc_ir::types::FunctionType;
use xcc_ir::{BlockId, Diagnostic, Module, OpId, OpSpec, RegionId, Span, Type, ValueId};

/// Rewrites one operation in the new module and returns the values replacing its results.
pub type RewriteFn = fn(&mut Rewriter, OpId) -> Result<Vec<ValueId>, Diagnostic>;

/// A dialect's conversion: operations that map one-to-one onto an llvm operation (same
/// operands, converted result types), and patterns for the rest.
pub struct ConversionSet {
    pub name: &'static str,
    pub one_to_one: &'static [(&'static str, &'static str)],
    pub patterns: &'static [(&'static str, RewriteFn)],
}

impl ConversionSet {
    fn converts(&self, op: &str) -> bool {
        self.one_to_one.iter().any(|(n, _)| *n == op) || self.patterns.iter().any(|(n, _)| *n == op)
    }
}

/// Every `*-to-llvm` conversion, in the order `convert-to-llvm` applies them.
pub const TO_LLVM: &[&ConversionSet] = &[
    &func_to_llvm::CONVERSION,
    &arith_to_llvm::CONVERSION,
    &index_to_llvm::CONVERSION,
    &math_to_llvm::CONVERSION,
    &cf_to_llvm::CONVERSION,
    &memref_to_llvm::CONVERSION,
    &memref_reshapes_to_llvm::CONVERSION,
    &vector_to_llvm::CONVERSION,
    &vector_reshapes_to_llvm::CONVERSION,
    &vector_transfers_to_llvm::CONVERSION,
    &vector_contract_to_llvm::CONVERSION,
    &gpu_to_nvvm::CONVERSION,
];

/// Whether any `*-to-llvm` conversion has a pattern for `op`.
pub fn has_llvm_lowering(op: &str) -> bool {
    TO_LLVM.iter().any(|c| c.converts(op))
}

pub fn unsupported(span: Span, what: impl std::fmt::Display) -> Diagnostic {
    Diagnostic::new(span, format!("unsupported in lowering to LLVM: {what}"))
}

/// A pass running some conversions; `full` requires every operation to end in the llvm dialect.
pub struct LlvmConversionPass {
    pub name: &'static str,
    pub sets: &'static [&'static ConversionSet],
    pub full: bool,
}

impl Pass for LlvmConversionPass {
    fn name(&self) -> &'static str {
        self.name
    }

    fn lowers(&self, op: &str) -> bool {
        self.sets.iter().any(|s| s.converts(op))
    }

    fn run(&self, m: Module, options: &LoweringOptions) -> Result<Module, Diagnostic> {
        let new = convert(&m, self.sets, options)?;
        if self.full {
            check_fully_converted(&new)?;
        }
        Ok(new)
    }
}

/// After a full conversion only llvm operations (and casts still to reconcile) may remain.
fn check_fully_converted(m: &Module) -> Result<(), Diagnostic> {
    let mut bad = None;
    for &top in m.top_ops() {
        let mut check = |op: OpId| {
            let name = m.ops[op].name.as_str();
            if bad.is_none() && !name.starts_with("llvm.") && name != "builtin.unrealized_conversion_cast" {
                bad = Some(op);
            }
        };
        check(top);
        m.walk_nested(top, &mut check);
    }
    match bad {
        Some(op) => Err(unsupported(m.ops[op].span, format!("operation '{}'", m.ops[op].name))),
        None => Ok(()),
    }
}

/// Converts a module with the given conversions (see the module documentation).
pub fn convert(old: &Module, sets: &[&ConversionSet], options: &LoweringOptions) -> Result<Module, Diagnostic> {
    let mut new = Module::new();
    new.name = old.name.clone();
    new.attrs = old.attrs.clone();
    let body = new.body_block();
    let mut rw = Rewriter {
        old,
        new,
        types: LlvmTypeConverter::new(options),
        options: options.clone(),
        sets: sets.to_vec(),
        values: HashMap::new(),
        blocks: HashMap::new(),
        block: body,
        externs: BTreeMap::new(),
    };
    for &op in old.top_ops() {
        rw.block = body;
        rw.convert_op(op)?;
    }
    let mut new = rw.new;
    for (name, ft) in std::mem::take(&mut rw.externs) {
        crate::builder::declare_function(&mut new, &name, ft.inputs, ft.results);
    }
    Ok(new)
}

/// The state of one conversion: the module being read, the one being built, and the mapping.
pub struct Rewriter<'a> {
    pub old: &'a Module,
    pub new: Module,
    pub types: LlvmTypeConverter,
    pub options: LoweringOptions,
    sets: Vec<&'a ConversionSet>,
    values: HashMap<ValueId, ValueId>,
    blocks: HashMap<BlockId, BlockId>,
    /// Where patterns insert: the end of this block of the new module.
    block: BlockId,
    /// External functions the converted code calls (runtime-c, libm), declared at the end.
    externs: BTreeMap<String, FunctionType>,
}

impl<'a> Rewriter<'a> {
    /// A builder at the insertion point, with `span`.
    pub fn builder(&mut self, span: Span) -> Builder<'_> {
        Builder::at_end(&mut self.new, self.block, span)
    }

    /// Declares an external function the converted code calls.
    pub fn declare(&mut self, name: &str, inputs: Vec<Type>, results: Vec<Type>) {
        self.externs.insert(name.to_string(), FunctionType { inputs, results });
    }

    fn mapped(&self, old: ValueId, user: OpId) -> Result<ValueId, Diagnostic> {
        self.values.get(&old).copied().ok_or_else(|| {
            Diagnostic::new(
                self.old.ops[user].span,
                format!("internal error: an operand of '{}' was not converted before its use", self.old.ops[user].name),
            )
        })
    }

    /// `v` as type `to`, through an unrealized cast when its type differs.
    fn cast_to(&mut self, v: ValueId, to: &Type, span: Span) -> ValueId {
        if self.new.ty(v) == to {
            return v;
        }
        self.builder(span).value("builtin.unrealized_conversion_cast", &[v], to.clone())
    }

    /// The operands of `op` in the new module, with converted (llvm) types.
    pub fn operands(&mut self, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
        let span = self.old.ops[op].span;
        let mut out = Vec::new();
        for &v in &self.old.ops[op].operands {
            let nv = self.mapped(v, op)?;
            let t = self.types.convert(self.old.ty(v), span)?;
            out.push(self.cast_to(nv, &t, span));
        }
        Ok(out)
    }

    /// The converted type of `op`'s result `i`.
    pub fn result_type(&self, op: OpId, i: usize) -> Result<Type, Diagnostic> {
        self.types.convert(self.old.ty(self.old.ops[op].results[i]), self.old.ops[op].span)
    }

    /// The new block for an old successor, with its arguments cast to the block's types.
    pub fn successor(&mut self, op: OpId, i: usize) -> Result<(BlockId, Vec<ValueId>), Diagnostic> {
        let s = &self.old.ops[op].successors[i];
        let span = self.old.ops[op].span;
        let target = *self.blocks.get(&s.block).ok_or_else(|| unsupported(span, "a branch out of its region"))?;
        let want: Vec<Type> = self.new.blocks[target].args.iter().map(|&a| self.new.ty(a).clone()).collect();
        let mut args = Vec::new();
        for (&a, t) in s.args.iter().zip(&want) {
            let nv = self.mapped(a, op)?;
            args.push(self.cast_to(nv, t, span));
        }
        Ok((target, args))
    }

    /// Converts `op`: by a pattern of an active conversion, or by copying it.
    fn convert_op(&mut self, op: OpId) -> Result<(), Diagnostic> {
        let name = self.old.ops[op].name.as_str();
        if self.options.gpu() && name.starts_with("math.") {
            let elem = self.old.ops[op].results.first().map(|&r| self.old.ty(r).element_or_self().clone());
            if !math_to_llvm::gpu_supports(name, elem.as_ref().unwrap_or(&Type::i1())) && self.is_active("math") {
                let ty = elem.map_or(String::new(), |t| format!(" on {t}"));
                return Err(unsupported(
                    self.old.ops[op].span,
                    format!("'{name}'{ty} in GPU code (no GPU code for it yet)"),
                ));
            }
        }
        if name == "builtin.unrealized_conversion_cast" && self.fold_cast(op)? {
            return Ok(());
        }
        let produced = match self.rewrite_for(name) {
            Some(Rewrite::OneToOne(llvm)) => vec![self.one_to_one(op, llvm)?],
            Some(Rewrite::Pattern(f)) => f(self, op)?,
            None => self.copy_op(op)?,
        };
        for (&r, v) in self.old.ops[op].results.iter().zip(produced) {
            self.values.insert(r, v);
        }
        Ok(())
    }

    /// A cast whose operand already has the converted type of its result is that operand (a
    /// frontend's cast from a descriptor it built to the memref it stands for, say).
    fn fold_cast(&mut self, op: OpId) -> Result<bool, Diagnostic> {
        let d = &self.old.ops[op];
        if d.operands.len() != 1 || d.results.len() != 1 {
            return Ok(false);
        }
        let input = self.mapped(d.operands[0], op)?;
        let Ok(want) = self.types.convert(self.old.ty(d.results[0]), d.span) else { return Ok(false) };
        if self.new.ty(input) != &want {
            return Ok(false);
        }
        self.values.insert(d.results[0], input);
        Ok(true)
    }

    /// Whether the conversion set `name` is among this run's.
    fn is_active(&self, name: &str) -> bool {
        self.sets.iter().any(|s| s.name == name)
    }

    fn rewrite_for(&self, name: &str) -> Option<Rewrite> {
        for set in &self.sets {
            if let Some((_, llvm)) = set.one_to_one.iter().find(|(n, _)| *n == name) {
                return Some(Rewrite::OneToOne(llvm));
            }
            if let Some((_, f)) = set.patterns.iter().find(|(n, _)| *n == name) {
                return Some(Rewrite::Pattern(*f));
            }
        }
        None
    }

    fn one_to_one(&mut self, op: OpId, llvm: &str) -> Result<ValueId, Diagnostic> {
        let operands = self.operands(op)?;
        let t = self.result_type(op, 0)?;
        let span = self.old.ops[op].span;
        let attrs = self.old.ops[op].attrs.clone();
        Ok(self.builder(span).value_with(llvm, &operands, t, attrs))
    }

    /// Copies an operation no active conversion handles: operands cast back to their original
    /// types, regions converted inside.
    fn copy_op(&mut self, op: OpId) -> Result<Vec<ValueId>, Diagnostic> {
        let d = &self.old.ops[op];
        let span = d.span;
        let mut operands = Vec::new();
        for &v in &d.operands {
            let nv = self.mapped(v, op)?;
            operands.push(self.cast_to(nv, self.old.ty(v), span));
        }
        let mut spec = OpSpec::new(d.name.clone(), span)
            .operands(operands)
            .results(d.results.iter().map(|&r| self.old.ty(r).clone()));
        spec.attrs = d.attrs.clone();
        spec.property_names = d.property_names.clone();
        let regions: Vec<RegionId> = d.regions.clone();
        let mut new_regions = Vec::new();
        for &r in &regions {
            new_regions.push(self.prepare_region(r, BlockArgs::Keep)?);
        }
        spec.regions = new_regions.clone();
        for i in 0..d.successors.len() {
            let (b, args) = self.successor(op, i)?;
            spec = spec.successor(b, args);
        }
        let new_op = self.new.create_op(spec);
        self.new.append_op(self.block, new_op);
        for &r in &regions {
            self.convert_region_ops(r)?;
        }
        Ok(self.new.ops[new_op].results.clone())
    }

    /// Creates the blocks of a new region mirroring `old` (so branches can find their targets),
    /// with argument types as `args` says. An argument that becomes one value is mapped to it;
    /// one that becomes several (a memref parameter expanded into its descriptor's fields) is
    /// left for the caller to rebuild and map ([`Self::map_value`]).
    pub fn prepare_region(&mut self, old: RegionId, args: BlockArgs) -> Result<RegionId, Diagnostic> {
        let region = self.new.new_region();
        for (i, &b) in self.old.regions[old].blocks.clone().iter().enumerate() {
            let nb = self.new.append_block(region, self.old.blocks[b].span);
            self.blocks.insert(b, nb);
            for &a in &self.old.blocks[b].args {
                let span = self.old.values[a].span;
                let t = self.old.ty(a);
                let types = match args {
                    BlockArgs::Keep => vec![t.clone()],
                    BlockArgs::ConvertExpandingEntry if i == 0 => self.types.parameter(t, span)?,
                    BlockArgs::Convert | BlockArgs::ConvertExpandingEntry => vec![self.types.convert(t, span)?],
                };
                let news: Vec<ValueId> = types.into_iter().map(|t| self.new.add_block_arg(nb, t, span)).collect();
                if news.len() == 1 {
                    self.values.insert(a, news[0]);
                }
            }
        }
        Ok(region)
    }

    /// Maps an old value to a new one (a pattern rebuilding a block argument, say).
    pub fn map_value(&mut self, old: ValueId, new: ValueId) {
        self.values.insert(old, new);
    }

    /// The new block standing for an old one.
    pub fn new_block(&self, old: BlockId) -> BlockId {
        self.blocks[&old]
    }

    /// Converts the operations of every block of `old` into the blocks [`Self::prepare_region`]
    /// made for them.
    pub fn convert_region_ops(&mut self, old: RegionId) -> Result<(), Diagnostic> {
        let saved = self.block;
        for b in self.old.reverse_post_order(old).0 {
            self.block = self.blocks[&b];
            for &op in &self.old.blocks[b].ops.clone() {
                self.convert_op(op)?;
            }
        }
        self.block = saved;
        Ok(())
    }

    /// Sets the insertion point (a block of the new module); returns the previous one.
    pub fn set_block(&mut self, block: BlockId) -> BlockId {
        std::mem::replace(&mut self.block, block)
    }

    /// Adds a top-level operation to the new module.
    pub fn add_top_level(&mut self, spec: OpSpec) -> OpId {
        let body = self.new.body_block();
        self.new.build(body, spec)
    }
}

/// How [`Rewriter::prepare_region`] types a new region's block arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockArgs {
    /// As in the old region (an operation copied unconverted).
    Keep,
    /// Converted to llvm types.
    Convert,
    /// Converted, and the entry block's memref arguments expanded into descriptor fields (a
    /// function body).
    ConvertExpandingEntry,
}

enum Rewrite {
    OneToOne(&'static str),
    Pattern(RewriteFn),
}

/// The first operation (pre-order, over all functions) for which `pred` holds.
pub(crate) fn find_first(m: &Module, pred: impl Fn(&str) -> bool) -> Option<OpId> {
    let mut found = None;
    for &top in m.top_ops() {
        m.walk_nested(top, &mut |op| {
            if found.is_none() && pred(&m.ops[op].name) {
                found = Some(op);
            }
        });
        if found.is_some() {
            break;
        }
    }
    found
}
