//! `rf` and `co` choice: the fixed part of a candidate (`Shape`), every `rf` and every `co` over
//! it, each candidate judged by the model with its final states.
use std::collections::{BTreeMap, BTreeSet};

use super::candidate::{Candidate, Finals};
use super::combinations::Arrival;
use super::counting::executed;
use super::domain::Memory;
use crate::diag::{Error, Result};
use crate::eval::{evaluate, Base};
use crate::exec::{BarrierPart, Event, EventKind, Execution};
use crate::ir::{CoKind, Model};
use crate::litmus::{Instr, Litmus};
use crate::rel::{Rel, MAX_EVENTS};
use crate::runner::options::Options;
use crate::runner::orders::{for_each_order, Pairs};
use crate::runner::traces::Trace;

/// The fixed part of a candidate: events, `po`, dependencies, `rmw`, `syncbar`; `rf`/`co` vary.
pub(super) struct Shape {
    exec: Execution,
    /// Registers per thread (`None` values: unset because the thread blocked).
    regs: Vec<BTreeMap<String, Option<i64>>>,
}

impl Shape {
    pub(super) fn build(
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
                vloc: Some(l),
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
                    vloc: e.vloc,
                    value: e.value,
                    tags: e.tags.clone(),
                    barrier: e.barrier.map(|b| (b.id, b.part)),
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
            for (&(_, j), &h) in global.range((t, i + 1)..(t + 1, 0)) {
                if !combo[t].events[j].unsequenced.contains(&i) {
                    po.insert(g, h);
                }
            }
            e.data.iter().for_each(|d| data.insert(global[&(t, *d)], g));
            e.ctrl.iter().for_each(|d| ctrl.insert(global[&(t, *d)], g));
            if let Some(r) = e.rmw_read {
                rmw.insert(global[&(t, r)], g);
            }
        }
        let parts = |a: &Arrival| barrier_events(combo, blocked, &global, *a);
        for (a, b) in syncbar {
            for (g, h) in parts(a).flat_map(|g| parts(b).map(move |h| (g, h))) {
                sync.insert(g, h);
            }
        }
        let [po, rmw, data, ctrl, syncbar] = rels;
        let events_of = |thread: usize| {
            let of_thread = global.iter().filter(move |((t, _), _)| *t == thread);
            of_thread.map(|(_, &g)| g)
        };
        let mut ssw = Rel::empty(n);
        for &(from, to) in &test.ssw {
            for a in events_of(from) {
                events_of(to).for_each(|b| ssw.insert(a, b));
            }
        }
        let regs = (combo.iter().enumerate())
            .map(|(t, trace)| final_registers(test, t, trace, blocked[t]))
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
            ssw,
        };
        Ok(Shape { exec, regs })
    }

    /// The execution, `rf` and `co` still empty.
    pub(super) fn into_execution(self) -> Execution {
        self.exec
    }

    /// Every `rf` and `co` for this shape, judged by the model; none more once `opts` is out of
    /// time.
    pub(super) fn for_each_rf_co(
        self,
        model: &Model,
        mem: &Memory,
        opts: &Options,
        f: &mut dyn FnMut(&Candidate),
    ) {
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
                if opts.out_of_time() {
                    return;
                }
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
            if opts.out_of_time() || !advance(&mut pick, sources.iter().map(|(_, ws)| ws.len())) {
                return;
            }
        }
    }
}

/// Thread `t`'s final registers on `trace`, blocked at event `blocked` if that is given.
pub(super) fn final_registers(
    test: &Litmus,
    t: usize,
    trace: &Trace,
    blocked: Option<usize>,
) -> BTreeMap<String, Option<i64>> {
    match blocked {
        None => (trace.regs.iter())
            .map(|(r, v)| (r.clone(), Some(*v)))
            .collect(),
        Some(b) => blocked_regs(test, t, &trace.regs_at_barrier[&b]),
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

pub(super) fn written_registers(code: &[Instr]) -> impl Iterator<Item = String> + '_ {
    code.iter().filter_map(|i| match i {
        Instr::Load { dst, .. } | Instr::Assign { dst, .. } => Some(dst.clone()),
        Instr::Rmw { dst, .. } => dst.clone(),
        _ => None,
    })
}

/// For each read, the writes it may read from: same location, same value.
pub(super) fn rf_sources(exec: &Execution) -> Vec<(usize, Vec<usize>)> {
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

/// The next choice of one index per position (position k taking values below `sizes[k]`), the
/// first position varying fastest; false after the last.
pub(super) fn advance(pick: &mut [usize], sizes: impl IntoIterator<Item = usize>) -> bool {
    for (p, size) in pick.iter_mut().zip(sizes) {
        *p += 1;
        if *p < size {
            return true;
        }
        *p = 0;
    }
    false
}

/// Per location, its initial write (event `l`: initial writes come first, in location order) and
/// its other writes.
pub(super) fn writes_per_location(exec: &Execution, locations: usize) -> Vec<(usize, Vec<usize>)> {
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
pub(super) fn for_each_co(
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
pub(super) fn final_states(
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

/// The events of the barrier thread `t` arrives at with event `i`: that event, and its exit
/// fence when the barrier has one (`BarrierPart`) and the thread gets past the barrier.
fn barrier_events<'g>(
    combo: &'g [&Trace],
    blocked: &'g [Option<usize>],
    global: &'g BTreeMap<Arrival, usize>,
    (t, i): Arrival,
) -> impl Iterator<Item = usize> + 'g {
    let executed = executed(combo[t], blocked[t]);
    let exit = executed
        .get(i + 1)
        .filter(|e| e.barrier.is_some_and(|b| b.part == BarrierPart::Exit))
        .map(|_| global[&(t, i + 1)]);
    std::iter::once(global[&(t, i)]).chain(exit)
}
