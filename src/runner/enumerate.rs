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
use std::collections::{BTreeMap, BTreeSet};

use super::bound;
use super::orders::{for_each_generation, for_each_order, order_count, Pairs};
use super::traces::{for_each_trace, Domain, ThreadContext, Trace, TraceEvent};
use super::Options;
use crate::diag::{Error, Result};
use crate::eval::{evaluate, Base, Outcome as Judgement};
use crate::exec::{Event, EventKind, Execution};
use crate::ir::{CoKind, Model};
use crate::litmus::{Expr, Instr, Litmus, RmwOp, Target};
use crate::rel::{Rel, MAX_EVENTS};
use crate::vocab::Tag;

/// One candidate execution with the model's judgement.
pub struct Candidate<'a> {
    pub execution: &'a Execution,
    /// The model's verdict on this candidate.
    pub judgement: Judgement,
    /// Final states (several when partial `co` leaves more than one co-maximal write).
    pub finals: Vec<Finals>,
}

impl Candidate<'_> {
    pub fn is_consistent(&self) -> bool {
        self.judgement.consistent
    }
}

/// Final registers (per thread; `None` when the thread blocked before setting it) and memory.
#[derive(Clone, Debug)]
pub struct Finals {
    regs: Vec<BTreeMap<String, Option<i64>>>,
    mem: BTreeMap<String, i64>,
}

impl Finals {
    pub fn value_of(&self, t: &Target) -> Option<i64> {
        match t {
            Target::Reg { thread, reg } => self
                .regs
                .get(*thread)
                .and_then(|r| r.get(reg).copied().unwrap_or(Some(0))),
            Target::Mem(l) => self.mem.get(l).copied(),
        }
    }
}

/// The test's locations and their initial values and tags.
struct Memory {
    names: Vec<String>,
    init: Vec<i64>,
    tags: Vec<Vec<Tag>>,
}

impl Memory {
    fn of(test: &Litmus) -> Result<Memory> {
        let mut names: Vec<String> = vec![];
        let mut add = |l: &str| {
            if !names.iter().any(|n| n == l) {
                names.push(l.to_string())
            }
        };
        test.init_mem.iter().for_each(|(l, _)| add(l));
        for t in &test.threads {
            for i in &t.code {
                if let Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } =
                    i
                {
                    add(loc)
                }
            }
        }
        for t in test.condition.prop.targets() {
            if let Target::Mem(l) = t {
                add(l)
            }
        }
        let init = names
            .iter()
            .map(|n| {
                test.init_mem
                    .iter()
                    .rev()
                    .find(|(l, _)| l == n)
                    .map_or(0, |(_, v)| *v)
            })
            .collect();
        let tags = names.iter().map(|n| loc_tags(test, n)).collect();
        Ok(Memory { names, init, tags })
    }
    fn index(&self, l: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == l)
            .expect("every accessed location was collected")
    }
}

fn loc_tags(test: &Litmus, loc: &str) -> Vec<Tag> {
    test.loc_tags
        .iter()
        .filter(|(l, _)| l == loc)
        .flat_map(|(_, t)| t.iter().copied())
        .collect()
}

/// What the trace generator needs, for every thread of the test.
struct Threads<'a> {
    test: &'a Litmus,
    mem: &'a Memory,
    opts: &'a Options,
}

impl Threads<'_> {
    /// Call `f` on every trace of thread `t` under `domain`, one at a time.
    fn for_each_trace(
        &self,
        t: usize,
        domain: &Domain,
        f: &mut dyn FnMut(Trace) -> Result<()>,
    ) -> Result<()> {
        let index = |l: &str| self.mem.index(l);
        let tags = |l: usize| self.mem.tags[l].clone();
        let init_regs = self
            .test
            .init_regs
            .iter()
            .filter(|(i, _, _)| *i == t)
            .map(|(_, r, v)| (r.clone(), *v))
            .collect();
        let ctx = ThreadContext {
            thread: &self.test.threads[t],
            loc_index: &index,
            loc_tags: &tags,
            init_regs,
            unroll: self.opts.unroll,
            domain,
        };
        for_each_trace(&ctx, f)
    }

    /// One pass over each thread's traces under `domain`.
    fn summaries(&self, domain: &Domain) -> Result<Vec<Summary>> {
        (0..self.test.threads.len())
            .map(|t| {
                let mut summary = Summary::default();
                self.for_each_trace(t, domain, &mut |trace| {
                    summary.add(&trace);
                    Ok(())
                })?;
                Ok(summary)
            })
            .collect()
    }
}

