//! Trace combinations and barrier choice: one trace per thread (held in memory or generated
//! afresh), and for each combination the ways barrier arrivals form generations.
use std::collections::{BTreeMap, BTreeSet};

use super::domain::{bits_subset, bits_union, Bits, Prepared, Threads, ValueIndex, Valued};
use crate::diag::Result;
use crate::litmus::Litmus;
use crate::runner::orders::for_each_generation;
use crate::runner::traces::{Domain, Trace};
use crate::vocab::{Level, Placement};

/// A thread with at most this many traces has them held in memory; a thread with more has them
/// generated afresh for every choice of traces of the threads before it, so that memory stays
/// bounded (a held trace takes a few kilobytes).
pub(super) const HELD_TRACES: usize = 10_000;

/// The trace combinations of a test: one trace per thread.
pub(super) struct Combinations<'a> {
    pub(super) threads: &'a Threads<'a>,
    pub(super) domain: &'a Domain,
    pub(super) values: &'a ValueIndex,
    /// Per thread, its traces when it has at most `HELD_TRACES`.
    pub(super) held: Vec<Option<Vec<Valued>>>,
}

impl<'a> Combinations<'a> {
    pub(super) fn new(
        threads: &'a Threads<'a>,
        prepared: &'a Prepared,
        values: &'a ValueIndex,
    ) -> Result<Self> {
        let held = (0..threads.test.threads.len())
            .map(|t| {
                if prepared.summaries[t].traces > HELD_TRACES {
                    return Ok(None);
                }
                let mut traces = vec![];
                threads.for_each_trace(t, &prepared.domain, &mut |trace| {
                    traces.push(values.valued(trace));
                    Ok(())
                })?;
                Ok(Some(traces))
            })
            .collect::<Result<_>>()?;
        Ok(Combinations {
            threads,
            domain: &prepared.domain,
            values,
            held,
        })
    }

    pub(super) fn for_each_trace(
        &self,
        t: usize,
        f: &mut dyn FnMut(&Valued) -> Result<()>,
    ) -> Result<()> {
        match &self.held[t] {
            Some(traces) => traces.iter().try_for_each(f),
            None => self
                .threads
                .for_each_trace(t, self.domain, &mut |trace| f(&self.values.valued(trace))),
        }
    }

    /// Every extension of `combo` in which each read value is written by some chosen trace or
    /// initially (pruned as soon as a read cannot be matched by the threads still to choose).
    /// `visit` is called on every trace considered for a thread, kept or pruned (an error from
    /// it ends the walk: a bound on the work).
    pub(super) fn extend(
        &self,
        combo: &[&Trace],
        reads: &Bits,
        written: &Bits,
        visit: &mut dyn FnMut() -> Result<()>,
        k: &mut dyn FnMut(&[&Trace]) -> Result<()>,
    ) -> Result<()> {
        let t = combo.len();
        if t == self.threads.test.threads.len() {
            return k(combo);
        }
        self.for_each_trace(t, &mut |valued| {
            visit()?;
            let reads = bits_union(reads, &valued.reads);
            let written = bits_union(written, &valued.writes);
            if !bits_subset(
                &reads,
                &bits_union(&written, &self.values.available_from[t + 1]),
            ) {
                return Ok(());
            }
            let mut longer = combo.to_vec();
            longer.push(&valued.trace);
            self.extend(&longer, &reads, &written, visit, k)
        })
    }
}

/// A barrier arrival: thread and event index in its trace.
pub(super) type Arrival = (usize, usize);

/// For each way barrier arrivals form generations: the barrier event each thread blocks at (if any)
/// and the pairs of arrivals that synchronise.
pub(super) fn for_each_barrier_choice(
    test: &Litmus,
    combo: &[&Trace],
    k: &mut dyn FnMut(&[Option<usize>], &[(Arrival, Arrival)]) -> Result<()>,
) -> Result<()> {
    let instances: Vec<Instance> = barrier_instances(test, combo).into_values().collect();
    choose_generations(&instances, &mut vec![], &mut |gens| match synchronisation(
        combo.len(),
        &instances,
        gens,
    ) {
        Some((blocked, sync)) => k(&blocked, &sync),
        None => Ok(()),
    })
}

