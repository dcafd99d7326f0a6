//! Candidate executions of a litmus test, one at a time.
//!
//! 1. The value domain: what each location may hold (propagated to a fixpoint over thread traces).
//!    Before each round goes through the traces, the bound read off the code (`bound`) is checked
//!    against `Options::max_candidates`.
//! 2. Per-thread traces under that domain (`traces`): held in memory for a thread with few of
//!    them, generated afresh each time they are needed otherwise.
//! 3. When the bound from the code is above the limit: the candidates counted without judging
//!    them, the test refused as soon as they pass the limit.
//! 4. For each combination of traces: barrier generations (which arrivals synchronise, which
//!    threads block), then every `rf` (each read from a same-location write of the same value),
//!    then every `co` (total or partial per location, as the model declares; initial writes first),
//!    each generated one at a time (`orders`).
//!
//! Each candidate is judged by the model; consistent ones carry their final states.
//!
//! This file keeps the entry points (`estimate`, `for_each_candidate`); by job: `domain` (1, the
//! value domain), `counting` (3), `combinations` (trace combinations, barrier choice) and `rf_co`
//! (`rf` and `co` choice, judging).
//!
//! Files:
//! - `enumerate/candidate.rs`: `Candidate`, `Finals`.
//! - `enumerate/domain.rs`: the value domain, propagated to a fixpoint; `Valued`; `over_limit`, the
//!   refusal over the candidate limit.
//! - `enumerate/counting.rs`: candidates counted without judging, and the time cap by the estimate.
//! - `enumerate/combinations.rs`: trace combinations and barrier generations.
//! - `enumerate/rf_co.rs`: every `rf` and `co` over a fixed part, each judged.
//! - `enumerate/families.rs`: trace families, for `decide`.
//! - `enumerate/sequential.rs`: a sequentially consistent run, looked for when the enumeration
//!   finds no candidate (one then is an internal error).
mod candidate;
mod combinations;
mod counting;
mod domain;
mod families;
mod rf_co;
mod sequential;

use super::options::Options;
use crate::diag::{Error, Internal, Result};
use crate::ir::Model;
use crate::litmus::Litmus;
pub use candidate::Candidate;
pub(crate) use candidate::Finals;
use combinations::{for_each_barrier_choice, Combinations};
use counting::{count, count_up_to, TimeCap};
use domain::{over_limit, prepare, Memory, Prepared, Threads, ValueIndex};
pub use families::{Family, Member};
use rf_co::Shape;
use sequential::Run;

/// The runner's estimate of a test's candidate executions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Estimate {
    /// The upper bound read off the code (see `bound`).
    pub from_code: u128,
    /// The exact count, made by going through the trace combinations without judging them; `None`
    /// when the traces are too many to go through (the bound from the code is then within the
    /// limit).
    pub counted: Option<u128>,
}

/// The runner's estimate of the candidate executions of `test`, counted whenever the traces are
/// few enough to go through; an error when it exceeds `opts.max_candidates`.
pub fn estimate(model: &Model, test: &Litmus, opts: &Options) -> Result<Estimate> {
    with_combinations(model, test, opts, &mut |combos, prepared| {
        let affordable = prepared.code.traces <= u128::from(opts.max_candidates);
        let counted = if affordable {
            Some(count(combos, prepared, model.coherence)?)
        } else {
            None
        };
        Ok(Estimate {
            from_code: prepared.code.candidates,
            counted,
        })
    })
}

/// Enumerate every candidate execution of `test`, judged by `model`, calling `f` on each; refuse
/// a test whose estimate exceeds `opts.max_candidates` before judging any. The candidates are
/// counted first only when the bound from the code is above the limit.
pub fn for_each_candidate(
    model: &Model,
    test: &Litmus,
    opts: &Options,
    f: &mut dyn FnMut(&Candidate),
) -> Result<()> {
    match enumerate(model, test, opts, f)? {
        Some(refusal) => Err(refusal.error),
        None => Ok(()),
    }
}

/// Why the runner did not enumerate a test.
pub struct Refusal {
    /// The refusal `run` gives.
    pub error: Error,
    /// Only the time estimate stood in the way: the candidates are within `max_candidates`.
    pub timed: bool,
}

