//! The symbolic decision of a litmus test, for a test whose candidate executions are too many for
//! the runner to go through (Dartagnan's approach, on mapcheck's own encoder). The runner still
//! enumerates the thread traces, grouped into families that differ only in the values their reads
//! return (`runner::for_each_family`); each family combination is encoded once, its events fixed,
//! `rf` and `co` open and the read values tied to the family's traces, and the solver says
//! whether some consistent execution (passing the test's `filter`) satisfies the condition's
//! proposition, whether one falsifies it, and whether one raises each flag.
//!
//! Every execution the solver finds is read back as a concrete `Execution` and judged again by
//! the evaluator, with its final state; a disagreement is an internal error, never an answer.
//! The `Outcome` says how it was reached: its states are those of the executions found, its
//! counts 0 or 1 per family (`Outcome::decided`).
//!
//! Owns: `run` (the runner when it can enumerate, this decision when it cannot) and `decide`.
//! Uses: `runner` (families, outcomes), `encode` and `solver`, `eval`, `exec`, `ir`, `litmus`,
//! `rel`, `vocab`, `diag` (a disagreement is an internal error).
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use crate::diag::{Error, Fault, Internal, Result};
use crate::encode::{Circuit, Matrix, Node, Sat, Value, Vector};
use crate::eval::{self, Base};
use crate::exec::{EventKind, Execution};
use crate::ir::{CoKind, Model};
use crate::litmus::{Litmus, Prop, Target};
use crate::rel::Set;
use crate::runner::{self, Family, Member, Options, Outcome};
use crate::solver::{Backend, Stop, Verdict};
use crate::vocab::{Name, Relation};

/// What a model allows for `test`: the runner's enumeration when the candidates are within
/// `opts.max_candidates` and judging them within `opts.enumeration_seconds` by the runner's
/// estimate, the symbolic decision otherwise. A test the solver cannot take (a thread with
/// more traces than it holds) is enumerated after all when only the time estimate stood in the
/// way; refused, with both reasons, when the candidate limit does too.
pub fn run(model: &Model, test: &Litmus, opts: &Options) -> Result<Outcome> {
    let refusal = match runner::run_within(model, test, opts)? {
        Ok(outcome) => return Ok(outcome),
        Err(refusal) => refusal,
    };
    let unable = match decide(model, test, opts) {
        Err(e) if e.fault() == Fault::Input => e,
        decided => return decided,
    };
    if refusal.timed {
        let untimed = Options {
            enumeration_seconds: None,
            ..opts.clone()
        };
        return runner::run(model, test, &untimed);
    }
    let note = format!("the solver cannot decide it either: {}", unable.message);
    Err(refusal.error.with_note(note))
}

/// Decide `test` under `model` with the solver, one family combination at a time.
pub fn decide(model: &Model, test: &Litmus, opts: &Options) -> Result<Outcome> {
    let mut out = runner::empty_outcome(model, test);
    out.decided = true;
    let observed = runner::observed(test);
    runner::for_each_family(model, test, opts, &mut |family| {
        if opts.out_of_time() {
            return Err(runner::stopped(test));
        }
        let mut problem = Problem::new(model, test, &family, opts.deadline);
        for query in Query::all(model) {
            if let Some((values, sat)) = problem.witness(model, test, &family, query)? {
                match query {
                    Query::Satisfies => out.positive += 1,
                    Query::Falsifies => out.negative += 1,
                    Query::Raises(i) => {
                        out.flags.insert(model.checks[i].name.clone());
                    }
                }
                out.add_state(test, &observed, values, sat);
            }
        }
        Ok(())
    })?;
    out.validated = out.clause_validated();
    Ok(out)
}

/// What is asked of each family combination.
#[derive(Clone, Copy, Debug)]
enum Query {
    /// A consistent execution whose final state satisfies the condition's proposition.
    Satisfies,
    /// One whose final state falsifies it.
    Falsifies,
    /// One that raises flag check `i`.
    Raises(usize),
}

impl Query {
    fn all(model: &Model) -> Vec<Query> {
        let flags = (0..model.checks.len()).filter(|&i| model.checks[i].flag);
        [Query::Satisfies, Query::Falsifies]
            .into_iter()
            .chain(flags.map(Query::Raises))
            .collect()
    }
}