/// A barrier instance's arrivals and the thread count it waits for.
pub(super) type Instance = (Vec<Arrival>, usize);

/// Per arrival at one instance, its generation (`None`: left over; its thread blocks).
pub(super) type Generation = Vec<Option<usize>>;

/// Pairs of arrivals that synchronise.
pub(super) type SyncPairs = Vec<(Arrival, Arrival)>;

/// Every choice of generations for the instances after those already `chosen`, one at a time.
pub(super) fn choose_generations(
    instances: &[Instance],
    chosen: &mut Vec<Generation>,
    k: &mut dyn FnMut(&[Generation]) -> Result<()>,
) -> Result<()> {
    let Some((arrivals, count)) = instances.get(chosen.len()) else {
        return k(chosen);
    };
    let mut result = Ok(());
    for_each_generation(arrivals.len(), *count, &mut |gen| {
        if result.is_ok() {
            chosen.push(gen.to_vec());
            result = choose_generations(instances, chosen, k);
            chosen.pop();
        }
    });
    result
}

/// For one choice of generations: the barrier event each thread blocks at (if any) and the pairs
/// of arrivals that synchronise; `None` when a generation holds two arrivals of one thread.
pub(super) fn synchronisation(
    threads: usize,
    instances: &[Instance],
    gens: &[Generation],
) -> Option<(Vec<Option<usize>>, SyncPairs)> {
    let mut blocked: Vec<Option<usize>> = vec![None; threads];
    let mut sync = vec![];
    for ((arrivals, _), gen) in instances.iter().zip(gens) {
        for (i, &(t, e)) in arrivals.iter().enumerate() {
            match gen[i] {
                None => blocked[t] = Some(blocked[t].map_or(e, |b: usize| b.min(e))),
                Some(g) => {
                    for (j, &other) in arrivals.iter().enumerate() {
                        if gen[j] == Some(g) && j != i {
                            if other.0 == t {
                                return None;
                            }
                            sync.push(((t, e), other));
                        }
                    }
                }
            }
        }
    }
    // A synchronisation after the point where a thread blocked never happens.
    sync.retain(|((t, e), (u, f))| {
        blocked[*t].is_none_or(|b| e <= &b) && blocked[*u].is_none_or(|b| f <= &b)
    });
    Some((blocked, sync))
}

/// Barrier instances (id, the CTA as `Placement::instance` names it) with their arrivals and
/// the thread count they wait for. Without a count, a barrier waits for every thread of the test
/// that arrives at it (the reading under which the reference verdicts of
/// `PTX/Manual/barrier-*-id-*` hold; see docs/decisions): the threads, not the arrivals — a
/// thread that passes the barrier twice arrives in two generations.
pub(super) fn barrier_instances(
    test: &Litmus,
    combo: &[&Trace],
) -> BTreeMap<(i64, Placement), (Vec<Arrival>, usize)> {
    let mut inst: BTreeMap<(i64, Placement), (Vec<Arrival>, Option<usize>)> = BTreeMap::new();
    for (t, trace) in combo.iter().enumerate() {
        let p = test.threads[t].placement;
        for (e, ev) in trace.events.iter().enumerate() {
            if let Some(b) = ev.barrier.filter(|b| b.part.arrives()) {
                let entry = inst.entry((b.id, p.instance(Level::Cta))).or_default();
                entry.0.push((t, e));
                entry.1 = b.count.map(|c| c.max(1) as usize).or(entry.1);
            }
        }
    }
    inst.into_iter()
        .map(|(k, (arrivals, count))| {
            let threads: BTreeSet<usize> = arrivals.iter().map(|&(t, _)| t).collect();
            let count = count.unwrap_or(threads.len());
            (k, (arrivals, count))
        })
        .collect()
}