/// What the traces of one thread add up to, gathered in one pass over them.
#[derive(Default)]
struct Summary {
    /// The `(location, value)` pairs some trace reads, and those some trace writes.
    reads: BTreeSet<(usize, i64)>,
    writes: BTreeSet<(usize, i64)>,
    /// The most writes one trace performs, and the number of traces.
    trace_writes: usize,
    traces: usize,
}

impl Summary {
    fn add(&mut self, trace: &Trace) {
        let mut writes = 0;
        for e in &trace.events {
            match (e.kind, e.loc) {
                (EventKind::Read, Some(l)) => {
                    self.reads.insert((l, e.value));
                }
                (EventKind::Write, Some(l)) => {
                    self.writes.insert((l, e.value));
                    writes += 1;
                }
                _ => {}
            }
        }
        self.trace_writes = self.trace_writes.max(writes);
        self.traces += 1;
    }
}

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

/// The value domain, the thread summaries under it and the bound from the code.
struct Prepared {
    domain: Domain,
    summaries: Vec<Summary>,
    code: bound::CodeBound,
}

/// The value domain; an error when the bound from the code exceeds the limit and so do the traces.
///
/// The domain holds initial values and stored constants, then values propagated through thread
/// traces. A value needing a chain of k writes (each reading the previous one's value) appears
/// after k rounds, and no execution has more writes than the sum over threads of the most one
/// trace performs (traces only grow with the domain), so that many rounds over-approximate every
/// realisable value. Reads of values no write of the execution produces are discarded later by
/// `rf`, so over-approximation costs time, never precision. The bounds grow with the domain too,
/// so they are checked before each round goes through the traces.
fn prepare(threads: &Threads, coherence: CoKind) -> Result<Prepared> {
    let (test, mem, opts) = (threads.test, threads.mem, threads.opts);
    let mut domain: Domain = mem.init.iter().map(|&v| BTreeSet::from([v])).collect();
    for (loc, v) in stored_constants(test) {
        domain[mem.index(&loc)].insert(v);
    }
    // Seeding every location with the condition's constants lets the enumeration find values that
    // only a cycle of copies (`r = x; y = r` ‖ `r = y; x = r`) can justify: models without a
    // no-thin-air axiom allow them for any value, as symbolic tools (Dat3M) find.
    for v in test.condition.prop.constants() {
        domain.iter_mut().for_each(|d| {
            d.insert(v);
        });
    }
    let limit = u128::from(opts.max_candidates);
    let mut round = 0;
    loop {
        let index = |l: &str| mem.index(l);
        let code = bound::from_code(test, &index, &domain, coherence, opts.unroll)?;
        if code.candidates > limit && code.traces > limit {
            return Err(over_limit(test, &code, false, opts));
        }
        let summaries = threads.summaries(&domain)?;
        round += 1;
        let mut next = domain.clone();
        for &(l, v) in summaries.iter().flat_map(|s| &s.writes) {
            next[l].insert(v);
        }
        let writes: usize = summaries.iter().map(|s| s.trace_writes).sum();
        if next == domain || round > writes {
            return Ok(Prepared {
                domain,
                summaries,
                code,
            });
        }
        domain = next;
    }
}

/// The candidates of a prepared test, counted without judging them; an error as soon as the
/// count exceeds the limit.
fn count(combos: &Combinations, prepared: &Prepared, coherence: CoKind) -> Result<u128> {
    let threads = combos.threads;
    let limit = u128::from(threads.opts.max_candidates);
    let mut counted = 0u128;
    combos.extend(&[], &[0; 8], &[0; 8], &mut |combo| {
        for_each_barrier_choice(threads.test, combo, &mut |blocked, _| {
            counted = counted.saturating_add(rf_co_count(combo, blocked, threads.mem, coherence));
            if counted > limit {
                return Err(over_limit(threads.test, &prepared.code, true, threads.opts));
            }
            Ok(())
        })
    })?;
    Ok(counted)
}