/// One family combination encoded: `rf` and `co` open, everything else fixed.
struct Problem {
    sat: Sat,
    encoded: crate::encode::Encoded,
    rf: Matrix,
    co: Matrix,
    /// Consistent, well-formed, one of the family's traces per thread, and the filter passed.
    base: Node,
    proposition: Node,
    /// Per write, "it is its location's final write".
    final_write: Vec<(usize, Node)>,
}

impl Problem {
    fn new(model: &Model, test: &Litmus, family: &Family, deadline: Option<Instant>) -> Problem {
        let x = &family.execution;
        let n = x.n();
        let mut sat = Sat::new(Backend::default());
        if let Some(d) = deadline {
            sat.stop_when(Stop::new().with_deadline(d));
        }
        let c = &mut sat.circuit;
        let (rf, reads_value, rf_wf) = read_from(c, family);
        let (co, co_wf) = coherence(c, x, model.coherence);
        let fr = rf.inverse().seq(c, &co);
        let fixed = x.base();
        let all = Vector::constant(n, Set::full(n));
        let mut encoded = crate::encode::Encoded::new(c, model, all, &mut |_, name| match name {
            Name::Rel(Relation::Rf) => Value::Rel(rf.clone()),
            Name::Rel(Relation::Co) => Value::Rel(co.clone()),
            Name::Rel(Relation::Fr) => Value::Rel(fr.clone()),
            other => constant(&fixed, other.name()),
        });
        let selected: Vec<Vec<Node>> = (family.members.iter())
            .map(|members| {
                members
                    .iter()
                    .map(|m| member_node(c, m, &reads_value))
                    .collect()
            })
            .collect();
        let one_trace: Vec<Node> = selected.iter().map(|s| c.or(s.iter().copied())).collect();
        let finals = FinalNodes::new(c, x, &co, family, &selected);
        let filter = match &test.filter {
            Some(p) => finals.prop(c, p),
            None => Node::TRUE,
        };
        let consistent = encoded.consistent_node(c);
        let wf = rf_wf
            .into_iter()
            .chain(co_wf)
            .chain(finals.wf.iter().copied());
        let base = c.and(wf.chain(one_trace).chain([consistent, filter]));
        let proposition = finals.prop(c, &test.condition.prop);
        Problem {
            sat,
            encoded,
            rf,
            co,
            base,
            proposition,
            final_write: finals.final_write,
        }
    }

    /// An execution answering `query`, judged again by the evaluator: its final state and
    /// whether it satisfies the proposition; `None` when there is none.
    fn witness(
        &mut self,
        model: &Model,
        test: &Litmus,
        family: &Family,
        query: Query,
    ) -> Result<Option<(Vec<Option<i64>>, bool)>> {
        let c = &mut self.sat.circuit;
        let asked = match query {
            Query::Satisfies => self.proposition,
            Query::Falsifies => !self.proposition,
            Query::Raises(i) => self.encoded.holds_node(c, i),
        };
        let goal = c.and2(self.base, asked);
        let lit = self.sat.lit(goal);
        match self.sat.solve(&[lit]) {
            Verdict::Unsat => return Ok(None),
            Verdict::Sat => {}
            Verdict::Stopped => return Err(runner::stopped(test)),
        }
        let mut x = family.execution.clone();
        x.rf = self.sat.read_rel(&self.rf);
        x.co = self.sat.read_rel(&self.co);
        let nodes: Vec<Node> = self.final_write.iter().map(|(_, n)| *n).collect();
        let finals = (self.final_write.iter().zip(self.sat.read(&nodes)))
            .filter(|(_, chosen)| *chosen)
            .map(|((w, _), _)| *w)
            .collect::<Vec<_>>();
        rejudge(model, test, family, &x, &finals, query).map(Some)
    }
}

