//! Evaluation of a model on one concrete execution.
//!
//! Owns: `Base` (the execution's value for every vocabulary name), `Value`, `Outcome` and the
//! step-by-step evaluation of `ir::Model`: definitions once each (values in a `Vec` indexed by
//! definition id), `let rec` groups by iteration from empty, checks, and witnesses by enumerating
//! their choices; and `Edge` (`explain`): why a check fails, as a path of labelled edges.
//! Entry points: `evaluate`, `evaluate_named`, `shown_values` (what `show` draws), `explain`. Uses: `ir`, `rel`, `vocab`.
//! Knows nothing of litmus tests or of how executions are built (that is `exec`).
//!
//! Files:
//! - `expr.rs`: each operator's meaning on concrete sets and relations.
//! - `witness.rs`: the depth-first search over linear extensions, prefix by prefix.
//! - `explain.rs`: `Edge`, `explain`.
mod explain;
mod expr;
mod witness;

use std::collections::HashMap;

use crate::ir::{CheckKind, DefBody, DefId, Kind, Model, Step};
use crate::rel::{Rel, Set};
use crate::vocab::{self, Defaulted, Partial, Reading};

pub(crate) use explain::explain;
pub(crate) use witness::total_order;
use witness::{search_linearisations, Visit};

/// The values of the vocabulary's names on one execution of `n` events.
///
/// `exec` fills every name of `vocab`. A name the model uses but `Base` lacks evaluates to the
/// empty set or relation, except `E` and `_` (all events) and `id`; `missing` lists such names.
#[derive(Clone, Debug, Default)]
pub struct Base {
    /// Number of events of the execution; events are `0..n`.
    pub n: usize,
    /// The values of the vocabulary's set names (`R`, `W`, `ACQ`, …), by cat spelling.
    pub sets: HashMap<&'static str, Set>,
    /// The values of the vocabulary's relation names (`po`, `rf`, `co`, …), by cat spelling.
    pub rels: HashMap<&'static str, Rel>,
}

impl Base {
    /// Every vocabulary name on `n` events, each at its default (`vocab::Defaulted`): sets empty
    /// except `E` and `_`, relations empty except `id`.
    pub fn empty(n: usize) -> Base {
        let none = Base {
            n,
            ..Base::default()
        };
        let mut base = none.clone();
        for name in vocab::Name::all() {
            base.insert(name, Defaulted(&none).name(name));
        }
        base
    }

    /// Set `name` to `value`.
    pub(crate) fn insert(&mut self, name: vocab::Name, value: Value) {
        match value {
            Value::Set(s) => self.sets.insert(name.name(), s).map(drop),
            Value::Rel(r) => self.rels.insert(name.name(), r).map(drop),
        };
    }

    /// Set a vocabulary name (names outside the vocabulary are ignored, and reported as `false`).
    pub fn set(&mut self, name: &str, value: Value) -> bool {
        let Some(name) = vocab::Name::from_name(name) else {
            return false;
        };
        self.insert(name, value);
        true
    }

    /// The vocabulary names `model` uses that this `Base` does not give.
    pub fn missing(&self, model: &Model) -> Vec<&'static str> {
        let has = |n: &&str| self.sets.contains_key(n) || self.rels.contains_key(n);
        model
            .bases
            .iter()
            .map(|b| b.name())
            .filter(|n| !has(n))
            .collect()
    }
}

/// The value of a cat expression on one execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A set of events.
    Set(Set),
    /// A relation between events.
    Rel(Rel),
}

impl From<Set> for Value {
    fn from(s: Set) -> Value {
        Value::Set(s)
    }
}

impl From<Rel> for Value {
    fn from(r: Rel) -> Value {
        Value::Rel(r)
    }
}

impl Value {
    /// Is the set or relation empty?
    pub fn is_empty(&self) -> bool {
        match self {
            Value::Set(s) => s.is_empty(),
            Value::Rel(r) => r.is_empty(),
        }
    }
    /// The set, or `None` if the value is a relation.
    pub fn as_set(&self) -> Option<Set> {
        match self {
            Value::Set(s) => Some(*s),
            Value::Rel(_) => None,
        }
    }
    /// The relation, or `None` if the value is a set.
    pub fn as_rel(&self) -> Option<&Rel> {
        match self {
            Value::Rel(r) => Some(r),
            Value::Set(_) => None,
        }
    }
    fn empty(kind: Kind, n: usize) -> Value {
        match kind {
            Kind::Set => Value::Set(Set::EMPTY),
            Kind::Rel => Value::Rel(Rel::empty(n)),
        }
    }
}

