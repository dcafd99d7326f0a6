//! Counting without judging: the candidates of every trace combination counted (barrier
//! generations, `rf` and `co` choices multiplied out), and the refusal of a count past the limit
//! (`domain::over_limit` words the refusal of a test over it).
use std::collections::BTreeMap;

use super::combinations::{for_each_barrier_choice, Combinations};
use super::domain::{over_limit, Memory, Prepared};
use crate::diag::{Error, Result};
use crate::exec::EventKind;
use crate::ir::{CoKind, Model};
use crate::litmus::Litmus;
use crate::runner::bound;
use crate::runner::options::Options;
use crate::runner::orders::order_count;
use crate::runner::traces::{Trace, TraceEvent};

/// The candidates of a prepared test, counted without judging them; an error as soon as the
/// count exceeds the limit.
pub(super) fn count(combos: &Combinations, prepared: &Prepared, coherence: CoKind) -> Result<u128> {
    let threads = combos.threads;
    count_up_to(combos, coherence)?
        .ok_or_else(|| over_limit(threads.test, &prepared.code, true, threads.opts))
}

/// The candidates counted as `count` does; `None` as soon as the count exceeds the limit, or
/// the traces the count has gone through do (counting goes through every trace combination,
/// most of them pruned before any candidate is counted: bounded so, it never costs more than
/// judging the limit's worth of candidates would).
pub(super) fn count_up_to(combos: &Combinations, coherence: CoKind) -> Result<Option<u128>> {
    let threads = combos.threads;
    let limit = u128::from(threads.opts.max_candidates);
    let over = std::cell::Cell::new(false);
    let over_limit = || Error::file(&threads.test.name, "over the candidate limit");
    let (mut counted, mut visited) = (0u128, 0u128);
    let mut visit = || {
        visited += 1;
        over.set(visited > limit);
        match over.get() {
            true => Err(over_limit()),
            false => Ok(()),
        }
    };
    let result = combos.extend(&[], &[0; 8], &[0; 8], &mut visit, &mut |combo| {
        for_each_barrier_choice(threads.test, combo, &mut |blocked, _| {
            counted = counted.saturating_add(rf_co_count(combo, blocked, threads.mem, coherence));
            over.set(counted > limit);
            match over.get() {
                true => Err(over_limit()),
                false => Ok(()),
            }
        })
    });
    match result {
        Err(_) if over.get() => Ok(None),
        Err(e) => Err(e),
        Ok(()) => Ok(Some(counted)),
    }
}

/// The candidates `enumeration_seconds` of judging afford, by the runner's estimate of judging
/// one (`bound::judging_nanos`).
pub(super) struct TimeCap {
    pub(super) candidates: u128,
    seconds: u64,
    nanos: u128,
}

impl TimeCap {
    /// `None` where `opts` sets no time limit.
    pub(super) fn of(model: &Model, opts: &Options, prepared: &Prepared) -> Option<TimeCap> {
        let seconds = opts.enumeration_seconds?;
        let most_events = prepared.summaries.iter().map(|s| s.most_events);
        let events = prepared.domain.len() + most_events.sum::<usize>();
        let nanos = bound::judging_nanos(model, events).max(1);
        Some(TimeCap {
            candidates: u128::from(seconds) * 1_000_000_000 / nanos,
            seconds,
            nanos,
        })
    }

    /// The refusal of a test of `counted` candidates, more than this cap affords.
    pub(super) fn refusal(&self, test: &Litmus, counted: u128) -> Error {
        let message = format!(
            "{counted} candidate executions (counted before judging any), which at the runner's \
             estimate of {} µs each would take more than {} s to judge (--enumeration-seconds)",
            self.nanos.div_ceil(1000),
            self.seconds
        );
        Error::file(&test.name, message)
    }
}

/// How many `rf` and `co` choices the shape of `combo` with threads `blocked` has: what
/// `Shape::for_each_rf_co` goes through.
pub(super) fn rf_co_count(
    combo: &[&Trace],
    blocked: &[Option<usize>],
    mem: &Memory,
    kind: CoKind,
) -> u128 {
    let events = || {
        combo
            .iter()
            .zip(blocked)
            .flat_map(|(trace, b)| executed(trace, *b))
    };
    let mut writers: BTreeMap<(usize, i64), u128> = mem
        .init
        .iter()
        .enumerate()
        .map(|(l, &v)| ((l, v), 1))
        .collect();
    let mut per_loc = vec![0; mem.names.len()];
    for e in events().filter(|e| e.kind == EventKind::Write) {
        let l = e.loc.expect("writes have a location");
        *writers.entry((l, e.value)).or_default() += 1;
        per_loc[l] += 1;
    }
    let rf = events()
        .filter(|e| e.kind == EventKind::Read)
        .map(|e| writers.get(&(e.loc.expect("reads have a location"), e.value)))
        .fold(1u128, |p, w| p.saturating_mul(w.copied().unwrap_or(0)));
    let co = per_loc
        .iter()
        .fold(1u128, |p, &k| p.saturating_mul(order_count(kind, k)));
    rf.saturating_mul(co)
}

/// The events of `trace` a thread performs: all, or those up to the barrier it blocks at.
pub(super) fn executed(trace: &Trace, blocked: Option<usize>) -> &[TraceEvent] {
    &trace.events[..blocked.map_or(trace.events.len(), |b| b + 1)]
}