/// The judgement of a found execution by the evaluator, which must agree with the solver: its
/// final state (rendered as the runner renders states) and whether it satisfies the proposition.
fn rejudge(
    model: &Model,
    test: &Litmus,
    family: &Family,
    x: &Execution,
    finals: &[usize],
    query: Query,
) -> Result<(Vec<Option<i64>>, bool)> {
    let disagree = |what: &str| {
        let msg =
            format!("the solver's execution for {query:?} {what} (encoder and evaluator disagree)");
        Error::internal(&test.name, Internal(msg))
    };
    let judgement = eval::evaluate(model, &x.base());
    if !judgement.consistent {
        return Err(disagree("is inconsistent"));
    }
    let registers = registers_read(x, family).ok_or_else(|| disagree("matches no trace"))?;
    let memory = final_memory(x, finals)
        .ok_or_else(|| disagree("ends on a write that is not co-maximal"))?;
    let value = |t: &Target| match t {
        Target::Reg { thread, reg } => (registers[*thread].get(reg).copied()).unwrap_or(Some(0)),
        Target::Mem(l) => memory.get(l).copied(),
    };
    let passes = test
        .filter
        .as_ref()
        .is_none_or(|p| runner::satisfies(p, &value));
    let sat = runner::satisfies(&test.condition.prop, &value);
    let answered = match query {
        Query::Satisfies => sat,
        Query::Falsifies => !sat,
        Query::Raises(i) => judgement.flags.contains(&model.checks[i].name),
    };
    if !(passes && answered) {
        return Err(disagree("does not answer it"));
    }
    Ok((runner::observed(test).iter().map(value).collect(), sat))
}

/// The registers of the member each thread's reads in `x` select.
fn registers_read(x: &Execution, family: &Family) -> Option<Vec<BTreeMap<String, Option<i64>>>> {
    let value_read = |r: usize| {
        (x.rf.pairs())
            .find(|&(_, rr)| rr == r)
            .map(|(w, _)| x.events[w].value)
    };
    (family.members.iter())
        .map(|members| {
            let matches = |m: &&Member| m.reads.iter().all(|&(r, v)| value_read(r) == Some(v));
            members.iter().find(matches).map(|m| m.registers.clone())
        })
        .collect()
}

/// Each location's final value: that of the write the solver chose as final, which must be
/// co-maximal in `x` (under a partial `co` several are; the runner reports a state for each).
fn final_memory(x: &Execution, finals: &[usize]) -> Option<BTreeMap<String, i64>> {
    let mut out = BTreeMap::new();
    for &w in finals {
        let e = &x.events[w];
        if !x.co.row(w).is_empty() {
            return None;
        }
        out.insert(x.locations[e.loc?].clone(), e.value);
    }
    Some(out)
}

/// A vocabulary name's fixed value in the family's execution.
fn constant(fixed: &Base, name: &str) -> Value {
    match (fixed.sets.get(name), fixed.rels.get(name)) {
        (Some(s), _) => Value::Set(Vector::constant(fixed.n, *s)),
        (_, Some(r)) => Value::Rel(Matrix::constant(r)),
        _ => Value::Set(Vector::constant(fixed.n, Set::EMPTY)),
    }
}

/// `rf` open between each read and the same-location writes of a value some member reads there;
/// "read r returns v" per read and value; and the well-formedness (exactly one write per read).
fn read_from(
    c: &mut Circuit,
    family: &Family,
) -> (Matrix, BTreeMap<(usize, i64), Node>, Vec<Node>) {
    let x = &family.execution;
    let mut values: BTreeMap<usize, BTreeSet<i64>> = BTreeMap::new();
    for (r, v) in family.members.iter().flatten().flat_map(|m| &m.reads) {
        values.entry(*r).or_default().insert(*v);
    }
    let n = x.n();
    let mut cells = vec![Node::FALSE; n * n];
    let mut reads_value: BTreeMap<(usize, i64), Node> = BTreeMap::new();
    let mut wf = vec![];
    for (&r, vs) in &values {
        let sources: Vec<usize> = (0..n)
            .filter(|&w| x.events[w].kind == EventKind::Write && x.events[w].loc == x.events[r].loc)
            .filter(|&w| vs.contains(&x.events[w].value))
            .collect();
        let vars: Vec<Node> = sources.iter().map(|_| c.input()).collect();
        for (&w, &v) in sources.iter().zip(&vars) {
            cells[w * n + r] = v;
            let e = reads_value
                .entry((r, x.events[w].value))
                .or_insert(Node::FALSE);
            *e = c.or2(*e, v);
        }
        wf.push(c.or(vars.iter().copied()));
        for (i, &a) in vars.iter().enumerate() {
            for &b in &vars[i + 1..] {
                let both = c.and2(a, b);
                wf.push(!both);
            }
        }
    }
    let rf = Matrix::from_fn(n, |w, r| cells[w * n + r]);
    (rf, reads_value, wf)
}

