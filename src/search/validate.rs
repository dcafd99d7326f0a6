//! The runner's word on what the solver found: the runner — not the encoder — decides whether a
//! solution (as `SolutionTests`) is a counterexample: the program has a meaning (some consistent
//! source execution, none of which raises a flag: race-free), the target model allows the
//! compiled execution, and every source execution with the lifted `rf` and a coherence order
//! extending the lifted `co` is inconsistent.
//!
//! Owns: `validate` and its `Verdict`, `executions`, and `cycle`: why the lifted source execution
//! breaks an axiom, as `CycleStep`s (`eval::explain` in source keys).
//! Uses: `runner`, `eval`, `exec`, `ir`, `rel`, `litmus`, `mapping`, `diag`, `decode`
//! (`SolutionTests`), `event_key`.
use std::collections::BTreeSet;

use super::decode::SolutionTests;
use super::event_key::{execution_keys, keyed, EventKey, KeyRel};
use crate::eval;
use crate::exec::Execution;
use crate::ir::Model;
use crate::litmus::Litmus;
use crate::mapping::Mapping;
use crate::rel::Rel;
use crate::runner::{self, Candidate};

/// What the runner says of a solution.
#[derive(Clone, Debug)]
pub(super) enum Verdict {
    /// A counterexample: the named axiom fails on the lifted execution, and so does some axiom
    /// for every other coherence order extending the lifted one.
    Confirmed { failed: Vec<String> },
    /// The source program is racy: a consistent execution (its events, rf and co in source
    /// keys) raises a flag. `interleaving`: when that execution is sequentially consistent (one
    /// is chosen when the program has one), its thread events in an order that runs it, every
    /// read reading the last earlier write (`sc_order`).
    Racy {
        events: BTreeSet<EventKey>,
        rf: KeyRel,
        co: KeyRel,
        interleaving: Option<Vec<EventKey>>,
    },
    /// Another coherence order extending the lifted one, or (in a source model with witnesses)
    /// another choice of the witnesses, makes the source execution consistent. `witnesses`: the
    /// values of the source model's witnesses (in `model.witnesses` order, source keys) under
    /// which such a consistent execution passes; empty for a model without witnesses.
    Explained { witnesses: Vec<KeyRel> },
    /// The source model gives the program no consistent execution at all: no meaning, so no
    /// counterexample (a model that does this to a program is suspect; see decision 002).
    Meaningless,
    /// The runner contradicts the encoder: a bug, reported loudly.
    Disagree(String),
}

/// The runner's verdict on a solution for source axiom `axiom`.
pub(super) fn validate(mapping: &Mapping, f: &SolutionTests, axiom: &str) -> Verdict {
    let opts = runner::Options::default();
    let source = match SourceRun::of(&mapping.source, f, &opts) {
        Ok(s) => s,
        Err(e) => {
            return Verdict::Disagree(format!("the runner rejects the source test: {}", e.message))
        }
    };
    if let Some(racy) = source.racy {
        return racy;
    }
    if !source.any_consistent {
        return Verdict::Meaningless;
    }
    if let Some(problem) = target_problem(&mapping.target, f, &opts) {
        return Verdict::Disagree(problem);
    }
    match source.lifted_failed {
        None => Verdict::Disagree("the runner has no source execution with the lifted rf and co".into()),
        // The solver guessed one witness (`with … from …`) under which the axiom fails; the
        // runner found one under which it holds: refinement, not a disagreement.
        Some(fs) if !fs.iter().any(|n| n == axiom) && !mapping.source.witnesses.is_empty() => {
            Verdict::Explained {
                witnesses: source.witnesses,
            }
        }
        Some(fs) if !fs.iter().any(|n| n == axiom) => Verdict::Disagree(format!(
            "the solver says {axiom} fails on the lifted execution; the runner says it holds (failed: {fs:?})"
        )),
        Some(_) if source.explained => Verdict::Explained {
            witnesses: source.witnesses,
        },
        Some(fs) => Verdict::Confirmed { failed: fs },
    }
}

/// What one pass of the runner over the source test's executions says.
struct SourceRun {
    any_consistent: bool,
    /// A consistent execution that raises a flag, as a `Racy` verdict.
    racy: Option<Verdict>,
    /// Some execution with the lifted `rf` and a coherence order extending the lifted `co` is
    /// consistent.
    explained: bool,
    /// The checks failing on the lifted execution itself (`None`: the runner has no such
    /// execution).
    lifted_failed: Option<Vec<String>>,
    /// The witness values (source keys) of the first consistent execution with the lifted `rf`
    /// and a coherence order extending the lifted `co`; empty when there is none or the model
    /// has no witnesses.
    witnesses: Vec<KeyRel>,
}

