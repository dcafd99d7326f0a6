//! Which checks of a model hold on every execution another model allows, read off the two
//! models' text: a sufficient test, never a decision (the search proves what it cannot settle).
//!
//! Owns: `Model::checks_implied_by`. A check of `self` is implied by `by` when
//! - it is `acyclic r` or `irreflexive r` and `r` is contained in a strict order that every
//!   execution `by` allows has: `by` requires some union of vocabulary relations `B` acyclic
//!   (sc.cat: `po | rf | co | fr`), so the transitive closure `T` of `B` with the initial writes
//!   put first, `B ∪ IW × (_ \ IW)`, is a strict order (no edge of `po`, `rf`, `co` or `fr` ends
//!   at an initial write, and `rmw`, `ctrl`, `addr`, `data` lie in `po`); `r ⊆ T` follows from
//!   rules like `a ⊆ T, b ⊆ T ∪ id ⇒ a; b ⊆ T` (the `Order` below); or
//! - it is, definitions unfolded, the same statement as a non-flag check of `by` (RC11's
//!   `empty rmw & (rb; mo)` is sc.cat's `empty rmw & (fr; co)` once `rb = fr` and `mo = co`).
//!
//! Uses: the IR and `vocab` only.
use super::{BinOp, CheckKind, DefBody, Expr, Model, Op1};
use crate::vocab::{self, EventSet, Relation};

/// What an expression is known to be contained in, for the strict total order `T` of an
/// execution the other model allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// `⊆ T`.
    Forward,
    /// `⊆ id`.
    Identity,
    /// `⊆ T ∪ id`.
    ForwardOrIdentity,
    /// Nothing is known.
    Unknown,
}

impl Order {
    fn union(self, other: Order) -> Order {
        match (self, other) {
            (Order::Unknown, _) | (_, Order::Unknown) => Order::Unknown,
            (a, b) if a == b => a,
            _ => Order::ForwardOrIdentity,
        }
    }

    fn intersection(self, other: Order) -> Order {
        let both = [self, other];
        [Order::Forward, Order::Identity, Order::ForwardOrIdentity]
            .into_iter()
            .find(|o| both.contains(o))
            .unwrap_or(Order::Unknown)
    }

    fn sequence(self, other: Order) -> Order {
        match (self, other) {
            (Order::Unknown, _) | (_, Order::Unknown) => Order::Unknown,
            (Order::Identity, Order::Identity) => Order::Identity,
            (Order::Forward, _) | (_, Order::Forward) => Order::Forward,
            _ => Order::ForwardOrIdentity,
        }
    }

    /// `r*` and `r?`: the identity joins.
    fn reflexive(self) -> Order {
        self.union(Order::Identity)
    }
}

/// What a set is known to say of the initial writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Initial {
    /// Only initial writes.
    Only,
    /// No initial write.
    None,
    /// Nothing is known.
    Unknown,
}

impl Model {
    /// For each check of this model: does every execution `by` allows pass it (module comment)?
    /// False where the text does not show it, whatever the truth.
    pub(crate) fn checks_implied_by(&self, by: &Model) -> Vec<bool> {
        let forward = acyclic_vocabulary(by);
        let mut orders = vec![None; self.defs.len()];
        self.checks
            .iter()
            .map(|check| {
                let ordered = matches!(check.kind, CheckKind::Acyclic | CheckKind::Irreflexive)
                    && self.order_of(&check.expr, &forward, &mut orders) == Order::Forward;
                !check.negated && (ordered || self.is_check_of(check, by))
            })
            .collect()
    }

    /// Is `check`, definitions unfolded, a non-flag check of `by`?
    fn is_check_of(&self, check: &super::Check, by: &Model) -> bool {
        by.checks.iter().any(|other| {
            !other.flag
                && (other.kind, other.negated) == (check.kind, check.negated)
                && same_expr(self, &check.expr, by, &other.expr)
        })
    }