/// `co` open on the writes of each location, the initial write first: a strict total order per
/// location, or a strict partial one, as the model declares; and its well-formedness.
fn coherence(c: &mut Circuit, x: &Execution, kind: CoKind) -> (Matrix, Vec<Node>) {
    let n = x.n();
    let mut cells = vec![Node::FALSE; n * n];
    let mut wf = vec![];
    for l in 0..x.locations.len() {
        let writes: Vec<usize> = (0..n)
            .filter(|&w| x.events[w].kind == EventKind::Write && x.events[w].loc == Some(l))
            .collect();
        for (i, &a) in writes.iter().enumerate() {
            for &b in &writes[i + 1..] {
                let (ab, ba) = match (x.events[a].thread, x.events[b].thread) {
                    (None, _) => (Node::TRUE, Node::FALSE),
                    (_, None) => (Node::FALSE, Node::TRUE),
                    _ => match kind {
                        CoKind::Total => {
                            let v = c.input();
                            (v, !v)
                        }
                        CoKind::Partial => {
                            let (u, v) = (c.input(), c.input());
                            let both = c.and2(u, v);
                            wf.push(!both);
                            (u, v)
                        }
                    },
                };
                cells[a * n + b] = ab;
                cells[b * n + a] = ba;
            }
        }
        for &a in &writes {
            for &b in &writes {
                for &d in &writes {
                    if a != b && b != d && a != d {
                        let chain = c.and2(cells[a * n + b], cells[b * n + d]);
                        wf.push(c.implies(chain, cells[a * n + d]));
                    }
                }
            }
        }
    }
    (Matrix::from_fn(n, |a, b| cells[a * n + b]), wf)
}

/// "The family's member `m` is the trace taken": every read returns the member's value.
fn member_node(c: &mut Circuit, m: &Member, reads_value: &BTreeMap<(usize, i64), Node>) -> Node {
    let each: Vec<Node> = (m.reads.iter())
        .map(|rv| reads_value.get(rv).copied().unwrap_or(Node::FALSE))
        .collect();
    c.and(each)
}

/// The final values as nodes: a register's through the member selected, a location's through
/// the co-maximal write chosen as its final one.
struct FinalNodes {
    /// (thread, register, value) → "the register ends with the value".
    registers: BTreeMap<(usize, String, i64), Node>,
    /// Registers that end unset in some member (a blocked thread).
    unset: BTreeMap<(usize, String), Node>,
    /// (location, value) → "the location ends with the value".
    memory: BTreeMap<(String, i64), Node>,
    /// Every value a target may end with.
    values: BTreeSet<i64>,
    /// The final-write choice: one per location, co-maximal.
    wf: Vec<Node>,
    /// Per write, "it is its location's final write".
    final_write: Vec<(usize, Node)>,
}

