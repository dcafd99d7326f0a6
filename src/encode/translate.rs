//! The translation of an `ir::Model` into the circuit: every definition, check expression and
//! witness as vectors and matrices of nodes, following the model's steps in order.
//!
//! Owns: `Translation`, base instantiation from `Bounds`, expressions, `let rec` fixpoints, and
//! which witnesses each check depends on. Uses: `ir`, `vocab`, `rel`, and the encoder's
//! `circuit`, `matrix`, `checks`, `bounds`.
use std::collections::BTreeSet;

use super::bounds::Bounds;
use super::checks;
use super::circuit::{Circuit, Node};
use super::matrix::{Matrix, Value, Vector};
use crate::ir::{BinOp, DefBody, DefId, Expr, Kind, Model, Op1, Step};
use crate::rel::Rel;
use crate::vocab::{self, Defaulted, Partial, Reading};

/// A model translated over one universe.
#[derive(Clone, Debug)]
pub(crate) struct Translation {
    pub(crate) n: usize,
    /// The universe `E`.
    pub(crate) all: Vector,
    /// Values of `model.bases`, by slot.
    pub(crate) bases: Vec<Value>,
    /// Values of `model.defs`, by id (`None` for functions).
    pub(crate) defs: Vec<Option<Value>>,
    /// Value of each check's expression.
    pub(crate) checks: Vec<Value>,
    /// "This choice of witness `w` is a linearisation", by witness index.
    pub(crate) legal: Vec<Node>,
    /// The witnesses each check depends on.
    pub(crate) check_witnesses: Vec<BTreeSet<usize>>,
    /// Rounds each `let rec` group took, in model order.
    pub(crate) fixpoint_rounds: Vec<usize>,
    /// Over-approximate the closures and `let rec` groups consistency is antitone in (`upper`).
    upper: bool,
    /// "Each over-approximated definition is closed under its own definition": asserted with
    /// consistency, this makes the translation exact.
    pub(crate) closed: Vec<Node>,
}

/// The values of the vocabulary names `model` uses: constants and fresh inputs from `bounds`.
/// Returns the universe `E` and the values by base slot.
pub(crate) fn instantiate(c: &mut Circuit, model: &Model, bounds: &Bounds) -> (Vector, Vec<Value>) {
    let n = bounds.n();
    let all = set_from_bounds(c, bounds, "E").unwrap_or_else(|| Vector(vec![Node::TRUE; n]));
    let mut reading = Defaulted(Bounded {
        c,
        bounds,
        all: all.clone(),
    });
    let bases = model.bases.iter().map(|&name| reading.name(name)).collect();
    (all, bases)
}

/// The names `bounds` bound, as circuit inputs (`Defaulted` reads the others); `E` is `all`,
/// read once.
struct Bounded<'c, 'b> {
    c: &'c mut Circuit,
    bounds: &'b Bounds,
    all: Vector,
}

impl Partial for Bounded<'_, '_> {
    type Set = Vector;
    type Rel = Matrix;
    type Value = Value;

    fn given_set(&mut self, name: vocab::Name) -> Option<Vector> {
        if name == vocab::Name::Set(vocab::EventSet::E) {
            return Some(self.all.clone()); // its inputs, made once
        }
        set_from_bounds(self.c, self.bounds, name.name())
    }

    fn given_rel(&mut self, name: vocab::Name) -> Option<Matrix> {
        rel_from_bounds(self.c, self.bounds, name.name())
    }

    fn events(&mut self) -> Vector {
        self.all.clone()
    }

    fn no_events(&mut self) -> Vector {
        Vector(vec![Node::FALSE; self.bounds.n()])
    }

    fn identity(&mut self, events: &Vector) -> Matrix {
        Matrix::id_on(events)
    }

    fn no_pairs(&mut self) -> Matrix {
        Matrix::empty(self.bounds.n())
    }
}

fn set_from_bounds(c: &mut Circuit, bounds: &Bounds, name: &str) -> Option<Vector> {
    let (lower, upper) = bounds.set_bounds(name)?;
    Some(Vector(
        (0..bounds.n())
            .map(|i| entry(c, lower.contains(i), upper.contains(i)))
            .collect(),
    ))
}

