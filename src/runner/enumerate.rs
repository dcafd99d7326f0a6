//! Candidate executions of a litmus test, one at a time.
//!
//! 1. The value domain: what each location may hold (propagated to a fixpoint over thread traces).
//! 2. Per-thread traces under that domain (`traces`).
//! 3. For each combination of traces: barrier generations (which arrivals synchronise, which
//!    threads block), then every `rf` (each read from a same-location write of the same value),
//!    then every `co` (total or partial per location, as the model declares; initial writes first).
//! Each candidate is judged by the model; consistent ones carry their final states.
use std::collections::{BTreeMap, BTreeSet};

use super::orders::{generations, partial_orders, permutations};
use super::traces::{traces, Domain, ThreadContext, Trace};
use super::Options;
use crate::diag::{Error, Result};
use crate::eval::{evaluate, Base, Outcome as Judgement};
use crate::exec::{Event, EventKind, Execution};
use crate::ir::{CoKind, Model};
use crate::litmus::{Expr, Instr, Litmus, RmwOp, Target};
use crate::rel::{Rel, MAX_EVENTS};

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
    tags: Vec<Vec<&'static str>>,
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
        let tags = names
            .iter()
            .map(|n| loc_tags(test, n))
            .collect::<Result<_>>()?;
        Ok(Memory { names, init, tags })
    }
    fn index(&self, l: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == l)
            .expect("every accessed location was collected")
    }
}

fn loc_tags(test: &Litmus, loc: &str) -> Result<Vec<&'static str>> {
    let raw = test
        .loc_tags
        .iter()
        .filter(|(l, _)| l == loc)
        .flat_map(|(_, t)| t);
    raw.map(|t| {
        crate::vocab::tag(t)
            .ok_or_else(|| Error::file(&test.name, format!("unknown location tag `{t}`")))
    })
    .collect()
}

/// All traces of every thread under `domain`.
fn all_traces(
    test: &Litmus,
    mem: &Memory,
    domain: &Domain,
    opts: &Options,
) -> Result<Vec<Vec<Trace>>> {
    let index = |l: &str| mem.index(l);
    let tags = |l: usize| mem.tags[l].clone();
    test.threads
        .iter()
        .enumerate()
        .map(|(i, thread)| {
            let init_regs = test
                .init_regs
                .iter()
                .filter(|(t, _, _)| *t == i)
                .map(|(_, r, v)| (r.clone(), *v))
                .collect();
            traces(&ThreadContext {
                thread,
                loc_index: &index,
                loc_tags: &tags,
                init_regs,
                unroll: opts.unroll,
                domain,
            })
        })
        .collect()
}