impl FinalNodes {
    fn new(
        c: &mut Circuit,
        x: &Execution,
        co: &Matrix,
        family: &Family,
        selected: &[Vec<Node>],
    ) -> FinalNodes {
        let mut f = FinalNodes {
            registers: BTreeMap::new(),
            unset: BTreeMap::new(),
            memory: BTreeMap::new(),
            values: BTreeSet::new(),
            wf: vec![],
            final_write: vec![],
        };
        for (t, members) in family.members.iter().enumerate() {
            for (m, &sel) in members.iter().zip(&selected[t]) {
                for (reg, v) in &m.registers {
                    let slot = match v {
                        Some(v) => {
                            f.values.insert(*v);
                            f.registers
                                .entry((t, reg.clone(), *v))
                                .or_insert(Node::FALSE)
                        }
                        None => f.unset.entry((t, reg.clone())).or_insert(Node::FALSE),
                    };
                    *slot = c.or2(*slot, sel);
                }
            }
        }
        for (l, name) in x.locations.iter().enumerate() {
            let writes: Vec<usize> = (0..x.n())
                .filter(|&w| x.events[w].kind == EventKind::Write && x.events[w].loc == Some(l))
                .collect();
            // Exactly one write is the final one, and it is co-maximal (several are co-maximal
            // only under a partial co; the runner reports a final state for each).
            let chosen: Vec<Node> = writes.iter().map(|_| c.input()).collect();
            f.wf.push(c.or(chosen.iter().copied()));
            for (i, &w) in writes.iter().enumerate() {
                let later: Vec<Node> = writes.iter().map(|&u| co.get(w, u)).collect();
                let maximal = !c.or(later);
                let final_is_maximal = c.implies(chosen[i], maximal);
                f.wf.push(final_is_maximal);
                for &other in &chosen[i + 1..] {
                    let two = c.and2(chosen[i], other);
                    f.wf.push(!two);
                }
                let value = x.events[w].value;
                f.values.insert(value);
                let slot = f.memory.entry((name.clone(), value)).or_insert(Node::FALSE);
                *slot = c.or2(*slot, chosen[i]);
                f.final_write.push((w, chosen[i]));
            }
        }
        f
    }

    /// "Target `t` ends with `v`". A register no member sets ends with 0 (as the runner reads
    /// it); an unset one with no value.
    fn is(&self, t: &Target, v: i64) -> Node {
        match t {
            Target::Reg { thread, reg } => {
                let known = self
                    .registers
                    .keys()
                    .any(|(th, r, _)| th == thread && r == reg)
                    || self.unset.contains_key(&(*thread, reg.clone()));
                match self.registers.get(&(*thread, reg.clone(), v)) {
                    Some(&n) => n,
                    None if !known && v == 0 => Node::TRUE,
                    None => Node::FALSE,
                }
            }
            Target::Mem(l) => self
                .memory
                .get(&(l.clone(), v))
                .copied()
                .unwrap_or(Node::FALSE),
        }
    }

    /// The proposition over the final values.
    fn prop(&self, c: &mut Circuit, p: &Prop) -> Node {
        match p {
            Prop::True => Node::TRUE,
            Prop::False => Node::FALSE,
            Prop::Eq(t, v) => self.is(t, *v),
            Prop::EqTargets(a, b) => {
                let same: Vec<Node> = (self.values.iter())
                    .map(|&v| {
                        let (x, y) = (self.is(a, v), self.is(b, v));
                        c.and2(x, y)
                    })
                    .collect();
                c.or(same)
            }
            Prop::Not(a) => !self.prop(c, a),
            Prop::And(a, b) => {
                let (x, y) = (self.prop(c, a), self.prop(c, b));
                c.and2(x, y)
            }
            Prop::Or(a, b) => {
                let (x, y) = (self.prop(c, a), self.prop(c, b));
                c.or2(x, y)
            }
            Prop::Implies(a, b) => {
                let (x, y) = (self.prop(c, a), self.prop(c, b));
                c.implies(x, y)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Fault;
    use std::path::Path;

    /// An execution the solver could not return (no read has a write to read from) is one the
    /// evaluator's re-judgement refuses as an internal error, never as an answer or bad input.
    #[test]
    fn a_disagreeing_execution_is_an_internal_error() {
        let model = crate::ir::load(Path::new("models/ptx-v6.cat")).expect("loads");
        let test = crate::litmus::parse_file(Path::new(
            "tests/data/ptx-manual/0008_sb_fence_sc_sys.litmus",
        ))
        .expect("parses");
        let mut errors = vec![];
        runner::for_each_family(&model, &test, &Options::default(), &mut |family| {
            assert!(family.execution.rf.pairs().next().is_none(), "rf is open");
            errors.push(
                rejudge(
                    &model,
                    &test,
                    &family,
                    &family.execution,
                    &[],
                    Query::Satisfies,
                )
                .expect_err("no trace reads nothing"),
            );
            Ok(())
        })
        .expect("families");
        assert!(!errors.is_empty());
        for e in errors {
            assert_eq!(e.fault(), Fault::Internal);
            assert!(e
                .message
                .contains("matches no trace (encoder and evaluator disagree)"));
        }
    }
}
