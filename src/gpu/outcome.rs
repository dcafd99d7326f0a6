//! Outcome selection: what a harness records of each test instance, and a final condition that
//! identifies the execution a counterexample is about.
//!
//! Owns: `Space` (the observed targets — every register a load or RMW writes, every written
//! location's final value, everything the condition names — with the values each can take in
//! some candidate execution, and the histogram bins over them), `select` (the condition
//! rewritten to the observable states the target model allows and the source model forbids,
//! checked with the runner) and `counted` (the outcome the harness counts for a final clause).
//! Uses: `litmus`, `runner` (the ground truth; every verdict here is the runner's), `ir`, `diag`.
//!
//! Why the states identify the execution: each write stores its own value, so a read's value
//! names the write it read from (`rf`); the final value of a location with at most two writes
//! besides the initial one orders them (`co`). Where that does not hold, `select` says so in a
//! note, and no observer reads are added: an observer thread changes the program (a new thread
//! the source must keep race-free and the mapping must place) and two reads in one run cannot
//! order three writes anyway. What makes an observation a witness is checked directly instead:
//! the source model forbids every execution with that observable state.
use std::collections::BTreeSet;

use super::judgement::{Judgement, SourceJudgement};
use super::layout::locations;
use crate::diag::{Error, Result};
use crate::ir::{self, Model};
use crate::litmus::{Condition, Expr, Instr, Litmus, Prop, Quantifier, RmwOp, Target};
use crate::runner::{self, for_each_candidate};

/// Most histogram bins a harness keeps on the device.
pub(crate) const MAX_BINS: usize = 1 << 16;

/// One value per target of a `Space`: an instance's observable state.
pub(crate) type Values = Vec<i64>;

/// What the harness records of each instance, and the values each record can take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Space {
    /// Registers (by thread, in code order), then locations (final values).
    pub targets: Vec<Target>,
    /// Each target as herd7 names it (`0:r0`, `x`).
    pub names: Vec<String>,
    /// Per target, sorted: every value it has in some candidate execution (no model judges).
    pub(crate) domains: Vec<Vec<i64>>,
}

impl Space {
    /// The space of `test`: its observed targets and their values over every candidate execution.
    pub fn of(test: &Litmus) -> Result<Space> {
        let targets = observed_targets(test);
        let mut domains = vec![BTreeSet::new(); targets.len()];
        let every = every_execution()?;
        for_each_state(&every, test, &targets, &mut |values| {
            for (d, v) in domains.iter_mut().zip(values) {
                d.insert(*v);
            }
        })?;
        let space = Space {
            names: targets
                .iter()
                .map(|t| runner::target_name(test, t))
                .collect(),
            targets,
            domains: domains
                .into_iter()
                .map(|d| d.into_iter().collect())
                .collect(),
        };
        space.check(test)?;
        Ok(space)
    }

    /// Bins of the histogram: one per combination of domain values; `bins()` itself is the
    /// bin of states outside the domains (a harness fault, or behaviour no candidate has).
    pub fn bins(&self) -> usize {
        self.domains.iter().map(Vec::len).product()
    }

    /// The bin of a state (mixed radix over the domains, the first target least significant).
    #[cfg(test)]
    pub(crate) fn bin_of(&self, values: &[i64]) -> usize {
        let mut bin = 0;
        for (d, v) in self.domains.iter().zip(values).rev() {
            match d.binary_search(v) {
                Ok(i) => bin = bin * d.len() + i,
                Err(_) => return self.bins(),
            }
        }
        bin
    }

    /// The state of a bin (`None` for the bin outside the domains).
    pub(crate) fn values_of(&self, mut bin: usize) -> Option<Values> {
        if bin >= self.bins() {
            return None;
        }
        let mut out = Vec::with_capacity(self.domains.len());
        for d in &self.domains {
            out.push(d[bin % d.len()]);
            bin /= d.len();
        }
        Some(out)
    }

    /// A state as herd7 prints it (`0:r0=0; x=1;`).
    pub(crate) fn render(&self, values: &[i64]) -> String {
        let state: runner::State = self
            .names
            .iter()
            .cloned()
            .zip(values.iter().map(|v| Some(*v)))
            .collect();
        runner::render_state(&state)
    }