/// How many `rf` and `co` choices the shape of `combo` with threads `blocked` has: what
/// `Shape::for_each_rf_co` goes through.
fn rf_co_count(combo: &[&Trace], blocked: &[Option<usize>], mem: &Memory, kind: CoKind) -> u128 {
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
fn executed(trace: &Trace, blocked: Option<usize>) -> &[TraceEvent] {
    &trace.events[..blocked.map_or(trace.events.len(), |b| b + 1)]
}

/// The refusal of a test over the limit, with the bound from the code and whether the candidates
/// were `counted` past the limit.
fn over_limit(test: &Litmus, code: &bound::CodeBound, counted: bool, opts: &Options) -> Error {
    let estimate = bound::render(code.candidates);
    let limit = opts.max_candidates;
    let message = if counted {
        format!(
            "more than {limit} candidate executions (counted before judging any; the runner's \
             upper bound from the code is {estimate}); raise the limit with --max-candidates N"
        )
    } else {
        format!(
            "the runner's estimate of the candidate executions (an upper bound) is {estimate}, \
             more than the limit of {limit}; raise it with --max-candidates N"
        )
    };
    Error::file(&test.name, message)
}

/// Constants stored to a location anywhere in the test (they seed self-justifying reads, which
/// models without a no-thin-air axiom may allow).
fn stored_constants(test: &Litmus) -> Vec<(String, i64)> {
    let code = test.threads.iter().flat_map(|t| &t.code);
    code.filter_map(|i| match i {
        Instr::Store {
            loc,
            value: Expr::Const(v),
            ..
        } => Some((loc.clone(), *v)),
        Instr::Rmw {
            loc,
            op:
                RmwOp::Exch(Expr::Const(v))
                | RmwOp::Cas {
                    desired: Expr::Const(v),
                    ..
                },
            ..
        } => Some((loc.clone(), *v)),
        _ => None,
    })
    .collect()
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
    with_combinations(model, test, opts, &mut |combos, prepared| {
        if prepared.code.candidates > u128::from(opts.max_candidates) {
            count(combos, prepared, model.coherence)?;
        }
        combos.extend(&[], &[0; 8], &[0; 8], &mut |combo| {
            for_each_barrier_choice(test, combo, &mut |blocked, syncbar| {
                let shape = Shape::build(test, combos.threads.mem, combo, blocked, syncbar)?;
                shape.for_each_rf_co(model, combos.threads.mem, f);
                Ok(())
            })
        })
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
    };
    let prepared = prepare(&threads, model.coherence)?;
    let values = ValueIndex::of(&prepared.summaries, &mem);
    let combos = Combinations::new(&threads, &prepared, &values)?;
    k(&combos, &prepared)
}

/// `(location, value)` pairs as bits, to check quickly that every read value has a writer.
struct ValueIndex {
    pairs: BTreeMap<(usize, i64), usize>,
    /// Pairs written initially, or by some trace of thread `t` or of a later thread.
    available_from: Vec<Bits>,
}

/// A set of `(location, value)` pair indices. Pairs beyond its capacity are never recorded as
/// read, so tests with that many pairs are merely pruned less.
type Bits = [u64; 8];

fn bits_set(b: &mut Bits, i: usize) {
    if i < 64 * b.len() {
        b[i / 64] |= 1 << (i % 64);
    }
}

fn bits_subset(a: &Bits, b: &Bits) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

fn bits_union(a: &Bits, b: &Bits) -> Bits {
    std::array::from_fn(|i| a[i] | b[i])
}

impl ValueIndex {
    fn of(summaries: &[Summary], mem: &Memory) -> ValueIndex {
        let mut pairs = BTreeMap::new();
        let traced = summaries
            .iter()
            .flat_map(|s| s.reads.iter().chain(&s.writes));
        let all = traced.copied().chain(mem.init.iter().copied().enumerate());
        for p in all {
            let next = pairs.len();
            pairs.entry(p).or_insert(next);
        }
        let bits = |set: &mut dyn Iterator<Item = &(usize, i64)>| {
            let mut b = [0; 8];
            set.for_each(|p| bits_set(&mut b, pairs[p]));
            b
        };
        let init: Vec<(usize, i64)> = mem.init.iter().copied().enumerate().collect();
        let mut available_from = vec![bits(&mut init.iter())];
        for s in summaries.iter().rev() {
            let later = *available_from.last().expect("starts with init");
            available_from.push(bits_union(&later, &bits(&mut s.writes.iter())));
        }
        available_from.reverse();
        ValueIndex {
            pairs,
            available_from,
        }
    }

    fn valued(&self, trace: Trace) -> Valued {
        let bits_of = |kind: EventKind| {
            let mut b = [0; 8];
            for e in trace.events.iter().filter(|e| e.kind == kind) {
                bits_set(&mut b, self.pairs[&(e.loc.expect("memory event"), e.value)]);
            }
            b
        };
        let (reads, writes) = (bits_of(EventKind::Read), bits_of(EventKind::Write));
        Valued {
            trace,
            reads,
            writes,
        }
    }
}

/// A thread with at most this many traces has them held in memory; a thread with more has them
/// generated afresh for every choice of traces of the threads before it, so that memory stays
/// bounded (a held trace takes a few kilobytes).
const HELD_TRACES: usize = 10_000;

/// The trace combinations of a test: one trace per thread.
struct Combinations<'a> {
    threads: &'a Threads<'a>,
    domain: &'a Domain,
    values: &'a ValueIndex,
    /// Per thread, its traces when it has at most `HELD_TRACES`.
    held: Vec<Option<Vec<Valued>>>,
}

/// A trace with the `(location, value)` pairs it reads and writes.
struct Valued {
    trace: Trace,
    reads: Bits,
    writes: Bits,
}

impl<'a> Combinations<'a> {
    fn new(
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

    fn for_each_trace(&self, t: usize, f: &mut dyn FnMut(&Valued) -> Result<()>) -> Result<()> {
        match &self.held[t] {
            Some(traces) => traces.iter().try_for_each(f),
            None => self
                .threads
                .for_each_trace(t, self.domain, &mut |trace| f(&self.values.valued(trace))),
        }
    }

    /// Every extension of `combo` in which each read value is written by some chosen trace or
    /// initially (pruned as soon as a read cannot be matched by the threads still to choose).
    fn extend(
        &self,
        combo: &[&Trace],
        reads: &Bits,
        written: &Bits,
        k: &mut dyn FnMut(&[&Trace]) -> Result<()>,
    ) -> Result<()> {
        let t = combo.len();
        if t == self.threads.test.threads.len() {
            return k(combo);
        }
        self.for_each_trace(t, &mut |valued| {
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
            self.extend(&longer, &reads, &written, k)
        })
    }
}

/// A barrier arrival: thread and event index in its trace.
type Arrival = (usize, usize);

/// For each way barrier arrivals form generations: the barrier event each thread blocks at (if any)
/// and the pairs of arrivals that synchronise.
fn for_each_barrier_choice(
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
type Instance = (Vec<Arrival>, usize);

/// Per arrival at one instance, its generation (`None`: left over; its thread blocks).
type Generation = Vec<Option<usize>>;

/// Pairs of arrivals that synchronise.
type SyncPairs = Vec<(Arrival, Arrival)>;

/// Every choice of generations for the instances after those already `chosen`, one at a time.
fn choose_generations(
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
fn synchronisation(
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

/// Barrier instances (id, cta, gpu) with their arrivals and the thread count they wait for.
/// Without a count, a barrier waits for every thread of the test that arrives at it (the reading
/// under which the reference verdicts of `PTX/Manual/barrier-*-id-*` hold; see docs/decisions).
fn barrier_instances(
    test: &Litmus,
    combo: &[&Trace],
) -> BTreeMap<(i64, i64, i64), (Vec<Arrival>, usize)> {
    let mut inst: BTreeMap<(i64, i64, i64), (Vec<Arrival>, Option<usize>)> = BTreeMap::new();
    for (t, trace) in combo.iter().enumerate() {
        let p = test.threads[t].placement;
        for (e, ev) in trace.events.iter().enumerate() {
            if let Some((id, count)) = ev.barrier {
                let entry = inst.entry((id, p.cta, p.gpu)).or_default();
                entry.0.push((t, e));
                entry.1 = count.map(|c| c.max(1) as usize).or(entry.1);
            }
        }
    }
    inst.into_iter()
        .map(|(k, (arrivals, count))| {
            let count = count.unwrap_or(arrivals.len());
            (k, (arrivals, count))
        })
        .collect()
}

/// The fixed part of a candidate: events, `po`, dependencies, `rmw`, `syncbar`; `rf`/`co` vary.
struct Shape {
    exec: Execution,
    /// Registers per thread (`None` values: unset because the thread blocked).
    regs: Vec<BTreeMap<String, Option<i64>>>,
}

impl Shape {
    fn build(
        test: &Litmus,
        mem: &Memory,
        combo: &[&Trace],
        blocked: &[Option<usize>],
        syncbar: &[(Arrival, Arrival)],
    ) -> Result<Shape> {
        let mut events: Vec<Event> = (0..mem.names.len())
            .map(|l| Event {
                thread: None,
                kind: EventKind::Write,
                loc: Some(l),
                value: mem.init[l],
                tags: mem.tags[l].clone(),
                barrier: None,
            })
            .collect();
        let mut global: BTreeMap<Arrival, usize> = BTreeMap::new();
        for (t, trace) in combo.iter().enumerate() {
            for (i, e) in executed(trace, blocked[t]).iter().enumerate() {
                global.insert((t, i), events.len());
                events.push(Event {
                    thread: Some(t),
                    kind: e.kind,
                    loc: e.loc,
                    value: e.value,
                    tags: e.tags.clone(),
                    barrier: e.barrier.map(|(id, _)| id),
                });
            }
        }
        if events.len() > MAX_EVENTS {
            return Err(Error::file(
                &test.name,
                format!("more than {MAX_EVENTS} events in one execution"),
            ));
        }
        let n = events.len();
        let mut rels = [
            Rel::empty(n),
            Rel::empty(n),
            Rel::empty(n),
            Rel::empty(n),
            Rel::empty(n),
        ];
        let [po, rmw, data, ctrl, sync] = &mut rels;
        for (&(t, i), &g) in &global {
            let e = &combo[t].events[i];
            for (_, &h) in global.range((t, i + 1)..(t + 1, 0)) {
                po.insert(g, h);
            }
            e.data.iter().for_each(|d| data.insert(global[&(t, *d)], g));
            e.ctrl.iter().for_each(|d| ctrl.insert(global[&(t, *d)], g));
            if let Some(r) = e.rmw_read {
                rmw.insert(global[&(t, r)], g);
            }
        }
        for (a, b) in syncbar {
            sync.insert(global[a], global[b]);
        }
        let [po, rmw, data, ctrl, syncbar] = rels;
        let regs = combo
            .iter()
            .enumerate()
            .map(|(t, trace)| match blocked[t] {
                None => trace
                    .regs
                    .iter()
                    .map(|(r, v)| (r.clone(), Some(*v)))
                    .collect(),
                Some(b) => blocked_regs(test, t, &trace.regs_at_barrier[&b]),
            })
            .collect();
        let exec = Execution {
            events,
            locations: mem.names.clone(),
            placements: test.threads.iter().map(|t| t.placement).collect(),
            po,
            rf: Rel::empty(n),
            co: Rel::empty(n),
            rmw,
            addr: Rel::empty(n),
            data,
            ctrl,
            syncbar,
        };
        Ok(Shape { exec, regs })
    }

    /// Every `rf` and `co` for this shape, judged by the model.
    fn for_each_rf_co(self, model: &Model, mem: &Memory, f: &mut dyn FnMut(&Candidate)) {
        let Shape { mut exec, regs } = self;
        let sources = rf_sources(&exec);
        if sources.iter().any(|(_, s)| s.is_empty()) {
            return;
        }
        let writes = writes_per_location(&exec, mem.names.len());
        let mut base: Base = exec.base();
        let mut pick = vec![0; sources.len()];
        loop {
            exec.rf = Rel::from_pairs(
                exec.n(),
                sources.iter().zip(&pick).map(|((r, ws), &p)| (ws[p], *r)),
            );
            base.rels.insert("rf", exec.rf.clone());
            for_each_co(&writes, model.coherence, &mut vec![], &mut |co| {
                exec.co = Rel::from_pairs(exec.n(), co.iter().copied());
                base.rels.insert("co", exec.co.clone());
                base.rels.insert("fr", exec.fr());
                let judgement = evaluate(model, &base);
                let finals = if judgement.consistent {
                    final_states(&exec, &regs, mem)
                } else {
                    vec![]
                };
                f(&Candidate {
                    execution: &exec,
                    judgement,
                    finals,
                });
            });
            if !advance_rf(&mut pick, &sources) {
                return;
            }
        }
    }
}

/// Registers of a thread blocked at a barrier: those set before it; the rest are unknown.
fn blocked_regs(
    test: &Litmus,
    t: usize,
    before: &BTreeMap<String, i64>,
) -> BTreeMap<String, Option<i64>> {
    let mut regs: BTreeMap<String, Option<i64>> = written_registers(&test.threads[t].code)
        .map(|r| (r, None))
        .collect();
    for (r, v) in before {
        regs.insert(r.clone(), Some(*v));
    }
    regs
}

fn written_registers(code: &[Instr]) -> impl Iterator<Item = String> + '_ {
    code.iter().filter_map(|i| match i {
        Instr::Load { dst, .. } | Instr::Assign { dst, .. } => Some(dst.clone()),
        Instr::Rmw { dst, .. } => dst.clone(),
        _ => None,
    })
}

/// For each read, the writes it may read from: same location, same value.
fn rf_sources(exec: &Execution) -> Vec<(usize, Vec<usize>)> {
    let ev = &exec.events;
    (0..ev.len())
        .filter(|&r| ev[r].kind == EventKind::Read)
        .map(|r| {
            let ws = (0..ev.len())
                .filter(|&w| {
                    ev[w].kind == EventKind::Write
                        && ev[w].loc == ev[r].loc
                        && ev[w].value == ev[r].value
                })
                .collect();
            (r, ws)
        })
        .collect()
}

fn advance_rf(pick: &mut [usize], sources: &[(usize, Vec<usize>)]) -> bool {
    for (p, (_, ws)) in pick.iter_mut().zip(sources) {
        *p += 1;
        if *p < ws.len() {
            return true;
        }
        *p = 0;
    }
    false
}

/// Per location, its initial write (event `l`: initial writes come first, in location order) and
/// its other writes.
fn writes_per_location(exec: &Execution, locations: usize) -> Vec<(usize, Vec<usize>)> {
    (0..locations)
        .map(|l| {
            let ws = (locations..exec.n())
                .filter(|&w| {
                    exec.events[w].kind == EventKind::Write && exec.events[w].loc == Some(l)
                })
                .collect();
            (l, ws)
        })
        .collect()
}

/// Every `co`, one at a time, as event pairs: per location after those whose pairs are already in
/// `pairs`, the initial write first, then each order of `kind` over the other writes.
fn for_each_co(
    writes: &[(usize, Vec<usize>)],
    kind: CoKind,
    pairs: &mut Vec<(usize, usize)>,
    k: &mut dyn FnMut(&Pairs),
) {
    let Some(((init, ws), rest)) = writes.split_first() else {
        return k(pairs);
    };
    let before = pairs.len();
    pairs.extend(ws.iter().map(|&w| (*init, w)));
    for_each_order(kind, ws.len(), &mut |order| {
        let first = pairs.len();
        pairs.extend(order.iter().map(|&(a, b)| (ws[a], ws[b])));
        for_each_co(rest, kind, pairs, k);
        pairs.truncate(first);
    });
    pairs.truncate(before);
}

/// Final states: registers, and for each location the value of a co-maximal write.
fn final_states(
    exec: &Execution,
    regs: &[BTreeMap<String, Option<i64>>],
    mem: &Memory,
) -> Vec<Finals> {
    let mut states = vec![BTreeMap::new()];
    for (l, name) in mem.names.iter().enumerate() {
        let maxima: BTreeSet<i64> = exec
            .events
            .iter()
            .enumerate()
            .filter(|(w, e)| {
                e.kind == EventKind::Write && e.loc == Some(l) && exec.co.row(*w).is_empty()
            })
            .map(|(_, e)| e.value)
            .collect();
        states = states
            .into_iter()
            .flat_map(|s| {
                maxima.iter().map(move |&v| {
                    let mut s = s.clone();
                    s.insert(name.clone(), v);
                    s
                })
            })
            .collect();
    }
    states
        .into_iter()
        .map(|mem| Finals {
            regs: regs.to_vec(),
            mem,
        })
        .collect()
}