impl SourceRun {
    fn of(
        model: &Model,
        f: &SolutionTests,
        opts: &runner::Options,
    ) -> crate::diag::Result<SourceRun> {
        let mut run = SourceRun {
            any_consistent: false,
            racy: None,
            explained: false,
            lifted_failed: None,
            witnesses: vec![],
        };
        runner::for_each_candidate(model, &f.source, opts, &mut |cand: &Candidate| {
            let keys = execution_keys(cand.execution);
            let consistent = cand.is_consistent();
            run.any_consistent |= consistent;
            let (rf, co) = (
                keyed(&cand.execution.rf, &keys),
                keyed(&cand.execution.co, &keys),
            );
            let sequentially_consistent = matches!(
                run.racy,
                Some(Verdict::Racy {
                    interleaving: Some(_),
                    ..
                })
            );
            if !sequentially_consistent && consistent && !cand.judgement.flags.is_empty() {
                let interleaving = sc_order(cand.execution)
                    .map(|order| order.into_iter().map(|e| keys[e].clone()).collect());
                if run.racy.is_none() || interleaving.is_some() {
                    run.racy = Some(Verdict::Racy {
                        events: keys.iter().cloned().collect(),
                        rf: rf.clone(),
                        co: co.clone(),
                        interleaving,
                    });
                }
            }
            if rf != f.source_rf || !f.source_co.is_subset(&co) {
                return;
            }
            if consistent && !run.explained {
                run.witnesses = witness_values(model, cand.execution, &keys);
            }
            run.explained |= consistent;
            if co == f.source_mo {
                run.lifted_failed = Some(cand.judgement.failed.clone());
            }
        })?;
        Ok(run)
    }
}

/// The thread events of `x` in an order that runs it sequentially consistently — every read
/// reading the last earlier write to its location, coherence the order of the writes, an RMW's
/// two halves adjacent — if there is one: a topological order of `po ∪ rf ∪ co ∪ fr` with each
/// RMW contracted to one node (initial writes, first in any such order, left out).
fn sc_order(x: &Execution) -> Option<Vec<usize>> {
    let fr = x.rf.inverse().seq(&x.co);
    let order = x.po.union(&x.rf).union(&x.co).union(&fr);
    // An RMW's write is contracted into its read.
    let rmw_read = |e: usize| (0..x.n()).find(|&r| x.rmw.contains(r, e));
    let node = |e: usize| rmw_read(e).unwrap_or(e);
    let mut contracted = Rel::empty(x.n());
    for (a, b) in order.pairs() {
        if node(a) != node(b) {
            contracted.insert(node(a), node(b));
        }
    }
    let mut waiting: Vec<usize> = (0..x.n())
        .filter(|&e| x.events[e].thread.is_some() && rmw_read(e).is_none())
        .collect();
    let mut placed = Vec::new();
    while !waiting.is_empty() {
        let ready = waiting
            .iter()
            .position(|&e| waiting.iter().all(|&d| !contracted.contains(d, e)))?;
        let e = waiting.remove(ready);
        placed.push(e);
        placed.extend(x.rmw.row(e).iter());
    }
    Some(placed)
}

/// The value of each witness of `model` on a consistent `execution`, under the choice that makes
/// it consistent, in keys (no witnesses: empty).
fn witness_values(model: &Model, execution: &Execution, keys: &[EventKey]) -> Vec<KeyRel> {
    if model.witnesses.is_empty() {
        return vec![];
    }
    eval::witness_values(model, &execution.base())
        .map(|values| values.iter().map(|r| keyed(r, keys)).collect())
        .unwrap_or_default()
}

/// Why the runner does not confirm the target execution as consistent, if it does not.
fn target_problem(model: &Model, f: &SolutionTests, opts: &runner::Options) -> Option<String> {
    let target_ok = matching(model, &f.target, &f.target_rf, &f.target_co, opts, |c| {
        c.is_consistent()
    });
    match target_ok {
        Err(e) => Some(format!("the runner rejects the target test: {}", e.message)),
        Ok(None) => Some(
            "the runner has no candidate execution of the target test with the solver's rf and co"
                .into(),
        ),
        Ok(Some(false)) => {
            Some("the target model rejects the execution the solver found consistent".into())
        }
        Ok(Some(true)) => None,
    }
}

/// `pick` of the runner's candidate execution of `test` with this `rf` and `co` (in keys).
fn matching<T>(
    model: &Model,
    test: &Litmus,
    rf: &KeyRel,
    co: &KeyRel,
    opts: &runner::Options,
    pick: impl Fn(&Candidate) -> T,
) -> crate::diag::Result<Option<T>> {
    let mut found = None;
    runner::for_each_candidate(model, test, opts, &mut |cand: &Candidate| {
        let keys = execution_keys(cand.execution);
        if found.is_none()
            && keyed(&cand.execution.rf, &keys) == *rf
            && keyed(&cand.execution.co, &keys) == *co
        {
            found = Some(pick(cand));
        }
    })?;
    Ok(found)
}

/// The compiled execution of a solution and the source execution it lifts to (with the
/// solution's coherence order), as the runner builds them; `None` if the runner has either not.
pub(crate) fn executions(
    mapping: &Mapping,
    f: &SolutionTests,
) -> crate::diag::Result<Option<(Execution, Execution)>> {
    let opts = runner::Options::default();
    let copy = |c: &Candidate| c.execution.clone();
    let target = matching(
        &mapping.target,
        &f.target,
        &f.target_rf,
        &f.target_co,
        &opts,
        copy,
    )?;
    let source = matching(
        &mapping.source,
        &f.source,
        &f.source_rf,
        &f.source_mo,
        &opts,
        copy,
    )?;
    Ok(target.zip(source))
}

