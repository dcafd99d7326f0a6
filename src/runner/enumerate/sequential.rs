//! A sequentially consistent run of a test, looked for by interleaving its threads over one
//! memory, each read returning the memory's value: the runner's witness that a test has a
//! candidate execution, independent of the value domain and of how traces are combined (a
//! domain that missed a value once gave "Never" from 0 candidates, issue 60). Such a run's
//! traces, with `rf` from the last write before each read and `co` in run order, are a
//! candidate, so the runner reporting none when a run exists is an internal error.
//!
//! Tests where a barrier names a thread count are not looked at (the run would have to choose
//! which arrivals synchronise); nor is a test whose interleavings pass `MAX_STATES`.
use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::domain::Threads;
use crate::diag::Result;
use crate::litmus::Instr;
use crate::runner::traces::{label_positions, Cursor, Domain, ThreadContext};

/// The most interleaving states looked at.
const MAX_STATES: usize = 200_000;

/// What the search for a sequentially consistent run found.
pub(super) enum Run {
    /// A run to the end of every thread: the threads in the order they took their steps.
    Found(Vec<usize>),
    /// Every interleaving blocks or passes the unroll bound.
    None,
    /// Not looked for (a counted barrier), or more than `MAX_STATES` states.
    Unknown,
}

/// Look for a sequentially consistent run of `threads.test`.
pub(super) fn sequential_run(threads: &Threads) -> Result<Run> {
    let test = threads.test;
    let mut code = test.threads.iter().flat_map(|t| &t.code);
    if code.any(|i| matches!(i, Instr::Barrier { count: Some(_), .. })) {
        return Ok(Run::Unknown);
    }
    let labels = (test.threads.iter())
        .map(label_positions)
        .collect::<Result<Vec<_>>>()?;
    let start = State {
        cursors: (0..test.threads.len())
            .map(|t| threads.with_context(t, &vec![], Cursor::start))
            .collect(),
        memory: threads.mem.init.clone(),
        schedule: vec![],
    };
    let mut search = Search {
        threads,
        labels,
        seen: HashSet::new(),
    };
    search.from(start)
}

/// One point of an interleaving.
struct State {
    cursors: Vec<Cursor>,
    /// Each location's value, by `Memory` index.
    memory: Vec<i64>,
    schedule: Vec<usize>,
}

struct Search<'a> {
    threads: &'a Threads<'a>,
    labels: Vec<BTreeMap<String, usize>>,
    seen: HashSet<Key>,
}

type Key = (Vec<(usize, Vec<usize>, Vec<(String, i64)>)>, Vec<i64>);

impl Search<'_> {
    /// Depth first from `state`, each state once.
    fn from(&mut self, state: State) -> Result<Run> {
        let mut stack = vec![state];
        while let Some(state) = stack.pop() {
            let key = (
                state.cursors.iter().map(Cursor::state).collect(),
                state.memory.clone(),
            );
            if !self.seen.insert(key) {
                continue;
            }
            if self.seen.len() > MAX_STATES {
                return Ok(Run::Unknown);
            }
            let mut all_finished = true;
            let domain = one_value_each(&state.memory);
            for t in 0..state.cursors.len() {
                let advanced = self
                    .threads
                    .with_context(t, &domain, |ctx: &ThreadContext| {
                        match state.cursors[t].finished(ctx) {
                            true => Ok(None),
                            false => state.cursors[t].advance(ctx, &self.labels[t]).map(Some),
                        }
                    })?;
                let Some(next) = advanced else { continue };
                all_finished = false;
                if let Some((cursor, writes)) = next {
                    stack.push(state.after(t, cursor, &writes));
                }
            }
            if all_finished {
                return Ok(Run::Found(state.schedule));
            }
        }
        Ok(Run::None)
    }
}

impl State {
    /// The state after thread `t` stepped to `cursor`, performing `writes`.
    fn after(&self, t: usize, cursor: Cursor, writes: &[(usize, i64)]) -> State {
        let mut memory = self.memory.clone();
        for &(l, v) in writes {
            memory[l] = v;
        }
        let mut cursors: Vec<Cursor> = self.cursors.iter().map(Cursor::clone).collect();
        cursors[t] = cursor;
        let mut schedule = self.schedule.clone();
        schedule.push(t);
        State {
            cursors,
            memory,
            schedule,
        }
    }
}

/// The domain whose only value for each location is the memory's.
fn one_value_each(memory: &[i64]) -> Domain {
    memory.iter().map(|&v| BTreeSet::from([v])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::enumerate::domain::Memory;
    use crate::runner::Options;

    /// What `sequential_run` finds for the PTX test `text`.
    fn run_of(text: &str) -> Run {
        let test = crate::litmus::parse_str("t.litmus", text).unwrap();
        let mem = Memory::of(&test).unwrap();
        let opts = Options::default();
        let threads = Threads {
            test: &test,
            mem: &mem,
            opts: &opts,
            barrier_fences: false,
        };
        sequential_run(&threads).unwrap()
    }

    /// Two threads that each add 1 to `x` and then wait until it is 2.
    const COUNTER: &str = "PTX counter\n{ x=0; }\n\
         P0@cta 0,gpu 0                | P1@cta 0,gpu 0                ;\n\
         atom.relaxed.gpu.add r1, x, 1 | atom.relaxed.gpu.add r1, x, 1 ;\n\
         LC00:                         | LC00:                         ;\n\
         ld.relaxed.gpu r2, x          | ld.relaxed.gpu r2, x          ;\n\
         beq r2,2,LC01                 | beq r2,2,LC01                 ;\n\
         goto LC00                     | goto LC00                     ;\n\
         LC01:                         | LC01:                         ;\n\
        exists (0:r1=0)\n";

    #[test]
    fn a_counter_barrier_has_a_run_in_which_the_first_adder_waits_once() {
        let Run::Found(schedule) = run_of(COUNTER) else {
            panic!("no sequential run of the counter barrier");
        };
        assert!(
            schedule.contains(&0) && schedule.contains(&1),
            "{schedule:?}"
        );
    }

    #[test]
    fn a_wait_for_a_value_nobody_writes_has_no_run() {
        let waits_for_five = COUNTER.replace("beq r2,2", "beq r2,5");
        assert!(matches!(run_of(&waits_for_five), Run::None));
    }

    #[test]
    fn a_barrier_that_names_a_count_is_not_looked_at() {
        let counted = COUNTER.replace(
            "LC01:                         | LC01:                         ;",
            "LC01:                         | LC01:                         ;\n \
             bar.sync 0, 0, 2              | bar.sync 0, 0, 2              ;",
        );
        assert!(matches!(run_of(&counted), Run::Unknown));
    }
}