/// The model's judgement of one execution.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every non-flag check passes (for some choice of the witnesses).
    pub consistent: bool,
    /// Names of the non-flag checks that fail, or of a witness with no possible value. With
    /// witnesses: those of the choice with the fewest failures (only the first choice is tried
    /// once a check before the witness has already failed, or when nothing reads the witness).
    pub failed: Vec<String>,
    /// Names of the flags raised (for the passing choice, or the one `failed` describes).
    pub flags: Vec<String>,
}

/// Judge one execution.
pub fn evaluate(model: &Model, base: &Base) -> Outcome {
    let branch = Evaluator::new(model, base, false).run(0, Branch::default());
    let name = |f: &Fail| match *f {
        Fail::Check(c) => model.checks[c].name.clone(),
        Fail::NoWitness(w) => model.witnesses[w].name.clone(),
    };
    Outcome {
        consistent: branch.failed.is_empty(),
        failed: branch.failed.iter().map(name).collect(),
        flags: branch
            .flags
            .iter()
            .map(|&c| model.checks[c].name.clone())
            .collect(),
    }
}

/// The value of the definition `name` (the last one so named) on one execution, under the
/// witness choice `evaluate` reports; `None` for an unknown name, a function, or when some
/// witness has no possible value.
pub fn evaluate_named(model: &Model, base: &Base, name: &str) -> Option<Value> {
    let id = model.def_named(name)?;
    if matches!(model.defs[id].body, DefBody::Function { .. }) {
        return None;
    }
    Evaluator::settled(model, base).map(|mut ev| ev.slots.swap_remove(id))
}

/// The value of each witness of `model` (in `model.witnesses` order) under the choice `evaluate`
/// reports, from one evaluation; `None` when some witness has no possible value.
pub(crate) fn witness_values(model: &Model, base: &Base) -> Option<Vec<Rel>> {
    let ev = Evaluator::settled(model, base)?;
    model
        .witnesses
        .iter()
        .map(|w| ev.slots[w.def].as_rel().cloned())
        .collect()
}

/// The value of each relation the model shows (`show`), labelled, under the witness choice
/// `evaluate` reports; `None` when some witness has no possible value.
pub(crate) fn shown_values(model: &Model, base: &Base) -> Option<Vec<(String, Rel)>> {
    let ev = Evaluator::settled(model, base)?;
    let value = |e| ev.eval(e).as_rel().cloned();
    Some(
        model
            .shown
            .iter()
            .filter_map(|s| Some((s.label.clone(), value(&s.expr)?)))
            .collect(),
    )
}

/// Why a choice of witnesses is not consistent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    Check(usize),
    NoWitness(usize),
}

/// The result of evaluating the steps under one choice of witnesses.
#[derive(Clone, Debug, Default)]
struct Branch {
    failed: Vec<Fail>,
    flags: Vec<usize>,
    /// All definitions' values, when asked for (`evaluate_named`) and the steps all ran.
    slots: Option<Vec<Value>>,
}

pub(crate) struct Evaluator<'m> {
    model: &'m Model,
    n: usize,
    /// Values of `model.bases`, by slot.
    bases: Vec<Value>,
    /// Values of `model.defs`, by id (functions keep a placeholder).
    slots: Vec<Value>,
    keep_slots: bool,
}

