//! Trace families, for deciding a test symbolically (the `decide` stage): the traces of a thread
//! that perform the same events and differ only in the values their reads return. A combination
//! of one family per thread, with one choice of barrier generations, is a `Family` shape: its
//! events fixed, its `rf` and `co` left open, and per thread the traces (read values and final
//! registers) it stands for.
use super::combinations::{for_each_barrier_choice, Combinations, HELD_TRACES};
use super::counting::executed;
use super::rf_co::{advance, final_registers, Shape};
use crate::diag::{Error, Result};
use crate::exec::{EventKind, Execution};
use crate::litmus::Litmus;
use crate::runner::traces::{Trace, TraceEvent};
use std::collections::BTreeMap;

/// One combination of trace families: the events (`rf` and `co` empty) and, per thread, the
/// traces that share them.
pub struct Family {
    /// The events and every relation but `rf` and `co` (empty); a read's value here is one
    /// member's, not a constraint.
    pub execution: Execution,
    /// Per thread, its traces: the value each read returns and the final registers.
    pub members: Vec<Vec<Member>>,
}

/// One trace of a family.
#[derive(Clone, Debug)]
pub struct Member {
    /// `(event, value)` for each read the thread performs (events of `Family::execution`).
    pub reads: Vec<(usize, i64)>,
    /// Final registers; `None`: unset because the thread blocked at a barrier before setting it.
    pub registers: BTreeMap<String, Option<i64>>,
}

/// What a trace's family is: its events with the values its reads return blanked.
fn family_key(trace: &Trace) -> Vec<TraceEvent> {
    let blank = |e: &TraceEvent| match e.kind {
        EventKind::Read => TraceEvent {
            value: 0,
            ..e.clone()
        },
        _ => e.clone(),
    };
    trace.events.iter().map(blank).collect()
}

/// The traces of each thread grouped into families (each thread's traces must be held).
fn families<'c>(test: &Litmus, combos: &'c Combinations) -> Result<Vec<Vec<Vec<&'c Trace>>>> {
    let mut out = vec![];
    for (t, held) in combos.held.iter().enumerate() {
        let Some(traces) = held else {
            let msg = format!(
                "thread {} has more than {HELD_TRACES} traces; the symbolic decision holds them all",
                test.threads[t].name
            );
            return Err(Error::file(&test.name, msg));
        };
        let mut groups: Vec<(Vec<TraceEvent>, Vec<&Trace>)> = vec![];
        for valued in traces {
            let key = family_key(&valued.trace);
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, members)) => members.push(&valued.trace),
                None => groups.push((key, vec![&valued.trace])),
            }
        }
        out.push(groups.into_iter().map(|(_, members)| members).collect());
    }
    Ok(out)
}

/// Call `f` on every combination of one family per thread and one choice of barrier generations.
pub(super) fn for_each_family(
    test: &Litmus,
    combos: &Combinations,
    f: &mut dyn FnMut(Family) -> Result<()>,
) -> Result<()> {
    let families = families(test, combos)?;
    let mut pick = vec![0; families.len()];
    if families.iter().any(Vec::is_empty) {
        return Ok(());
    }
    loop {
        let chosen: Vec<&Vec<&Trace>> = (families.iter().zip(&pick))
            .map(|(fs, &p)| &fs[p])
            .collect();
        let representatives: Vec<&Trace> = chosen.iter().map(|members| members[0]).collect();
        for_each_barrier_choice(test, &representatives, &mut |blocked, syncbar| {
            let mem = combos.threads.mem;
            let shape = Shape::build(test, mem, &representatives, blocked, syncbar)?;
            let mut first = mem.names.len();
            let mut members = vec![];
            for (t, family) in chosen.iter().enumerate() {
                members.push(
                    family
                        .iter()
                        .map(|trace| member(test, t, trace, blocked[t], first))
                        .collect(),
                );
                first += executed(representatives[t], blocked[t]).len();
            }
            f(Family {
                execution: shape.into_execution(),
                members,
            })
        })?;
        if !advance(&mut pick, families.iter().map(Vec::len)) {
            return Ok(());
        }
    }
}

/// Thread `t`'s trace as a family member whose first event is `first`.
fn member(test: &Litmus, t: usize, trace: &Trace, blocked: Option<usize>, first: usize) -> Member {
    let reads = (executed(trace, blocked).iter().enumerate())
        .filter(|(_, e)| e.kind == EventKind::Read)
        .map(|(i, e)| (first + i, e.value))
        .collect();
    let registers = final_registers(test, t, trace, blocked);
    Member { reads, registers }
}
