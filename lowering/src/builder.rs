//! A cursor for creating operations: at the end of a block, or before an anchor operation.

use xcc_ir::{Attribute, BlockId, Module, OpId, OpSpec, Span, Type, ValueId};

pub enum InsertPoint {
    End(BlockId),
    Before(OpId),
}

pub struct Builder<'m> {
    pub m: &'m mut Module,
    pub at: InsertPoint,
    pub span: Span,
}

impl<'m> Builder<'m> {
    pub fn at_end(m: &'m mut Module, block: BlockId, span: Span) -> Self {
        Builder { m, at: InsertPoint::End(block), span }
    }

    pub fn before(m: &'m mut Module, op: OpId) -> Self {
        let span = m.ops[op].span;
        Builder { m, at: InsertPoint::Before(op), span }
    }

    pub fn insert(&mut self, spec: OpSpec) -> OpId {
        match self.at {
            InsertPoint::End(b) => self.m.build(b, spec),
            InsertPoint::Before(op) => self.m.build_before(op, spec),
        }
    }

    pub fn spec(&self, name: &str) -> OpSpec {
        OpSpec::new(name, self.span)
    }

    /// An operation with one result.
    pub fn value(&mut self, name: &str, operands: &[ValueId], ty: Type) -> ValueId {
        let spec = self.spec(name).operands(operands.iter().copied()).results([ty]);
        let op = self.insert(spec);
        self.m.result(op, 0)
    }

    pub fn value_with(
        &mut self,
        name: &str,
        operands: &[ValueId],
        ty: Type,
        attrs: Vec<(String, Attribute)>,
    ) -> ValueId {
        let mut spec = self.spec(name).operands(operands.iter().copied()).results([ty]);
        spec.attrs = attrs;
        let op = self.insert(spec);
        self.m.result(op, 0)
    }

    pub fn arith_const(&mut self, v: i64, ty: Type) -> ValueId {
        self.value_with("arith.constant", &[], ty.clone(), vec![("value".into(), Attribute::int(v as i128, ty))])
    }

    pub fn index_const(&mut self, v: i64) -> ValueId {
        self.arith_const(v, Type::Index)
    }

    pub fn llvm_const(&mut self, v: i64, ty: Type) -> ValueId {
        self.value_with("llvm.mlir.constant", &[], ty.clone(), vec![("value".into(), Attribute::int(v as i128, ty))])
    }
}