/// As `for_each_candidate`, but a test over the limits is no error: `Ok(Some(refusal))`, with
/// the error `for_each_candidate` gives, and no candidate judged. The candidates are counted
/// once, up to `max_candidates`, and the count is held to the time estimate's cap too.
pub(crate) fn enumerate(
    model: &Model,
    test: &Litmus,
    opts: &Options,
    f: &mut dyn FnMut(&Candidate),
) -> Result<Option<Refusal>> {
    with_combinations(model, test, opts, &mut |combos, prepared| {
        let cap = TimeCap::of(model, opts, prepared);
        let affordable = cap.as_ref().map_or(u128::MAX, |c| c.candidates);
        let limit = u128::from(opts.max_candidates).min(affordable);
        if prepared.code.candidates > limit {
            let refusal = match (count_up_to(combos, model.coherence)?, &cap) {
                (None, _) => Some((over_limit(test, &prepared.code, true, opts), false)),
                (Some(n), Some(cap)) if n > cap.candidates => Some((cap.refusal(test, n), true)),
                (Some(_), _) => None,
            };
            if let Some((error, timed)) = refusal {
                return Ok(Some(Refusal { error, timed }));
            }
        }
        let mut candidates = 0usize;
        let mut counted = |candidate: &Candidate| {
            candidates += 1;
            f(candidate)
        };
        combos.extend(&[], &[0; 8], &[0; 8], &mut || Ok(()), &mut |combo| {
            for_each_barrier_choice(test, combo, &mut |blocked, syncbar| {
                let shape = Shape::build(test, combos.threads.mem, combo, blocked, syncbar)?;
                shape.for_each_rf_co(model, combos.threads.mem, opts, &mut counted);
                match opts.out_of_time() {
                    true => Err(stopped(test)),
                    false => Ok(()),
                }
            })
        })?;
        if candidates == 0 {
            none_missed(combos.threads)?;
        }
        Ok(None)
    })
}

/// The error of a run stopped at its `Options::deadline` (`run --timeout`) before every
/// candidate was judged: no verdict.
pub(crate) fn stopped(test: &Litmus) -> Error {
    Error::file(
        &test.name,
        "stopped (its time ran out) before every candidate execution was judged: no verdict",
    )
}

/// An internal error when `threads` has a sequentially consistent run: its traces are a
/// candidate the enumeration should have found (`sequential`).
fn none_missed(threads: &Threads) -> Result<()> {
    match sequential::sequential_run(threads)? {
        Run::Found(schedule) => {
            let order: Vec<String> = (schedule.iter())
                .map(|&t| threads.test.threads[t].name.clone())
                .collect();
            let why = format!(
                "the runner found no candidate execution, yet the threads run to their ends \
                 interleaved sequentially (steps by {})",
                order.join(" ")
            );
            Err(Error::internal(&threads.test.name, Internal(why)))
        }
        Run::None | Run::Unknown => Ok(()),
    }
}

/// Call `f` on every trace family combination of `test` (`families`): its events with `rf` and
/// `co` open, for a decision that leaves those to a solver. Refuses a test whose traces are more
/// than the limit, or a thread with more traces than it holds in memory.
pub fn for_each_family(
    model: &Model,
    test: &Litmus,
    opts: &Options,
    f: &mut dyn FnMut(Family) -> Result<()>,
) -> Result<()> {
    with_combinations(model, test, opts, &mut |combos, _| {
        families::for_each_family(test, combos, f)
    })
}

/// Prepare `test` and call `k` with its trace combinations.
fn with_combinations<T>(
    model: &Model,
    test: &Litmus,
    opts: &Options,
    k: &mut dyn FnMut(&Combinations, &Prepared) -> Result<T>,
) -> Result<T> {
    let mem = Memory::of(test)?;
    let threads = Threads {
        test,
        mem: &mem,
        opts,
        barrier_fences: model.splits_barriers(),
    };
    let prepared = prepare(&threads, model.coherence)?;
    let values = ValueIndex::of(&prepared.summaries, &mem);
    let combos = Combinations::new(&threads, &prepared, &values)?;
    k(&combos, &prepared)
}
