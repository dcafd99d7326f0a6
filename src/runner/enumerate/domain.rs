//! The value domain: the test's locations (`Memory`), the threads' traces and what they add up
//! to (`Summary`), the domain propagated to a fixpoint with the bound checked before each round
//! (`prepare`), the constants that seed it, the index of `(location, value)` pairs that
//! prunes traces reading a value no thread writes (`Valued`: a trace with its pairs), and the
//! refusal of a test over the candidate limit (`over_limit`). The lowest file of `enumerate`:
//! it imports none of its siblings.
use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Error, Result};
use crate::exec::EventKind;
use crate::ir::CoKind;
use crate::litmus::{Expr, Instr, Litmus, RmwOp, Target};
use crate::runner::bound;
use crate::runner::options::Options;
use crate::runner::traces::{
    for_each_path, for_each_trace, Domain, ThreadContext, Trace, TraceEvent,
};
use crate::vocab::Tag;

/// The test's locations and their initial values and tags, and its virtual addresses.
pub(super) struct Memory {
    pub(super) names: Vec<String>,
    pub(super) init: Vec<i64>,
    pub(super) tags: Vec<Vec<Tag>>,
    /// Every virtual address: each location's own (same index as in `names`), then the
    /// generic aliases'.
    addresses: Vec<String>,
}

impl Memory {
    pub(super) fn of(test: &Litmus) -> Result<Memory> {
        let mut named: Vec<&str> = test.init_mem.iter().map(|(l, _)| l.as_str()).collect();
        for t in &test.threads {
            for i in &t.code {
                if let Instr::Load { loc, .. } | Instr::Store { loc, .. } | Instr::Rmw { loc, .. } =
                    i
                {
                    named.push(loc)
                }
            }
        }
        for t in test.condition.prop.targets() {
            if let Target::Mem(l) = t {
                named.push(l)
            }
        }
        let names = distinct(named.iter().map(|l| test.location_of(l)));
        let addresses = distinct(
            names
                .iter()
                .map(String::as_str)
                .chain(named.iter().map(|l| test.address_of(l))),
        );
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
        Ok(Memory {
            names,
            init,
            tags,
            addresses,
        })
    }

    /// The index of the location `l` reaches (through its aliases).
    pub(super) fn index(&self, test: &Litmus, l: &str) -> usize {
        position(&self.names, test.location_of(l))
    }

    /// The index of the virtual address `l` denotes.
    pub(super) fn address(&self, test: &Litmus, l: &str) -> usize {
        position(&self.addresses, test.address_of(l))
    }
}

/// The names in order of first occurrence, without repetition.
fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for n in names {
        if !out.iter().any(|o| o == n) {
            out.push(n.to_string())
        }
    }
    out
}

fn position(names: &[String], l: &str) -> usize {
    names
        .iter()
        .position(|n| n == l)
        .expect("every accessed location was collected")
}

pub(super) fn loc_tags(test: &Litmus, loc: &str) -> Vec<Tag> {
    test.loc_tags
        .iter()
        .filter(|(l, _)| l == loc)
        .flat_map(|(_, t)| t.iter().copied())
        .collect()
}

/// What the trace generator needs, for every thread of the test.
pub(super) struct Threads<'a> {
    pub(super) test: &'a Litmus,
    pub(super) mem: &'a Memory,
    pub(super) opts: &'a Options,
    /// Two events per barrier (`Model::splits_barriers`).
    pub(super) barrier_fences: bool,
}