fn rel_from_bounds(c: &mut Circuit, bounds: &Bounds, name: &str) -> Option<Matrix> {
    let (lower, upper) = bounds.rel_bounds(name)?;
    Some(Matrix::from_fn(bounds.n(), |i, j| {
        entry(c, lower.contains(i, j), upper.contains(i, j))
    }))
}

/// One tuple: in the lower bound, outside the upper bound, or free.
fn entry(c: &mut Circuit, lower: bool, upper: bool) -> Node {
    match (lower, upper) {
        (true, _) => Node::TRUE,
        (false, false) => Node::FALSE,
        (false, true) => c.input(),
    }
}

impl Translation {
    /// Translate `model` with the given base values, step by step.
    pub(crate) fn new(
        c: &mut Circuit,
        model: &Model,
        all: Vector,
        bases: Vec<Value>,
        fixed: &[Option<Rel>],
        upper: bool,
    ) -> Translation {
        let n = all.len();
        let mut t = Translation {
            n,
            all,
            bases,
            defs: vec![None; model.defs.len()],
            checks: vec![Value::Set(Vector(vec![])); model.checks.len()],
            legal: vec![Node::TRUE; model.witnesses.len()],
            check_witnesses: vec![],
            fixpoint_rounds: vec![],
            upper,
            closed: vec![],
        };
        for step in &model.steps {
            match step {
                Step::Define(id) => t.define(c, model, *id),
                Step::Fixpoint(ids) => t.fixpoint(c, model, ids),
                Step::Check(i) => t.checks[*i] = t.expr(c, &model.checks[*i].expr),
                Step::Choose(w) => t.choose(c, model, *w, fixed.get(*w).and_then(Option::as_ref)),
            }
        }
        t.check_witnesses = witness_dependencies(model);
        t
    }

    fn define(&mut self, c: &mut Circuit, model: &Model, id: DefId) {
        let DefBody::Value(e) = &model.defs[id].body else {
            return;
        };
        let value = match e {
            Expr::Unary(op @ (Op1::Plus | Op1::Star), r)
                if self.upper && model.consistency_antitone_in(&[id]) =>
            {
                let r = as_rel(self.expr(c, r), self.n);
                let t = self.transitive_above(c, &r);
                Value::Rel(match op {
                    Op1::Star => t.opt(c, &self.all),
                    _ => t,
                })
            }
            _ => self.expr(c, e),
        };
        self.defs[id] = Some(value);
    }

    /// For `r+` where consistency is antitone in it (`upper`): a fresh relation required to
    /// contain `r` and be transitive (`closed`), so above `r+` and equal to it when minimal —
    /// n³ three-literal clauses instead of log n rounds of squaring. Its pairs are free only
    /// where `r+` may hold.
    fn transitive_above(&mut self, c: &mut Circuit, r: &Matrix) -> Matrix {
        let n = self.n;
        let reach = r.support().plus();
        let t = Matrix::from_fn(n, |i, j| {
            if reach.contains(i, j) {
                c.input()
            } else {
                Node::FALSE
            }
        });
        for (i, j) in reach.pairs() {
            self.closed.push(c.implies(r.get(i, j), t.get(i, j)));
            for k in (0..n).filter(|&k| reach.contains(j, k)) {
                self.closed
                    .push(c.or([!t.get(i, j), !t.get(j, k), t.get(i, k)]));
            }
        }
        t
    }

    /// `with … from linearisations(…)`: a guessed order, or the one `fixed` (a strict total order
    /// on all slots) makes.
    fn choose(&mut self, c: &mut Circuit, model: &Model, w: usize, fixed: Option<&Rel>) {
        let witness = &model.witnesses[w];
        let set = as_set(self.expr(c, &witness.set), self.n);
        let order = as_rel(self.expr(c, &witness.order), self.n);
        let (lin, legal) = match fixed {
            Some(total) => checks::fixed_linearisation(c, &set, &order, total),
            None => checks::linearisation(c, &set, &order),
        };
        self.defs[witness.def] = Some(Value::Rel(lin));
        self.legal[w] = legal;
    }