    /// `Order` of relation `e`, with `forward` the vocabulary relations known `⊆ T` and
    /// `orders` the definitions' orders found so far.
    fn order_of(&self, e: &Expr, forward: &[Relation], orders: &mut Vec<Option<Order>>) -> Order {
        match e {
            Expr::Empty(_) => Order::Forward,
            Expr::Base { slot, .. } => match self.bases[*slot] {
                vocab::Name::Rel(Relation::Id) => Order::Identity,
                vocab::Name::Rel(r) if forward.contains(&r) => Order::Forward,
                _ => Order::Unknown,
            },
            Expr::Def(id) => {
                if let Some(o) = orders[*id] {
                    return o;
                }
                let o = match &self.defs[*id].body {
                    DefBody::Value(body) => self.order_of(body, forward, orders),
                    _ => Order::Unknown,
                };
                orders[*id] = Some(o);
                o
            }
            Expr::Binary(BinOp::Product, a, b) => {
                let initial_first = (self.initial_of(a), self.initial_of(b));
                if initial_first == (Initial::Only, Initial::None) {
                    Order::Forward
                } else {
                    Order::Unknown
                }
            }
            Expr::Binary(BinOp::Diff, a, _) => self.order_of(a, forward, orders),
            Expr::Binary(op, a, b) => {
                let (a, b) = (
                    self.order_of(a, forward, orders),
                    self.order_of(b, forward, orders),
                );
                match op {
                    BinOp::Union => a.union(b),
                    BinOp::Inter => a.intersection(b),
                    _ => a.sequence(b),
                }
            }
            Expr::Unary(Op1::IdOn, _) => Order::Identity,
            Expr::Unary(op, a) => {
                let a = self.order_of(a, forward, orders);
                match op {
                    Op1::Plus => a,
                    Op1::Star | Op1::Opt => a.reflexive(),
                    Op1::Inverse if a == Order::Identity => a,
                    _ => Order::Unknown,
                }
            }
        }
    }

    /// What set `e` says of the initial writes: reads and fences are never initial writes.
    fn initial_of(&self, e: &Expr) -> Initial {
        match e {
            Expr::Base { slot, .. } => match self.bases[*slot] {
                vocab::Name::Set(EventSet::Iw) => Initial::Only,
                vocab::Name::Set(EventSet::R | EventSet::F) => Initial::None,
                _ => Initial::Unknown,
            },
            Expr::Def(id) => match &self.defs[*id].body {
                DefBody::Value(body) => self.initial_of(body),
                _ => Initial::Unknown,
            },
            Expr::Binary(BinOp::Inter, a, b) => {
                let both = [self.initial_of(a), self.initial_of(b)];
                [Initial::Only, Initial::None]
                    .into_iter()
                    .find(|i| both.contains(i))
                    .unwrap_or(Initial::Unknown)
            }
            Expr::Binary(BinOp::Union, a, b) => match (self.initial_of(a), self.initial_of(b)) {
                (x, y) if x == y => x,
                _ => Initial::Unknown,
            },
            Expr::Binary(BinOp::Diff, _, b) if self.covers_initial(b) => Initial::None,
            Expr::Binary(BinOp::Diff, a, _) => self.initial_of(a),
            _ => Initial::Unknown,
        }
    }

    /// Does set `e` contain every initial write?
    fn covers_initial(&self, e: &Expr) -> bool {
        match e {
            Expr::Base { name, .. } => *name == EventSet::Iw.name(),
            Expr::Def(id) => match &self.defs[*id].body {
                DefBody::Value(body) => self.covers_initial(body),
                _ => false,
            },
            Expr::Binary(BinOp::Union, a, b) => self.covers_initial(a) || self.covers_initial(b),
            _ => false,
        }
    }
}

/// The vocabulary relations contained in the order of every execution `by` allows: those of
/// the largest non-flag `acyclic` check of `by` over a union of relations no edge of which ends
/// at an initial write, with the relations that lie in `po` when `po` is among them.
fn acyclic_vocabulary(by: &Model) -> Vec<Relation> {
    let mut best = vec![];
    for check in by.checks.iter().filter(|c| !c.flag && !c.negated) {
        let mut union = vec![];
        if check.kind == CheckKind::Acyclic
            && relations_of_union(by, &check.expr, &mut union)
            && union.len() > best.len()
        {
            best = union;
        }
    }
    if best.contains(&Relation::Po) {
        best.extend(WITHIN_PO);
    }
    best
}

/// The vocabulary relations no edge of which ends at an initial write: initial writes are in no
/// thread, are not reads, and come first in `co` (the runner's `co` and the search's).
const INTO_NO_INITIAL_WRITE: [Relation; 4] =
    [Relation::Po, Relation::Rf, Relation::Co, Relation::Fr];

/// The vocabulary relations contained in `po` in every execution.
const WITHIN_PO: [Relation; 4] = [
    Relation::Rmw,
    Relation::Ctrl,
    Relation::Addr,
    Relation::Data,
];

