//! One given source test against a mapping, instead of a search: is it a counterexample, and to
//! which source axioms? The test is compiled, every consistent execution of the compiled test is
//! lifted to the source exactly as a solution of the search is (`decode::lift_solution`), and each
//! lift goes to the search's own judge (`validate`). A counterexample written by hand (or by
//! another tool) so gets the same files and Coq refutation as one the search finds, and is held to
//! the same definition: the program race-free and with a meaning, the compiled execution allowed,
//! every coherence order extending the lifted one breaking the source model.
//!
//! Owns: `confirm`, `TestVerdict`, `NotOne`. Uses: `mapping` (compilation), `runner`, `decode`,
//! `validate`.
use std::collections::BTreeSet;

use super::decode::{lift_solution, SolutionTests};
use super::event_key::{execution_keys, keyed, KeyRel};
use super::outcome::Counterexample;
use super::readings::{judge_readings, judge_source_readings};
use super::validate::{self, Verdict};
use crate::diag;
use crate::litmus::Litmus;
use crate::mapping::Mapping;
use crate::runner;

/// What a given test is, for one source axiom.
#[derive(Clone, Debug)]
pub enum TestVerdict {
    /// A counterexample to the axiom: one consistent execution of the compiled test whose lift
    /// breaks it (the first in the runner's order).
    Counterexample(Box<Counterexample>),
    /// Not a counterexample, and why.
    NotOne(NotOne),
}

/// Why a given test is not a counterexample to an axiom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotOne {
    /// Some consistent execution of the source program raises a flag (a race).
    Racy,
    /// The source model gives the program no consistent execution.
    Meaningless,
    /// No consistent execution of the compiled test lifts to a source execution that breaks the
    /// axiom under every coherence order extending the lifted one.
    NoLiftBreaksIt,
}

/// A source execution of the test, as the runner judged it (in source keys).
struct SourceExecution {
    rf: KeyRel,
    co: KeyRel,
    consistent: bool,
    failed: Vec<String>,
}

/// `source` against `mapping`, for each axiom of `axioms` (source axiom names, in order).
pub fn confirm(
    mapping: &Mapping,
    source: &Litmus,
    axioms: &[String],
) -> diag::Result<Vec<(String, TestVerdict)>> {
    let opts = runner::Options::default();
    let mut executions = vec![];
    let (mut racy, mut any_consistent) = (false, false);
    runner::for_each_candidate(&mapping.source, source, &opts, &mut |c| {
        let keys = execution_keys(c.execution);
        any_consistent |= c.is_consistent();
        racy |= c.is_consistent() && !c.judgement.flags.is_empty();
        executions.push(SourceExecution {
            rf: keyed(&c.execution.rf, &keys),
            co: keyed(&c.execution.co, &keys),
            consistent: c.is_consistent(),
            failed: c.judgement.failed.clone(),
        });
    })?;
    let not_one = match (racy, any_consistent) {
        (true, _) => Some(NotOne::Racy),
        (false, false) => Some(NotOne::Meaningless),
        (false, true) => None,
    };
    if let Some(why) = not_one {
        return Ok(axioms
            .iter()
            .map(|a| (a.clone(), TestVerdict::NotOne(why)))
            .collect());
    }
    let lifts = consistent_target_lifts(mapping, source, &opts)?;
    axioms
        .iter()
        .map(|axiom| {
            let verdict = first_counterexample(mapping, &lifts, &executions, axiom)?
                .map_or(TestVerdict::NotOne(NotOne::NoLiftBreaksIt), |cx| {
                    TestVerdict::Counterexample(Box::new(cx))
                });
            Ok((axiom.clone(), verdict))
        })
        .collect()
}

/// Every consistent execution of the compiled test, as a solution (`source_mo` still the lifted
/// coherence, to be extended to a total one).
fn consistent_target_lifts(
    mapping: &Mapping,
    source: &Litmus,
    opts: &runner::Options,
) -> diag::Result<Vec<SolutionTests>> {
    let compiled = mapping.compile_program(source)?;
    let mut seen = BTreeSet::new();
    let mut lifts = vec![];
    runner::for_each_candidate(&mapping.target, &compiled.target, opts, &mut |c| {
        let keys = execution_keys(c.execution);
        let (rf, co) = (keyed(&c.execution.rf, &keys), keyed(&c.execution.co, &keys));
        if c.is_consistent() && seen.insert((rf.clone(), co.clone())) {
            lifts.push(lift_solution(source, &compiled, rf, co));
        }
    })?;
    Ok(lifts)
}

/// The first lift (in the runner's order) that the search's judge confirms as a counterexample
/// to `axiom`, with a total source coherence order extending the lifted one under which the
/// axiom fails; `None` if there is none.
fn first_counterexample(
    mapping: &Mapping,
    lifts: &[SolutionTests],
    executions: &[SourceExecution],
    axiom: &str,
) -> diag::Result<Option<Counterexample>> {
    for lift in lifts {
        let extensions: Vec<&SourceExecution> = executions
            .iter()
            .filter(|x| x.rf == lift.source_rf && lift.source_co.is_subset(&x.co))
            .collect();
        if extensions.iter().any(|x| x.consistent) {
            continue;
        }
        let Some(failing) = extensions
            .iter()
            .find(|x| x.failed.iter().any(|f| f == axiom))
        else {
            continue;
        };
        let found = SolutionTests {
            source_mo: failing.co.clone(),
            ..lift.clone()
        };
        if let Verdict::Confirmed { failed } = validate::validate(mapping, &found, axiom) {
            let cycle = validate::cycle(mapping, &found, axiom)?;
            let shape: Vec<usize> = found
                .source
                .threads
                .iter()
                .map(|t| t.code.iter().map(|i| i.event_count()).sum())
                .collect();
            let readings = judge_readings(mapping, &found.target);
            let source_readings = judge_source_readings(mapping, &found.source);
            return Ok(Some(Counterexample {
                axiom: axiom.to_string(),
                bound: shape.iter().sum(),
                shape,
                found,
                failed,
                cycle,
                readings,
                source_readings,
            }));
        }
    }
    Ok(None)
}
