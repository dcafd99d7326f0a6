//! Expression evaluation: one IR expression to a `Value`, on bit matrices.
//!
//! Owns: the meaning of each operator on concrete sets and relations. Names are read by index
//! (base slot, definition id), never by string. Uses: `ir`, `rel`.
use std::borrow::Cow;

use super::{Evaluator, Value};
use crate::ir::{BinOp, Expr, Kind, Op1};
use crate::rel::{Rel, Set};

impl Evaluator<'_> {
    /// The value of `e`; names are borrowed, not copied.
    pub(super) fn eval(&self, e: &Expr) -> Cow<'_, Value> {
        match e {
            Expr::Empty(k) => Cow::Owned(Value::empty(*k, self.n)),
            Expr::Base { slot, .. } => Cow::Borrowed(&self.bases[*slot]),
            Expr::Def(id) => Cow::Borrowed(&self.slots[*id]),
            Expr::Binary(op, a, b) => Cow::Owned(binary(self.n, *op, &self.eval(a), &self.eval(b))),
            Expr::Unary(op, a) => Cow::Owned(unary(self.n, *op, &self.eval(a))),
        }
    }
}

/// A binary operator on values. Lowering guarantees the kinds; a mismatch (a bug) gives empty.
pub(crate) fn binary(n: usize, op: BinOp, a: &Value, b: &Value) -> Value {
    use Value::{Rel as R, Set as S};
    match (op, a, b) {
        (BinOp::Union, S(x), S(y)) => S(x.union(*y)),
        (BinOp::Inter, S(x), S(y)) => S(x.inter(*y)),
        (BinOp::Diff, S(x), S(y)) => S(x.diff(*y)),
        (BinOp::Union, R(x), R(y)) => R(x.union(y)),
        (BinOp::Inter, R(x), R(y)) => R(x.inter(y)),
        (BinOp::Diff, R(x), R(y)) => R(x.diff(y)),
        (BinOp::Seq, R(x), R(y)) => R(x.seq(y)),
        (BinOp::Product, S(x), S(y)) => R(Rel::product(n, *x, *y)),
        _ => Value::empty(Kind::Rel, n),
    }
}

/// A unary operator on a value. Lowering guarantees the kinds; a mismatch (a bug) gives empty.
pub(crate) fn unary(n: usize, op: Op1, a: &Value) -> Value {
    use Value::{Rel as R, Set as S};
    match (op, a) {
        (Op1::Complement, S(x)) => S(Set::full(n).diff(*x)),
        (Op1::Complement, R(x)) => R(x.complement()),
        (Op1::Inverse, R(x)) => R(x.inverse()),
        (Op1::Plus, R(x)) => R(x.plus()),
        (Op1::Star, R(x)) => R(x.star()),
        (Op1::Opt, R(x)) => R(x.opt()),
        (Op1::IdOn, S(x)) => R(Rel::id_on(n, *x)),
        (Op1::Domain, R(x)) => S(x.domain()),
        (Op1::Range, R(x)) => S(x.range()),
        _ => Value::empty(Kind::Rel, n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(pairs: &[(usize, usize)]) -> Value {
        Value::Rel(Rel::from_pairs(3, pairs.iter().copied()))
    }
    fn s(elems: &[usize]) -> Value {
        Value::Set(Set::from_iter(elems.iter().copied()))
    }

    #[test]
    fn set_operators() {
        assert_eq!(binary(3, BinOp::Union, &s(&[0]), &s(&[1])), s(&[0, 1]));
        assert_eq!(binary(3, BinOp::Inter, &s(&[0, 1]), &s(&[1, 2])), s(&[1]));
        assert_eq!(binary(3, BinOp::Diff, &s(&[0, 1]), &s(&[1])), s(&[0]));
        assert_eq!(unary(3, Op1::Complement, &s(&[1])), s(&[0, 2]));
    }

    #[test]
    fn relation_operators() {
        let a = r(&[(0, 1), (1, 2)]);
        assert_eq!(
            binary(3, BinOp::Union, &a, &r(&[(2, 0)])),
            r(&[(0, 1), (1, 2), (2, 0)])
        );
        assert_eq!(
            binary(3, BinOp::Inter, &a, &r(&[(1, 2), (2, 2)])),
            r(&[(1, 2)])
        );
        assert_eq!(binary(3, BinOp::Diff, &a, &r(&[(1, 2)])), r(&[(0, 1)]));
        assert_eq!(binary(3, BinOp::Seq, &a, &a), r(&[(0, 2)]));
        assert_eq!(unary(3, Op1::Inverse, &a), r(&[(1, 0), (2, 1)]));
        assert_eq!(unary(3, Op1::Plus, &a), r(&[(0, 1), (1, 2), (0, 2)]));
        assert_eq!(
            unary(3, Op1::Star, &a),
            r(&[(0, 1), (1, 2), (0, 2), (0, 0), (1, 1), (2, 2)])
        );
        assert_eq!(
            unary(3, Op1::Opt, &a),
            r(&[(0, 1), (1, 2), (0, 0), (1, 1), (2, 2)])
        );
        assert_eq!(unary(3, Op1::Domain, &a), s(&[0, 1]));
        assert_eq!(unary(3, Op1::Range, &a), s(&[1, 2]));
    }

    #[test]
    fn complement_of_a_relation_is_every_other_pair() {
        let all: Vec<(usize, usize)> = (0..3)
            .flat_map(|a| (0..3).map(move |b| (a, b)))
            .filter(|p| *p != (0, 1))
            .collect();
        assert_eq!(unary(3, Op1::Complement, &r(&[(0, 1)])), r(&all));
    }

    #[test]
    fn sets_to_relations() {
        assert_eq!(
            binary(3, BinOp::Product, &s(&[0]), &s(&[1, 2])),
            r(&[(0, 1), (0, 2)])
        );
        assert_eq!(unary(3, Op1::IdOn, &s(&[0, 2])), r(&[(0, 0), (2, 2)]));
    }
}