/// Collect into `out` the vocabulary relations of which `e` is the union; false if it is not one.
fn relations_of_union(model: &Model, e: &Expr, out: &mut Vec<Relation>) -> bool {
    match e {
        Expr::Base { slot, .. } => match model.bases[*slot] {
            vocab::Name::Rel(r) if INTO_NO_INITIAL_WRITE.contains(&r) => {
                out.push(r);
                true
            }
            _ => false,
        },
        Expr::Def(id) => match &model.defs[*id].body {
            DefBody::Value(body) => relations_of_union(model, body, out),
            _ => false,
        },
        Expr::Binary(BinOp::Union, a, b) => {
            relations_of_union(model, a, out) && relations_of_union(model, b, out)
        }
        _ => false,
    }
}

/// Are `a` (of `ma`) and `b` (of `mb`) the same expression once every `let` definition is
/// unfolded?
fn same_expr(ma: &Model, a: &Expr, mb: &Model, b: &Expr) -> bool {
    let unfold = |m: &Model, e: &Expr| match e {
        Expr::Def(id) => match &m.defs[*id].body {
            DefBody::Value(body) => Some(body.clone()),
            _ => None,
        },
        _ => None,
    };
    if let Some(a) = unfold(ma, a) {
        return same_expr(ma, &a, mb, b);
    }
    if let Some(b) = unfold(mb, b) {
        return same_expr(ma, a, mb, &b);
    }
    match (a, b) {
        (Expr::Empty(x), Expr::Empty(y)) => x == y,
        (Expr::Base { name: x, .. }, Expr::Base { name: y, .. }) => x == y,
        (Expr::Binary(op, a1, a2), Expr::Binary(oq, b1, b2)) => {
            op == oq && same_expr(ma, a1, mb, b1) && same_expr(ma, a2, mb, b2)
        }
        (Expr::Unary(op, a), Expr::Unary(oq, b)) => op == oq && same_expr(ma, a, mb, b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{load, load_str, Model};
    use std::path::Path;

    fn sc() -> Model {
        load(Path::new("models/sc.cat")).expect("loads")
    }

    /// The implied verdict of each non-flag check of `model`, by name.
    fn implied(model: &Model) -> Vec<(String, bool)> {
        let implied = model.checks_implied_by(&sc());
        let named = model.checks.iter().zip(implied);
        named
            .filter(|(check, _)| !check.flag)
            .map(|(check, holds)| (check.name.clone(), holds))
            .collect()
    }

    #[test]
    fn scoped_rc11_holds_of_every_sequentially_consistent_execution_by_its_text() {
        let rc11 = load(Path::new("models/rc11-scoped.cat")).expect("loads");
        let all = [("Coherence", true), ("Atomicity", true), ("SC", true)];
        let all: Vec<(String, bool)> = all.iter().map(|&(n, h)| (n.to_string(), h)).collect();
        assert_eq!(implied(&rc11), all);
    }

    /// Each line: a check, and whether the rules show it holds wherever sc.cat allows.
    #[test]
    fn the_rules_show_containment_in_the_interleaving_order_and_nothing_more() {
        let cases = [
            ("acyclic po | rf", true),
            ("irreflexive (po | co)+; fr", true),
            ("acyclic po?; rf", true),
            ("acyclic [R]; (po & loc); [W]", true),
            ("acyclic (IW * R) | po", true),
            ("acyclic (IW * (_ \\ IW)) | rf", true),
            ("acyclic po \\ rf^-1", true),
            ("empty rmw & (fr; co)", true),
            ("acyclic po?", false),
            ("acyclic po | loc", false),
            ("acyclic po^-1", false),
            ("acyclic IW * W", false),
            ("acyclic ~(po^-1)", false),
            ("irreflexive po*", false),
            ("empty rmw & (co; fr)", false),
            ("empty po", false),
            ("~acyclic po", false),
        ];
        for (check, holds) in cases {
            let text = format!("\"t\"\ndialect mapcheck\n{check} as Tested\n");
            let model = load_str("t.cat", &text, None).expect("loads");
            assert_eq!(implied(&model), [("Tested".to_string(), holds)], "{check}");
        }
    }

    /// A model that requires one union acyclic and another one acyclic does not make their
    /// union acyclic: only one of its unions is read.
    #[test]
    fn only_one_acyclic_union_of_the_other_model_is_read() {
        let by = "\"by\"\ndialect mapcheck\nacyclic po | rf as A\nacyclic co | fr as B\n";
        let by = load_str("by.cat", by, None).expect("loads");
        let text = "\"t\"\ndialect mapcheck\nacyclic po | co as Mixed\nacyclic po | rf as Same\n";
        let model = load_str("t.cat", text, None).expect("loads");
        assert_eq!(model.checks_implied_by(&by), [false, true]);
    }
}