    /// A `let rec` group: Kleene iteration from empty, each variable updated in turn with the
    /// latest values (as the evaluator does). The iterates grow, and for any value of the inputs
    /// each round before the fixpoint adds a tuple, so after `vars × n²` rounds (n for a set
    /// variable) the iterate is the least fixpoint for every input value at once: the unrolling
    /// is exact. It stops
    /// as soon as a round rebuilds the same nodes, which constant folding makes happen at the
    /// concrete fixpoint when the bounds are exact. (Asking the solver whether a round can still
    /// add a tuple would stop sooner, but that is a circuit-equivalence query, and BatSat took
    /// a minute on one over four slots: not worth it.)
    fn fixpoint(&mut self, c: &mut Circuit, model: &Model, ids: &[DefId]) {
        if self.upper && model.consistency_antitone_in(ids) {
            return self.fixpoint_above(c, model, ids);
        }
        let mut tuples = 0;
        for &id in ids {
            let kind = model.defs[id].kind.unwrap_or(Kind::Rel);
            tuples += if kind == Kind::Set {
                self.n
            } else {
                self.n * self.n
            };
            self.defs[id] = Some(empty(kind, self.n));
        }
        let mut rounds = 0;
        while rounds < tuples {
            rounds += 1;
            let before: Vec<Value> = ids.iter().map(|&id| self.def(id)).collect();
            for &id in ids {
                if let DefBody::Fixpoint(e) = &model.defs[id].body {
                    self.defs[id] = Some(self.expr(c, e));
                }
            }
            if ids
                .iter()
                .zip(&before)
                .all(|(&id, b)| self.defs[id].as_ref() == Some(b))
            {
                break;
            }
        }
        self.fixpoint_rounds.push(rounds);
    }

    /// A `let rec` group consistency is antitone in (`upper`): fresh values required to be
    /// closed under the group's bodies (`closed`: a pre-fixpoint, above the least fixpoint by
    /// Knaster–Tarski and equal to it when minimal), in one round instead of Kleene iteration.
    /// A value's tuples are free only where its body may hold of the full relations (the least
    /// fixpoint is below that, the bodies being monotone).
    fn fixpoint_above(&mut self, c: &mut Circuit, model: &Model, ids: &[DefId]) {
        let group: Vec<(DefId, &Expr)> = ids
            .iter()
            .filter_map(|&id| match &model.defs[id].body {
                DefBody::Fixpoint(e) => Some((id, e)),
                _ => None,
            })
            .collect();
        for &(id, _) in &group {
            let kind = model.defs[id].kind.unwrap_or(Kind::Rel);
            let full = empty(kind, self.n).with_cells(|_, _| Node::TRUE);
            self.defs[id] = Some(full);
        }
        let possible: Vec<Value> = group.iter().map(|&(_, e)| self.expr(c, e)).collect();
        for (&(id, _), p) in group.iter().zip(&possible) {
            let fresh = p.with_cells(|_, x| if x == Node::FALSE { x } else { c.input() });
            self.defs[id] = Some(fresh);
        }
        for &(id, e) in &group {
            let once = self.expr(c, e);
            let value = self.def(id);
            for (&body, &x) in once.cells().iter().zip(value.cells()) {
                self.closed.push(c.implies(body, x));
            }
        }
        self.fixpoint_rounds.push(1);
    }

    fn def(&self, id: DefId) -> Value {
        self.defs[id]
            .clone()
            .unwrap_or_else(|| empty(Kind::Rel, self.n))
    }

    /// The value of an expression.
    pub(crate) fn expr(&self, c: &mut Circuit, e: &Expr) -> Value {
        match e {
            Expr::Empty(k) => empty(*k, self.n),
            Expr::Base { slot, .. } => self.bases[*slot].clone(),
            Expr::Def(id) => self.def(*id),
            Expr::Binary(op, a, b) => {
                let (a, b) = (self.expr(c, a), self.expr(c, b));
                binary(c, *op, &a, &b, self.n)
            }
            Expr::Unary(op, a) => {
                let a = self.expr(c, a);
                unary(c, *op, &a, &self.all)
            }
        }
    }
}