impl<'m> Evaluator<'m> {
    fn new(model: &'m Model, base: &Base, keep_slots: bool) -> Evaluator<'m> {
        let n = base.n;
        let bases = model
            .bases
            .iter()
            .map(|&name| Defaulted(base).name(name))
            .collect();
        let slots = vec![Value::Set(Set::EMPTY); model.defs.len()];
        Evaluator {
            model,
            n,
            bases,
            slots,
            keep_slots,
        }
    }

    /// An evaluator holding every definition's value under the witness choice `evaluate`
    /// reports; `None` when some witness has no possible value.
    fn settled(model: &'m Model, base: &Base) -> Option<Evaluator<'m>> {
        let mut ev = Evaluator::new(model, base, true);
        ev.slots = ev.run(0, Branch::default()).slots?;
        Some(ev)
    }

    /// Run `steps[from..]`, adding to `acc`.
    fn run(&mut self, from: usize, mut acc: Branch) -> Branch {
        let model = self.model;
        for (i, step) in model.steps.iter().enumerate().skip(from) {
            match step {
                Step::Define(id) => self.define(*id),
                Step::Fixpoint(ids) => self.fixpoint(ids),
                Step::Check(c) => self.check(*c, &mut acc),
                Step::Choose(w) => return self.choose(*w, i, acc),
            }
        }
        if self.keep_slots {
            acc.slots = Some(self.slots.clone());
        }
        acc
    }

    fn define(&mut self, id: DefId) {
        if let DefBody::Value(e) = &self.model.defs[id].body {
            self.slots[id] = self.eval(e).into_owned();
        }
    }

    /// A `let rec` group: iterate from empty until nothing changes (bodies are monotone).
    fn fixpoint(&mut self, ids: &[DefId]) {
        let model = self.model;
        for &id in ids {
            self.slots[id] = Value::empty(model.defs[id].kind.unwrap_or(Kind::Rel), self.n);
        }
        // Each round adds at least one pair to some variable, so this bound is never reached.
        let max_rounds = ids.len() * (self.n * self.n + 1) + 1;
        for _ in 0..max_rounds {
            let mut changed = false;
            for &id in ids {
                if let DefBody::Fixpoint(e) = &model.defs[id].body {
                    let v = self.eval(e).into_owned();
                    if v != self.slots[id] {
                        self.slots[id] = v;
                        changed = true;
                    }
                }
            }
            if !changed {
                return;
            }
        }
    }

    fn check(&self, c: usize, acc: &mut Branch) {
        let check = &self.model.checks[c];
        let v = self.eval(&check.expr);
        let test = match (check.kind, v.as_rel()) {
            (CheckKind::Acyclic, Some(r)) => r.is_acyclic(),
            (CheckKind::Irreflexive, Some(r)) => r.is_irreflexive(),
            _ => v.is_empty(),
        };
        let holds = test != check.negated;
        if check.flag && holds {
            acc.flags.push(c);
        } else if !check.flag && !holds {
            acc.failed.push(Fail::Check(c));
        }
    }

    /// `with x from linearisations(S, r)` at step `at`: the rest of the steps under each choice,
    /// stopping at the first that passes; otherwise the choice with the fewest failures. A
    /// witness nothing reads (`Witness::read`) has every choice judged alike, so the first is
    /// that answer, and the only one tried.
    ///
    /// When the witness's failures grow with it (`Witness::failures_grow`), a prefix of an order
    /// is judged too, under the pairs every completion has: each completion fails at least the
    /// checks the prefix fails, so a prefix failing as many checks as the best order so far
    /// cannot hold a better one and its completions are skipped. The answer is the one the full
    /// enumeration gives, order for order.
    fn choose(&mut self, w: usize, at: usize, acc: Branch) -> Branch {
        let witness = &self.model.witnesses[w];
        let set = self.eval(&witness.set).as_set().unwrap_or(Set::EMPTY);
        let order = self.eval(&witness.order).into_owned();
        let order = order
            .as_rel()
            .cloned()
            .unwrap_or_else(|| Rel::empty(self.n));
        let within = order.inter(&Rel::product(self.n, set, set));
        let only_first = !acc.failed.is_empty() || !witness.read;
        let prune = witness.failures_grow && !only_first;
        let mut best: Option<Branch> = None;
        let _ = search_linearisations(self.n, set, &order, &mut |prefix| {
            let complete = prefix.rest.is_empty();
            if !complete && !prune {
                return Visit::Descend;
            }
            self.slots[witness.def] = Value::Rel(prefix.relation(self.n, &within));
            let b = self.run(at + 1, acc.clone());
            let fewer = |x: &Branch| b.failed.len() < x.failed.len();
            if !complete {
                return if best.as_ref().is_none_or(fewer) {
                    Visit::Descend
                } else {
                    Visit::Skip
                };
            }
            let passes = b.failed.is_empty();
            if best.as_ref().is_none_or(fewer) {
                best = Some(b);
            }
            if passes || only_first {
                Visit::Stop
            } else {
                Visit::Skip
            }
        });
        best.unwrap_or_else(|| {
            let mut acc = acc;
            acc.failed.push(Fail::NoWitness(w));
            acc
        })
    }
}

/// The names a `Base` gives; `Defaulted` reads the others (see `Base`).
impl Partial for &Base {
    type Set = Set;
    type Rel = Rel;
    type Value = Value;

    fn given_set(&mut self, name: vocab::Name) -> Option<Set> {
        self.sets.get(name.name()).copied()
    }

    fn given_rel(&mut self, name: vocab::Name) -> Option<Rel> {
        self.rels.get(name.name()).cloned()
    }

    fn events(&mut self) -> Set {
        Set::full(self.n)
    }

    fn no_events(&mut self) -> Set {
        Set::EMPTY
    }

    fn identity(&mut self, events: &Set) -> Rel {
        Rel::id_on(self.n, *events)
    }

    fn no_pairs(&mut self) -> Rel {
        Rel::empty(self.n)
    }
}