    /// Is `values` a state of this space (one value of each target's domain)?
    pub(crate) fn contains(&self, values: &Values) -> bool {
        values.len() == self.domains.len()
            && self
                .domains
                .iter()
                .zip(values)
                .all(|(d, v)| d.binary_search(v).is_ok())
    }

    /// Does the state satisfy `prop`?
    pub fn satisfies(&self, prop: &Prop, values: &[i64]) -> bool {
        let value = |t: &Target| {
            let i = self.targets.iter().position(|x| x == t)?;
            values.get(i).copied()
        };
        runner::satisfies(prop, &value)
    }

    /// Observed registers: the first targets.
    pub(crate) fn registers(&self) -> usize {
        self.targets
            .iter()
            .take_while(|t| matches!(t, Target::Reg { .. }))
            .count()
    }

    /// The index of a target (every target of the test's condition is one).
    pub(crate) fn index_of(&self, t: &Target) -> Option<usize> {
        self.targets.iter().position(|x| x == t)
    }

    /// Values fit the device's 32-bit words, and the bins fit its histogram.
    fn check(&self, test: &Litmus) -> Result<()> {
        let too_wide = self
            .domains
            .iter()
            .flatten()
            .find(|v| i32::try_from(**v).is_err());
        if let Some(v) = too_wide {
            return Err(Error::file(
                &test.name,
                format!("value {v} does not fit the harness's 32-bit memory words"),
            ));
        }
        if self.domains.iter().any(Vec::is_empty) {
            return Err(Error::file(
                &test.name,
                "the test has no candidate execution",
            ));
        }
        let bins = self
            .domains
            .iter()
            .try_fold(1usize, |acc, d| acc.checked_mul(d.len()));
        if bins.is_none_or(|b| b > MAX_BINS) {
            return Err(Error::file(
                &test.name,
                format!(
                    "the observed registers and locations ({}) have more than {MAX_BINS} combinations of values to count",
                    self.names.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// The outcome a harness counts for a final clause: the proposition of `exists` and `~exists`
/// (seen, or seen although forbidden), the negation of a `forall`'s (a violation).
pub(crate) fn counted(c: &Condition) -> Prop {
    match c.quantifier {
        Quantifier::Forall => Prop::Not(Box::new(c.prop.clone())),
        Quantifier::Exists | Quantifier::NotExists => c.prop.clone(),
    }
}

/// Registers each thread reads into (loads, RMWs) in code order, then the condition's other
/// registers; then every written location, then the condition's other locations.
pub(crate) fn observed_targets(test: &Litmus) -> Vec<Target> {
    let mut regs: Vec<Target> = vec![];
    let mut locs: Vec<Target> = vec![];
    for (thread, t) in test.threads.iter().enumerate() {
        for i in &t.code {
            let (dst, written) = match i {
                Instr::Load { dst, .. } => (Some(dst), None),
                Instr::Store { loc, .. } => (None, Some(loc)),
                Instr::Rmw { dst, loc, .. } => (dst.as_ref(), Some(loc)),
                _ => (None, None),
            };
            if let Some(reg) = dst {
                push_new(
                    &mut regs,
                    Target::Reg {
                        thread,
                        reg: reg.clone(),
                    },
                );
            }
            if let Some(loc) = written {
                push_new(&mut locs, Target::Mem(loc.clone()));
            }
        }
    }
    for t in test.condition.prop.targets() {
        match t {
            Target::Reg { .. } => push_new(&mut regs, t.clone()),
            Target::Mem(_) => push_new(&mut locs, t.clone()),
        }
    }
    regs.extend(locs);
    regs
}

fn push_new(v: &mut Vec<Target>, t: Target) {
    if !v.contains(&t) {
        v.push(t)
    }
}

/// A model with no axioms: every candidate execution is consistent.
fn every_execution() -> Result<Model> {
    ir::load_str(
        "every-execution.cat",
        "\"every candidate execution\"\n",
        None,
    )
}

/// The axioms of sequential consistency: one interleaving of the threads' events.
const SEQUENTIALLY_CONSISTENT: &str = "acyclic po | rf | co | fr as sc\n\
     empty rmw & (fr; co) as atomicity\n";

/// Sequentially consistent executions: threads interleaved at any point.
fn interleavings() -> Result<Model> {
    ir::load_str(
        "interleavings.cat",
        &format!("\"interleavings\"\n{SEQUENTIALLY_CONSISTENT}"),
        None,
    )
}

/// Executions that run whole threads one after another: sequentially consistent, and no
/// communication edge between threads goes against one order of the threads (`int` relates the
/// events of one thread, so a cycle of `com & ext ; int` is two threads each before the other).
fn whole_threads_in_turn() -> Result<Model> {
    ir::load_str(
        "whole-threads-in-turn.cat",
        &format!(
            "\"whole threads one after another\"\n{SEQUENTIALLY_CONSISTENT}\
             acyclic ((rf | co | fr) & ext); int as serial\n"
        ),
        None,
    )
}

/// Every state of `test`'s consistent executions under `model`.
fn states(model: &Model, test: &Litmus, space: &Space) -> Result<BTreeSet<Values>> {
    let mut out = BTreeSet::new();
    for_each_state(model, test, &space.targets, &mut |v| {
        out.insert(v.clone());
    })?;
    Ok(out)
}

/// Call `f` with the state (over `targets`) of every consistent execution's final states;
/// returns the flags some consistent execution raised.
fn for_each_state(
    model: &Model,
    test: &Litmus,
    targets: &[Target],
    f: &mut dyn FnMut(&Values),
) -> Result<BTreeSet<String>> {
    let mut flags = BTreeSet::new();
    for_each_candidate(model, test, &runner::Options::default(), &mut |cand| {
        if !cand.is_consistent() {
            return;
        }
        flags.extend(cand.judgement.flags.iter().cloned());
        for finals in &cand.finals {
            let values: Option<Values> = targets.iter().map(|t| finals.value_of(t)).collect();
            if let Some(v) = values {
                f(&v)
            }
        }
    })?;
    Ok(flags)
}

/// The models that judge a selection: the test's own (the target's), and optionally the
/// source program with its model (a counterexample's `source.litmus`).
#[derive(Clone, Copy, Default)]
pub struct Judges<'a> {
    /// The test's model (the target's); `None`: no model judges what is allowed.
    pub target: Option<&'a Model>,
    /// The source program with its model, which must forbid a witness; `None`: no source judge.
    pub source: Option<(&'a Model, &'a Litmus)>,
}

/// A test whose condition identifies the observable states worth counting.
#[derive(Clone, Debug)]
pub struct Selection {
    /// The test, its `exists` condition rewritten to the witness states.
    pub test: Litmus,
    /// The observable states the harness classifies instances into.
    pub space: Space,
    /// States the target model allows, that satisfy the original condition and (with a source)
    /// that the source model forbids. Empty when no model was given or the model forbids them.
    pub witnesses: Vec<Values>,
    /// The models' verdicts on every state of the space (`gpu run` marks outcomes with them).
    pub judgement: Judgement,
    /// What the condition cannot pin, and what the models said.
    pub notes: Vec<String>,
}

/// Select the outcome of `test` (see the module doc).
pub fn select(test: &Litmus, judges: &Judges) -> Result<Selection> {
    let space = Space::of(test)?;
    let mut notes = identification_notes(test);
    let mut judgement = Judgement {
        names: space.names.clone(),
        interleaved: states(&interleavings()?, test, &space)?,
        sequential: states(&whole_threads_in_turn()?, test, &space)?,
        ..Judgement::default()
    };
    let unchanged = |notes, witnesses, judgement| Selection {
        test: test.clone(),
        space: space.clone(),
        witnesses,
        judgement,
        notes,
    };
    let Some(target) = judges.target else {
        if judges.source.is_some() {
            return Err(Error::file(
                &test.name,
                "checking against a source model needs the test's own (target) model too",
            ));
        }
        notes.push("no model given: the condition is counted as written, unchecked, and no outcome is judged".into());
        return Ok(unchanged(notes, vec![], judgement));
    };
    judgement.model = Some(model_name(target));
    judgement.allowed = states(target, test, &space)?;
    let prop = counted(&test.condition);
    let allowed: BTreeSet<Values> = judgement
        .allowed
        .iter()
        .filter(|v| space.satisfies(&prop, v))
        .cloned()
        .collect();
    if allowed.is_empty() {
        notes.push(format!(
            "{} forbids the counted outcome: the harness checks that it is never observed",
            model_name(target)
        ));
        return Ok(unchanged(notes, vec![], judgement));
    }
    let witnesses = match judges.source {
        None => allowed,
        Some((model, source)) => {
            let source_allowed = source_states(model, source, &space, &mut notes)?;
            let witnesses =
                forbidden_by_source(model, source, &space, allowed, &source_allowed, &mut notes)?;
            judgement.source = Some(SourceJudgement {
                model: model_name(model),
                allowed: source_allowed,
            });
            witnesses
        }
    };
    let witnesses: Vec<Values> = witnesses.into_iter().collect();
    if test.condition.quantifier != Quantifier::Exists {
        notes.push("the condition is not `exists`: kept as written".into());
        return Ok(unchanged(notes, witnesses, judgement));
    }
    let mut selected = test.clone();
    selected.condition = Condition {
        quantifier: Quantifier::Exists,
        prop: any_of(&space, &witnesses),
    };
    Ok(Selection {
        test: selected,
        space,
        witnesses,
        judgement,
        notes,
    })
}

fn model_name(m: &Model) -> String {
    m.title.clone().unwrap_or_else(|| m.path.clone())
}

/// The states of the source program's consistent executions (every observed target must be
/// one of its registers or locations); a note when the source model raises a flag on it.
fn source_states(
    model: &Model,
    source: &Litmus,
    space: &Space,
    notes: &mut Vec<String>,
) -> Result<BTreeSet<Values>> {
    check_observable(source, space)?;
    let mut source_states = BTreeSet::new();
    let flags = for_each_state(model, source, &space.targets, &mut |v| {
        source_states.insert(v.clone());
    })?;
    if !flags.is_empty() {
        notes.push(format!(
            "the source model raises {} on the source program: racy programs have no meaning there",
            flags.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(source_states)
}

/// The allowed states that are not source states.
fn forbidden_by_source(
    model: &Model,
    source: &Litmus,
    space: &Space,
    allowed: BTreeSet<Values>,
    source_states: &BTreeSet<Values>,
    notes: &mut Vec<String>,
) -> Result<BTreeSet<Values>> {
    let (also_source, witnesses): (BTreeSet<Values>, BTreeSet<Values>) =
        allowed.into_iter().partition(|v| source_states.contains(v));
    if witnesses.is_empty() {
        return Err(Error::file(
            &source.name,
            format!(
                "{} allows every state the target allows for the condition: the test is no counterexample",
                model_name(model)
            ),
        ));
    }
    for v in &also_source {
        notes.push(format!(
            "left out {} (the source model allows it too)",
            space.render(v)
        ));
    }
    Ok(witnesses)
}

/// Every observed register and location exists in the source program too.
fn check_observable(source: &Litmus, space: &Space) -> Result<()> {
    let source_targets = observed_targets(source);
    let has = |t: &Target| match t {
        Target::Reg { thread, reg } => {
            source_targets.contains(t)
                || source.threads.get(*thread).is_some_and(|th| {
                    th.code
                        .iter()
                        .any(|i| matches!(i, Instr::Assign { dst, .. } if dst == reg))
                })
        }
        Target::Mem(l) => locations(source).iter().any(|(name, _)| name == l),
    };
    match space.targets.iter().zip(&space.names).find(|(t, _)| !has(t)) {
        Some((_, name)) => Err(Error::file(
            &source.name,
            format!("the source program has no `{name}`: both tests must observe the same registers and locations"),
        )),
        None => Ok(()),
    }
}

/// The disjunction of the states, each a conjunction of `target = value`.
fn any_of(space: &Space, states: &[Values]) -> Prop {
    let state = |v: &Values| {
        let atoms = space
            .targets
            .iter()
            .zip(v)
            .map(|(t, x)| Prop::Eq(t.clone(), *x));
        atoms
            .reduce(|a, b| Prop::And(Box::new(a), Box::new(b)))
            .unwrap_or(Prop::True)
    };
    states
        .iter()
        .map(state)
        .reduce(|a, b| Prop::Or(Box::new(a), Box::new(b)))
        .unwrap_or(Prop::False)
}

/// Where reads cannot reveal `rf` (two writes of one value) or final values cannot pin `co`
/// (more than two writes to a location).
fn identification_notes(test: &Litmus) -> Vec<String> {
    let mut notes = vec![];
    for (loc, writes) in writes_per_location(test) {
        let init = test
            .init_mem
            .iter()
            .find(|(l, _)| *l == loc)
            .map_or(0, |(_, v)| *v);
        let constants: Vec<i64> = writes.iter().flatten().copied().collect();
        let distinct: BTreeSet<i64> = constants.iter().copied().collect();
        if distinct.len() < constants.len() || distinct.contains(&init) {
            notes.push(format!(
                "{loc}: two writes (or a write and the initial state) store the same value, so a read of it does not tell which write it read from"
            ));
        }
        if writes.len() > 2 {
            notes.push(format!(
                "{loc}: {} writes, so its final value pins only the last in coherence order; \
                 no observer reads are added (they would change the program); the witness \
                 check below holds for every coherence order",
                writes.len()
            ));
        }
    }
    notes
}

/// Per written location: each write's value, when it is a constant.
fn writes_per_location(test: &Litmus) -> Vec<(String, Vec<Option<i64>>)> {
    let mut out: Vec<(String, Vec<Option<i64>>)> = vec![];
    for i in test.threads.iter().flat_map(|t| &t.code) {
        let (loc, value) = match i {
            Instr::Store { loc, value, .. } => (loc, constant(value)),
            Instr::Rmw { loc, op, .. } => (loc, written_constant(op)),
            _ => continue,
        };
        match out.iter_mut().find(|(l, _)| l == loc) {
            Some((_, vs)) => vs.push(value),
            None => out.push((loc.clone(), vec![value])),
        }
    }
    out
}

fn constant(e: &Expr) -> Option<i64> {
    match e {
        Expr::Const(v) => Some(*v),
        _ => None,
    }
}

fn written_constant(op: &RmwOp) -> Option<i64> {
    match op {
        RmwOp::Exch(e) | RmwOp::Cas { desired: e, .. } => constant(e),
        RmwOp::Arith(..) => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::litmus::parse_str;

    /// Store buffering with relaxed atomics across two CTAs (also used by the other `gpu` unit
    /// tests).
    pub(crate) const SB: &str = "PTX SB\n{ x=0; y=0; }\n\
        P0@cta 0,gpu 0 | P1@cta 1,gpu 0 ;\n\
        st.relaxed.gpu x, 1 | st.relaxed.gpu y, 1 ;\n\
        ld.relaxed.gpu r0, y | ld.relaxed.gpu r1, x ;\n\
        exists (0:r0=0 /\\ 1:r1=0)\n";

    #[test]
    fn the_space_observes_reads_and_final_memory() {
        let space = Space::of(&parse_str("sb.litmus", SB).unwrap()).unwrap();
        assert_eq!(space.names, ["0:r0", "1:r1", "x", "y"]);
        assert_eq!(space.domains, [vec![0, 1], vec![0, 1], vec![1], vec![1]]);
        assert_eq!(space.bins(), 4);
        for bin in 0..space.bins() {
            assert_eq!(space.bin_of(&space.values_of(bin).unwrap()), bin);
        }
        assert_eq!(space.bin_of(&[0, 0, 2, 1]), space.bins());
        assert_eq!(space.render(&[0, 1, 1, 1]), "0:r0=0; 1:r1=1; x=1; y=1;");
    }

    #[test]
    fn selection_pins_the_final_memory() {
        let test = parse_str("sb.litmus", SB).unwrap();
        let model = ir::load(std::path::Path::new("models/ptx-v6.cat")).unwrap();
        let judges = Judges {
            target: Some(&model),
            source: None,
        };
        let s = select(&test, &judges).unwrap();
        assert_eq!(s.witnesses, vec![vec![0, 0, 1, 1]]);
        let text = crate::litmus::print_ptx(&s.test).unwrap();
        assert!(text.contains("x == 1"), "{text}");
    }

    #[test]
    fn duplicate_values_and_three_writes_are_noted() {
        let test = parse_str(
            "co.litmus",
            "PTX W3\n{ x=0; }\n\
             P0@cta 0,gpu 0 | P1@cta 0,gpu 0 ;\n\
             st.relaxed.gpu x, 1 | st.relaxed.gpu x, 1 ;\n\
             st.relaxed.gpu x, 2 | ld.relaxed.gpu r0, x ;\n\
             exists (x=2)\n",
        )
        .unwrap();
        let notes = identification_notes(&test);
        assert_eq!(notes.len(), 2, "{notes:?}");
    }
}