/// One edge of a violated axiom's cycle, in source keys: `(from, to)` lies in `via` (see
/// `eval::Edge` for the labels).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleStep {
    /// The edge's source event.
    pub from: EventKey,
    /// Label of the relation that relates `from` to `to` (see `eval::Edge`).
    pub via: String,
    /// The edge's target event.
    pub to: EventKey,
}

/// Why the source execution a solution lifts to (the runner's, from `executions`) breaks source
/// axiom `axiom`: for `acyclic` and `irreflexive` a cycle, its last step ending where the first
/// begins; for `empty` a path between the two events of one offending pair (`eval::explain`).
/// An error when the runner has no such execution, the source model no such axiom, or the axiom
/// holds on it.
pub fn cycle(
    mapping: &Mapping,
    f: &SolutionTests,
    axiom: &str,
) -> crate::diag::Result<Vec<CycleStep>> {
    let err = |msg: String| crate::diag::Error::file(&mapping.path, msg);
    let model = &mapping.source;
    let check = model
        .checks
        .iter()
        .position(|c| c.name == axiom)
        .ok_or_else(|| err(format!("the source model has no axiom {axiom}")))?;
    let (_, source) = executions(mapping, f)?
        .ok_or_else(|| err("the runner has no execution of the solution".into()))?;
    let edges = eval::explain(model, &source.base(), check).ok_or_else(|| {
        err(format!(
            "{axiom} holds on the runner's source execution of the solution"
        ))
    })?;
    let keys = execution_keys(&source);
    Ok(edges
        .into_iter()
        .map(|e| CycleStep {
            from: keys[e.from].clone(),
            via: e.via,
            to: keys[e.to].clone(),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Does running `order` (thread events) give `x`: each event once, program order kept, an
    /// RMW's halves adjacent, each read reading the last earlier write to its location (the
    /// initial write if none) and coherence the order of the writes?
    fn runs(x: &Execution, order: &[usize]) -> bool {
        let thread_events = (0..x.n()).filter(|&e| x.events[e].thread.is_some()).count();
        let at = |e: usize| order.iter().position(|&f| f == e);
        let mut last_write: Vec<Option<usize>> = vec![None; x.locations.len()];
        let init = |l: usize| {
            (0..x.n()).find(|&e| x.events[e].thread.is_none() && x.events[e].loc == Some(l))
        };
        let mut ok = order.len() == thread_events
            && x.po.pairs().all(|(a, b)| at(a) < at(b))
            && x.rmw.pairs().all(|(r, w)| at(w) == at(r).map(|i| i + 1));
        for &e in order {
            let Some(l) = x.events[e].loc else { continue };
            let latest = last_write[l].or_else(|| init(l));
            if x.events[e].kind == crate::exec::EventKind::Read {
                ok &= latest.is_some_and(|w| x.rf.contains(w, e));
            }
            if x.events[e].kind == crate::exec::EventKind::Write {
                ok &= latest.is_some_and(|w| x.co.contains(w, e));
                last_write[l] = Some(e);
            }
        }
        ok
    }

    #[test]
    fn sc_order_runs_exactly_the_sequentially_consistent_candidates() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let model = crate::ir::load(&root.join("models/rc11-scoped.cat")).unwrap();
        let test = crate::litmus::parse_str(
            "sb-rmw.litmus",
            "C sb-rmw\n{ [x] = 0; [y] = 0; }\n\
             P0 (atomic_int* x, atomic_int* y) {\n\
               atomic_store_explicit(x, 1, memory_order_relaxed);\n\
               int r0 = atomic_fetch_add_explicit(y, 1, memory_order_relaxed);\n}\n\
             P1 (atomic_int* x, atomic_int* y) {\n\
               atomic_store_explicit(y, 2, memory_order_relaxed);\n\
               int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\
             exists (P0:r0 == 0 /\\ P1:r1 == 0)\n",
        )
        .unwrap();
        let (mut sc, mut other) = (0, 0);
        runner::for_each_candidate(&model, &test, &runner::Options::default(), &mut |cand| {
            let x = cand.execution;
            let fr = x.rf.inverse().seq(&x.co);
            let sequential = x.po.union(&x.rf).union(&x.co).union(&fr).is_acyclic()
                && x.rmw.inter(&fr.seq(&x.co)).is_empty();
            match sc_order(x) {
                Some(order) => {
                    assert!(runs(x, &order), "{order:?} does not run the candidate");
                    sc += 1;
                }
                None => {
                    assert!(
                        !sequential,
                        "no order for a sequentially consistent candidate"
                    );
                    other += 1;
                }
            }
        })
        .unwrap();
        assert!(
            sc > 0 && other > 0,
            "{sc} sequential, {other} other candidates"
        );
    }
}