impl Threads<'_> {
    /// Call `f` on every trace of thread `t` under `domain`, one at a time.
    pub(super) fn for_each_trace(
        &self,
        t: usize,
        domain: &Domain,
        f: &mut dyn FnMut(Trace) -> Result<()>,
    ) -> Result<()> {
        self.with_context(t, domain, |ctx| for_each_trace(ctx, f))
    }

    /// `f` given what the trace generator needs for thread `t` under `domain`.
    pub(super) fn with_context<T>(
        &self,
        t: usize,
        domain: &Domain,
        f: impl FnOnce(&ThreadContext) -> T,
    ) -> T {
        let index = |l: &str| self.mem.index(self.test, l);
        let address = |l: &str| self.mem.address(self.test, l);
        let tags = |l: usize| self.mem.tags[l].clone();
        let init_regs = self
            .test
            .init_regs
            .iter()
            .filter(|(i, _, _)| *i == t)
            .map(|(_, r, v)| (r.clone(), *v))
            .collect();
        f(&ThreadContext {
            thread: &self.test.threads[t],
            loc_index: &index,
            address_index: &address,
            loc_tags: &tags,
            init_regs,
            unroll: self.opts.unroll,
            domain,
            barrier_fences: self.barrier_fences,
        })
    }

    /// One pass over each thread's paths under `domain`: its traces, and the paths the unroll
    /// bound cuts.
    pub(super) fn summaries(&self, domain: &Domain) -> Result<Vec<Summary>> {
        (0..self.test.threads.len())
            .map(|t| {
                let (mut summary, mut cut) = (Summary::default(), Reached::default());
                self.with_context(t, domain, |ctx| {
                    let mut trace = |trace: Trace| {
                        summary.add(&trace);
                        Ok(())
                    };
                    for_each_path(ctx, &mut trace, &mut |events| cut.add(events))
                })?;
                summary.reached.merge(cut);
                Ok(summary)
            })
            .collect()
    }
}

/// What the traces of one thread add up to, gathered in one pass over them.
#[derive(Default)]
pub(super) struct Summary {
    /// The `(location, value)` pairs some trace reads, and those some trace writes.
    reads: BTreeSet<(usize, i64)>,
    writes: BTreeSet<(usize, i64)>,
    /// The number of traces.
    pub(super) traces: usize,
    /// The most events one trace performs.
    pub(super) most_events: usize,
    /// What every path writes, traces and the paths the unroll bound cuts alike.
    reached: Reached,
}

/// The writes of a thread's paths, complete or cut by the unroll bound: a thread that spins
/// until another writes a value performs its writes before it spins, and the other thread's
/// write may need them.
#[derive(Default)]
struct Reached {
    /// The `(location, value)` pairs some path writes.
    writes: BTreeSet<(usize, i64)>,
    /// The most writes one path performs.
    path_writes: usize,
}

impl Reached {
    fn add(&mut self, events: &[TraceEvent]) {
        let written = events.iter().filter_map(|e| match (e.kind, e.loc) {
            (EventKind::Write, Some(l)) => Some((l, e.value)),
            _ => None,
        });
        let mut count = 0;
        for w in written {
            self.writes.insert(w);
            count += 1;
        }
        self.path_writes = self.path_writes.max(count);
    }

    fn merge(&mut self, other: Reached) {
        self.writes.extend(other.writes);
        self.path_writes = self.path_writes.max(other.path_writes);
    }
}

impl Summary {
    pub(super) fn add(&mut self, trace: &Trace) {
        for e in &trace.events {
            match (e.kind, e.loc) {
                (EventKind::Read, Some(l)) => {
                    self.reads.insert((l, e.value));
                }
                (EventKind::Write, Some(l)) => {
                    self.writes.insert((l, e.value));
                }
                _ => {}
            }
        }
        self.reached.add(&trace.events);
        self.traces += 1;
        self.most_events = self.most_events.max(trace.events.len());
    }
}

/// The value domain, the thread summaries under it and the bound from the code.
pub(super) struct Prepared {
    pub(super) domain: Domain,
    pub(super) summaries: Vec<Summary>,
    pub(super) code: bound::CodeBound,
}