fn empty(kind: Kind, n: usize) -> Value {
    match kind {
        Kind::Set => Value::Set(Vector(vec![Node::FALSE; n])),
        Kind::Rel => Value::Rel(Matrix::empty(n)),
    }
}

fn as_set(v: Value, n: usize) -> Vector {
    match v {
        Value::Set(s) => s,
        Value::Rel(_) => Vector(vec![Node::FALSE; n]),
    }
}

fn as_rel(v: Value, n: usize) -> Matrix {
    match v {
        Value::Rel(r) => r,
        Value::Set(_) => Matrix::empty(n),
    }
}

/// A binary operator. Lowering guarantees the kinds; a mismatch (a bug) gives empty, as in the
/// evaluator.
fn binary(c: &mut Circuit, op: BinOp, a: &Value, b: &Value, n: usize) -> Value {
    use Value::{Rel as R, Set as S};
    match (op, a, b) {
        (BinOp::Union, S(x), S(y)) => S(x.union(c, y)),
        (BinOp::Inter, S(x), S(y)) => S(x.inter(c, y)),
        (BinOp::Diff, S(x), S(y)) => S(x.diff(c, y)),
        (BinOp::Union, R(x), R(y)) => R(x.union(c, y)),
        (BinOp::Inter, R(x), R(y)) => R(x.inter(c, y)),
        (BinOp::Diff, R(x), R(y)) => R(x.diff(c, y)),
        (BinOp::Seq, R(x), R(y)) => R(x.seq(c, y)),
        (BinOp::Product, S(x), S(y)) => R(Matrix::product(c, x, y)),
        _ => R(Matrix::empty(n)),
    }
}

/// A unary operator (see `binary` for kind mismatches).
fn unary(c: &mut Circuit, op: Op1, a: &Value, all: &Vector) -> Value {
    use Value::{Rel as R, Set as S};
    match (op, a) {
        (Op1::Complement, S(x)) => S(x.complement(c, all)),
        (Op1::Complement, R(x)) => R(x.complement(c, all)),
        (Op1::Inverse, R(x)) => R(x.inverse()),
        (Op1::Plus, R(x)) => R(x.plus(c)),
        (Op1::Star, R(x)) => R(x.star(c, all)),
        (Op1::Opt, R(x)) => R(x.opt(c, all)),
        (Op1::IdOn, S(x)) => R(Matrix::id_on(x)),
        (Op1::Domain, R(x)) => S(x.domain(c)),
        (Op1::Range, R(x)) => S(x.range(c)),
        _ => R(Matrix::empty(all.len())),
    }
}

/// For each check, the witnesses its expression depends on (through definitions).
fn witness_dependencies(model: &Model) -> Vec<BTreeSet<usize>> {
    let mut deps: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); model.defs.len()];
    for (w, wit) in model.witnesses.iter().enumerate() {
        deps[wit.def].insert(w);
    }
    for step in &model.steps {
        let ids: &[DefId] = match step {
            Step::Define(id) => std::slice::from_ref(id),
            Step::Fixpoint(ids) => ids,
            _ => continue,
        };
        let mut group = BTreeSet::new();
        for &id in ids {
            if let DefBody::Value(e) | DefBody::Fixpoint(e) = &model.defs[id].body {
                collect(e, &deps, &mut group);
            }
        }
        ids.iter()
            .for_each(|&id| deps[id].extend(group.iter().copied()));
    }
    model
        .checks
        .iter()
        .map(|chk| {
            let mut s = BTreeSet::new();
            collect(&chk.expr, &deps, &mut s);
            s
        })
        .collect()
}

fn collect(e: &Expr, deps: &[BTreeSet<usize>], out: &mut BTreeSet<usize>) {
    match e {
        Expr::Def(id) => out.extend(deps[*id].iter().copied()),
        Expr::Binary(_, a, b) => {
            collect(a, deps, out);
            collect(b, deps, out)
        }
        Expr::Unary(_, a) => collect(a, deps, out),
        Expr::Empty(_) | Expr::Base { .. } => {}
    }
}