/// What each location may hold: initial values and stored constants, then values propagated
/// through thread traces. A value needing a chain of k writes (each reading the previous one's
/// value) appears after k rounds, and no execution has more writes than `write_bound` of the
/// current traces (traces only grow with the domain), so that many rounds over-approximate every
/// realisable value. Reads of values no write of the execution
/// produces are discarded later by `rf`, so over-approximation costs time, never precision.
fn value_domain(test: &Litmus, mem: &Memory, opts: &Options) -> Result<Domain> {
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
    let mut round = 0;
    loop {
        let traces = all_traces(test, mem, &domain, opts)?;
        round += 1;
        let mut next = domain.clone();
        for e in traces.iter().flatten().flat_map(|t| &t.events) {
            if let (EventKind::Write, Some(l)) = (e.kind, e.loc) {
                next[l].insert(e.value);
            }
        }
        if next == domain || round > write_bound(&traces) {
            break;
        }
        domain = next;
    }
    Ok(domain)
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

/// The most write events one execution can have: per thread, its trace with the most writes.
fn write_bound(per_thread: &[Vec<Trace>]) -> usize {
    let writes = |t: &Trace| {
        t.events
            .iter()
            .filter(|e| e.kind == EventKind::Write)
            .count()
    };
    per_thread
        .iter()
        .map(|ts| ts.iter().map(writes).max().unwrap_or(0))
        .sum()
}

/// Enumerate every candidate execution of `test`, judged by `model`, calling `f` on each.
pub fn for_each_candidate(
    model: &Model,
    test: &Litmus,
    opts: &Options,
    f: &mut dyn FnMut(&Candidate),
) -> Result<()> {
    let mem = Memory::of(test)?;
    let domain = value_domain(test, &mem, opts)?;
    let per_thread = all_traces(test, &mem, &domain, opts)?;
    let values = ValueIndex::of(&per_thread, &mem);
    let mut combo = Vec::with_capacity(per_thread.len());
    for_each_combination(&per_thread, &values, &mut combo, &mut |combo| {
        for_each_barrier_choice(test, combo, &mut |blocked, syncbar| {
            let shape = Shape::build(test, &mem, combo, blocked, syncbar)?;
            shape.for_each_rf_co(model, &mem, f);
            Ok(())
        })
    })
}

/// `(location, value)` pairs as bits, to check quickly that every read value has a writer.
struct ValueIndex {
    /// Per thread, per trace: the pairs it reads and the pairs it writes.
    reads: Vec<Vec<Bits>>,
    writes: Vec<Vec<Bits>>,
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
    fn of(per_thread: &[Vec<Trace>], mem: &Memory) -> ValueIndex {
        let mut pairs = BTreeMap::new();
        let events = per_thread.iter().flatten().flat_map(|t| &t.events);
        let all = events
            .filter_map(|e| e.loc.map(|l| (l, e.value)))
            .chain(mem.init.iter().copied().enumerate());
        for p in all {
            let next = pairs.len();
            pairs.entry(p).or_insert(next);
        }
        let bits_of = |t: &Trace, kind: EventKind| {
            let mut b = [0; 8];
            for e in t.events.iter().filter(|e| e.kind == kind) {
                bits_set(&mut b, pairs[&(e.loc.expect("memory event"), e.value)]);
            }
            b
        };
        let reads = per_thread
            .iter()
            .map(|ts| ts.iter().map(|t| bits_of(t, EventKind::Read)).collect())
            .collect();
        let writes: Vec<Vec<Bits>> = per_thread
            .iter()
            .map(|ts| ts.iter().map(|t| bits_of(t, EventKind::Write)).collect())
            .collect();
        let mut init = [0; 8];
        mem.init
            .iter()
            .enumerate()
            .for_each(|(l, &v)| bits_set(&mut init, pairs[&(l, v)]));
        let mut available_from = vec![init];
        for ws in writes.iter().rev() {
            let later = *available_from.last().expect("starts with init");
            available_from.push(ws.iter().fold(later, |acc, w| bits_union(&acc, w)));
        }
        available_from.reverse();
        ValueIndex {
            reads,
            writes,
            available_from,
        }
    }
}

/// Every choice of one trace per thread in which each read value is written by some chosen trace
/// or initially (pruned as soon as a read cannot be matched by the threads still to choose).
fn for_each_combination<'a>(
    per_thread: &'a [Vec<Trace>],
    values: &ValueIndex,
    combo: &mut Vec<&'a Trace>,
    k: &mut dyn FnMut(&[&'a Trace]) -> Result<()>,
) -> Result<()> {
    combine(per_thread, values, combo, &[0; 8], &[0; 8], k)
}

fn combine<'a>(
    per_thread: &'a [Vec<Trace>],
    values: &ValueIndex,
    combo: &mut Vec<&'a Trace>,
    reads: &Bits,
    written: &Bits,
    k: &mut dyn FnMut(&[&'a Trace]) -> Result<()>,
) -> Result<()> {
    let t = combo.len();
    if t == per_thread.len() {
        return k(combo);
    }
    for (i, trace) in per_thread[t].iter().enumerate() {
        let reads = bits_union(reads, &values.reads[t][i]);
        let written = bits_union(written, &values.writes[t][i]);
        if !bits_subset(&reads, &bits_union(&written, &values.available_from[t + 1])) {
            continue;
        }
        combo.push(trace);
        combine(per_thread, values, combo, &reads, &written, k)?;
        combo.pop();
    }
    Ok(())
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
    let instances = barrier_instances(test, combo);
    let mut choices: Vec<Vec<Vec<Option<usize>>>> = vec![];
    for (arrivals, count) in instances.values() {
        choices.push(generations(arrivals.len(), *count));
    }
    let keys: Vec<_> = instances.values().collect();
    let mut pick = vec![0; choices.len()];
    loop {
        let mut blocked: Vec<Option<usize>> = vec![None; combo.len()];
        let mut sync = vec![];
        let mut valid = true;
        for ((arrivals, _), (ch, &p)) in keys.iter().zip(choices.iter().zip(&pick)) {
            let gen = &ch[p];
            for (i, &(t, e)) in arrivals.iter().enumerate() {
                match gen[i] {
                    None => blocked[t] = Some(blocked[t].map_or(e, |b: usize| b.min(e))),
                    Some(g) => {
                        for (j, &other) in arrivals.iter().enumerate() {
                            if gen[j] == Some(g) && j != i {
                                valid &= other.0 != t;
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
        if valid {
            k(&blocked, &sync)?;
        }
        if !advance_pick(&mut pick, &choices) {
            return Ok(());
        }
    }
}

fn advance_pick(pick: &mut [usize], choices: &[Vec<Vec<Option<usize>>>]) -> bool {
    for (p, c) in pick.iter_mut().zip(choices) {
        *p += 1;
        if *p < c.len() {
            return true;
        }
        *p = 0;
    }
    false
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
            let end = blocked[t].map_or(trace.events.len(), |b| b + 1);
            for (i, e) in trace.events[..end].iter().enumerate() {
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
        let cos = co_choices(&exec, mem.names.len(), model.coherence);
        let mut base: Base = exec.base();
        let mut pick = vec![0; sources.len()];
        loop {
            exec.rf = Rel::from_pairs(
                exec.n(),
                sources.iter().zip(&pick).map(|((r, ws), &p)| (ws[p], *r)),
            );
            base.rels.insert("rf", exec.rf.clone());
            for_each_co(&cos, exec.n(), &mut |co| {
                exec.co = co.clone();
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

/// Per location, every allowed coherence order over its writes (as global event pairs).
fn co_choices(exec: &Execution, locations: usize, kind: CoKind) -> Vec<Vec<Vec<(usize, usize)>>> {
    (0..locations)
        .map(|l| {
            let init = l; // initial writes come first, in location order
            let ws: Vec<usize> = (locations..exec.n())
                .filter(|&w| {
                    exec.events[w].kind == EventKind::Write && exec.events[w].loc == Some(l)
                })
                .collect();
            let first: Vec<(usize, usize)> = ws.iter().map(|&w| (init, w)).collect();
            let orders: Vec<Vec<(usize, usize)>> = match kind {
                CoKind::Total => permutations(ws.len())
                    .iter()
                    .map(|p| chain(p, &ws))
                    .collect(),
                CoKind::Partial => partial_orders(ws.len())
                    .into_iter()
                    .map(|r| r.pairs().map(|(a, b)| (ws[a], ws[b])).collect())
                    .collect(),
            };
            orders
                .into_iter()
                .map(|o| first.iter().copied().chain(o).collect())
                .collect()
        })
        .collect()
}

/// The strict total order listing `ws[p[0]], ws[p[1]], …`.
fn chain(p: &[usize], ws: &[usize]) -> Vec<(usize, usize)> {
    let mut pairs = vec![];
    for (i, &a) in p.iter().enumerate() {
        for &b in &p[i + 1..] {
            pairs.push((ws[a], ws[b]));
        }
    }
    pairs
}

fn for_each_co(cos: &[Vec<Vec<(usize, usize)>>], n: usize, k: &mut dyn FnMut(&Rel)) {
    let mut pick = vec![0; cos.len()];
    loop {
        let co = Rel::from_pairs(
            n,
            cos.iter()
                .zip(&pick)
                .flat_map(|(c, &p)| c[p].iter().copied()),
        );
        k(&co);
        let mut carried = true;
        for (p, c) in pick.iter_mut().zip(cos) {
            *p += 1;
            if *p < c.len() {
                carried = false;
                break;
            }
            *p = 0;
        }
        if carried {
            return;
        }
    }
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