/// The value domain; an error when the bound from the code exceeds the limit and so do the traces.
///
/// The domain holds initial values and stored constants, then values propagated through every
/// path of every thread, complete or cut by the unroll bound (a thread that spins until another
/// thread writes 2 performs its own writes first, and the other's write of 2 may need them: the
/// domain grown from complete traces alone missed such values and gave a wrong "Never", issue
/// 60). A value needing a chain of k writes (each reading the previous one's value) appears
/// after k rounds, and no execution has more writes than the sum over threads of the most one
/// path performs (paths only grow with the domain), so that many rounds over-approximate every
/// realisable value. Reads of values no write of the execution produces are discarded later by
/// `rf`, so over-approximation costs time, never precision. The bounds grow with the domain too,
/// so they are checked before each round goes through the traces.
pub(super) fn prepare(threads: &Threads, coherence: CoKind) -> Result<Prepared> {
    let (test, mem, opts) = (threads.test, threads.mem, threads.opts);
    let mut domain: Domain = mem.init.iter().map(|&v| BTreeSet::from([v])).collect();
    for (loc, v) in stored_constants(test) {
        domain[mem.index(test, &loc)].insert(v);
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
        let index = |l: &str| mem.index(test, l);
        let code = bound::from_code(test, &index, &domain, coherence, opts.unroll)?;
        if code.candidates > limit && code.traces > limit {
            return Err(over_limit(test, &code, false, opts));
        }
        let summaries = threads.summaries(&domain)?;
        round += 1;
        let mut next = domain.clone();
        for &(l, v) in summaries.iter().flat_map(|s| &s.reached.writes) {
            next[l].insert(v);
        }
        let writes: usize = summaries.iter().map(|s| s.reached.path_writes).sum();
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

/// Constants stored to a location anywhere in the test (they seed self-justifying reads, which
/// models without a no-thin-air axiom may allow).
pub(super) fn stored_constants(test: &Litmus) -> Vec<(String, i64)> {
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

/// `(location, value)` pairs as bits, to check quickly that every read value has a writer.
pub(super) struct ValueIndex {
    pub(super) pairs: BTreeMap<(usize, i64), usize>,
    /// Pairs written initially, or by some trace of thread `t` or of a later thread.
    pub(super) available_from: Vec<Bits>,
}

/// A set of `(location, value)` pair indices. Pairs beyond its capacity are never recorded as
/// read, so tests with that many pairs are merely pruned less.
pub(super) type Bits = [u64; 8];

pub(super) fn bits_set(b: &mut Bits, i: usize) {
    if i < 64 * b.len() {
        b[i / 64] |= 1 << (i % 64);
    }
}

pub(super) fn bits_subset(a: &Bits, b: &Bits) -> bool {
    a.iter().zip(b).all(|(x, y)| x & !y == 0)
}

pub(super) fn bits_union(a: &Bits, b: &Bits) -> Bits {
    std::array::from_fn(|i| a[i] | b[i])
}

impl ValueIndex {
    pub(super) fn of(summaries: &[Summary], mem: &Memory) -> ValueIndex {
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

    pub(super) fn valued(&self, trace: Trace) -> Valued {
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

/// A trace with the `(location, value)` pairs it reads and writes.
pub(super) struct Valued {
    pub(super) trace: Trace,
    pub(super) reads: Bits,
    pub(super) writes: Bits,
}

/// The refusal of a test over the limit, with the bound from the code and whether the candidates
/// were `counted` past the limit.
pub(super) fn over_limit(
    test: &Litmus,
    code: &bound::CodeBound,
    counted: bool,
    opts: &Options,
) -> Error {
    let estimate = bound::render(code.candidates);
    let limit = opts.max_candidates;
    // The solver (`decide`) enumerates each thread's paths too: where those alone are far too
    // many, no limit a user could give helps.
    const FEASIBLE_TRACES: u128 = 1_000_000_000;
    let message = if code.traces > FEASIBLE_TRACES {
        format!(
            "the runner's estimate of the candidate executions (an upper bound) is {estimate}, and \
             of the threads' paths alone {}: too many to enumerate, for the runner and \
             for the solver, which enumerates each thread's paths too; \
             mapcheck cannot decide this test",
            bound::render(code.traces)
        )
    } else if counted {
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
